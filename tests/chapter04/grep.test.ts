import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { GREP_FILE_SIZE_LIMIT, GREP_LIMIT, GREP_LINE_LIMIT, grepLimits, grepTool } from 'kit/tools/grep';
import { RegexSearch } from 'kit/tools/regex-search';
import { rejection } from '../helpers/assert.js';
import { TEST_TIMEOUT_MS } from '../helpers/limits.js';
import { outcomeWithin } from '../helpers/wait.js';
import { tempWorkspace } from '../helpers/workspace.js';

const grep = (cwd: string, input: Record<string, unknown>) => grepTool.execute(grepTool.input.parse(input), { cwd });

// grep's time limit is real time (5 s): a search of a large file on a loaded machine can reach it. Only the test of
// the limit itself sets a short one; every other test has one no correct search reaches.
const defaultTimeMs = grepLimits.timeMs;
beforeEach(() => {
  grepLimits.timeMs = 10 * TEST_TIMEOUT_MS;
});
afterEach(() => {
  grepLimits.timeMs = defaultTimeMs;
});

describe('grepTool (src/tools/grep.ts)', () => {
  test('answers with file:line: text, sorted by file then line', async () => {
    const { root } = tempWorkspace({
      'src/z.ts': 'const b = 2;\n// TODO: later\n',
      'src/a.ts': '// TODO: first\nconst a = 1;\n// TODO: second\n',
      'README.md': 'TODO list\n',
    });
    expect(await grep(root, { pattern: 'TODO' }), 'paths relative to the root, lines counted from 1').toBe(
      'README.md:1: TODO list\nsrc/a.ts:1: // TODO: first\nsrc/a.ts:3: // TODO: second\nsrc/z.ts:2: // TODO: later',
    );
  });

  test('sorts the files by path in code-unit order, not folder by folder', async () => {
    const { root } = tempWorkspace({
      'z.txt': 'needle\n',
      'lib/a.txt': 'needle\n',
      'B.txt': 'needle\n',
      'a.txt': 'needle\n',
    });
    expect(
      await grep(root, { pattern: 'needle' }),
      "tinyglobby lists a folder's files before its subfolders' files: sort by display path with .sort() (not localeCompare)",
    ).toBe('B.txt:1: needle\na.txt:1: needle\nlib/a.txt:1: needle\nz.txt:1: needle');
  });

  test('finds a match on every line, even on consecutive lines', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'foo = 1\nfoo = 2\nfoo = 3\n' });
    expect(
      await grep(root, { pattern: 'foo' }),
      'a regex with the g flag remembers lastIndex between test() calls: do not use g',
    ).toBe('a.txt:1: foo = 1\na.txt:2: foo = 2\na.txt:3: foo = 3');
  });

  test('the pattern is a regular expression, not plain text', async () => {
    const { root } = tempWorkspace({ 'a.ts': 'export function add() {}\nfunction helper() {}\nexport const x = 1;\n' });
    expect(await grep(root, { pattern: '^export function \\w+' }), 'compile the pattern with new RegExp').toBe(
      'a.ts:1: export function add() {}',
    );
  });

  test('is case-sensitive unless ignore_case is true', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'Error: one\nerror: two\nERROR: three\n' });
    expect(await grep(root, { pattern: 'error' }), 'by default, letters must match in case').toBe(
      'a.txt:2: error: two',
    );
    expect(
      await grep(root, { pattern: 'error', ignore_case: true }),
      "ignore_case: true compiles the regex with the 'i' flag",
    ).toBe('a.txt:1: Error: one\na.txt:2: error: two\na.txt:3: ERROR: three');
  });

  test('an invalid regular expression is an error that names it', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'x\n' });
    const error = await rejection(
      grep(root, { pattern: 'foo(' }),
      'new RegExp throws on "foo(": turn that into a clear error (guided step 1)',
    );
    expect(String(error), 'say the regular expression is invalid (guided step 1)').toMatch(
      /invalid regular expression/i,
    );
    expect(String(error), 'quote the pattern the model sent (guided step 1)').toContain('foo(');
    expect(String(error), "pass on the SyntaxError's message, which says what is wrong (guided step 1)").toMatch(
      /Unterminated group/,
    );
  });

  test('skips binary files and the node_modules and .git folders', async () => {
    const { root } = tempWorkspace({
      'app.js': 'needle\n',
      'node_modules/lib/index.js': 'needle\n',
      '.git/COMMIT_EDITMSG': 'needle\n',
    });
    writeFileSync(path.join(root, 'image.png'), Buffer.from([0x89, 0x50, 0x00, 0x00, ...Buffer.from('needle\n')]));
    expect(
      await grep(root, { pattern: 'needle' }),
      'a file with a NUL byte is binary; ignore **/node_modules/** and **/.git/**',
    ).toBe('app.js:1: needle');
  });

  test('searches dotfiles too', async () => {
    const { root } = tempWorkspace({ '.env': 'TOKEN=needle\n', '.github/workflows/ci.yml': 'run: needle\n' });
    expect(
      await grep(root, { pattern: 'needle' }),
      'list the files with dot: true, as glob does: config often lives in dotfiles',
    ).toBe('.env:1: TOKEN=needle\n.github/workflows/ci.yml:1: run: needle');
  });

  test('does not search files twice through a symlinked folder inside the workspace', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'needle\n' });
    symlinkSync('.', path.join(root, 'self'));
    expect(
      await grep(root, { pattern: 'needle' }),
      'use followSymbolicLinks: false: the link self -> . would make every file show up again as self/...',
    ).toBe('a.txt:1: needle');
  });

  test('glob narrows the files searched, at any depth when it has no slash', async () => {
    const { root } = tempWorkspace({
      'a.md': 'needle\n',
      'src/b.ts': 'needle\n',
      'src/deep/c.ts': 'needle\n',
      'lib/d.ts': 'needle\n',
    });
    expect(await grep(root, { pattern: 'needle', glob: '*.ts' }), '"*.ts" means **/*.ts, as with ripgrep').toBe(
      'lib/d.ts:1: needle\nsrc/b.ts:1: needle\nsrc/deep/c.ts:1: needle',
    );
    expect(await grep(root, { pattern: 'needle', glob: 'src/*.ts' }), 'a glob with a slash is taken as it is').toBe(
      'src/b.ts:1: needle',
    );
  });

  test('path narrows the search to a folder or a single file', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'needle\n', 'src/b.txt': 'needle\n', 'src/c.txt': 'needle\n' });
    expect(await grep(root, { pattern: 'needle', path: 'src' }), 'paths stay relative to the root').toBe(
      'src/b.txt:1: needle\nsrc/c.txt:1: needle',
    );
    expect(await grep(root, { pattern: 'needle', path: 'src/c.txt' })).toBe('src/c.txt:1: needle');
  });

  test('says plainly when nothing matches', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'hay\n', 'src/b.txt': 'hay\n' });
    expect(await grep(root, { pattern: 'needle' })).toBe('No matches for /needle/');
    expect(await grep(root, { pattern: 'needle', path: 'src' })).toBe('No matches for /needle/ in src');
  });

  test('a missing path is an error', async () => {
    const { root } = tempWorkspace();
    await expect(grep(root, { pattern: 'x', path: 'missing' })).rejects.toThrow('Path not found: missing');
  });

  test(`lists at most ${GREP_LIMIT} matches and says how many more there were`, async () => {
    const { root } = tempWorkspace({ 'a.txt': 'hit\n'.repeat(GREP_LIMIT + 7) });
    const lines = (await grep(root, { pattern: 'hit' })).split('\n');
    expect(lines).toHaveLength(GREP_LIMIT + 1);
    expect(lines[GREP_LIMIT - 1]).toBe(`a.txt:${GREP_LIMIT}: hit`);
    expect(lines.at(-1), 'the note counts the matches left out').toMatch(/^\(7 more matches not shown/);
  });

  test(`counts the matches left out in every file, not only in the one that reached ${GREP_LIMIT}`, async () => {
    const { root } = tempWorkspace({
      'a.txt': 'hit\n'.repeat(60),
      'b.txt': 'hit\n'.repeat(60),
      'c.txt': 'hit\n'.repeat(30),
    });
    const lines = (await grep(root, { pattern: 'hit' })).split('\n');
    expect(lines, `grepTool.execute: the first ${GREP_LIMIT} matches, then the note (guided step 7)`).toHaveLength(
      GREP_LIMIT + 1,
    );
    expect(lines[GREP_LIMIT - 1], 'the 100th match is line 40 of b.txt').toBe('b.txt:40: hit');
    expect(
      lines.at(-1),
      `grepTool.execute: 150 matches in three files: search every file, then keep the first ${GREP_LIMIT} and count the other 50 (c.txt's 30 too) (guided step 7)`,
    ).toMatch(/^\(50 more matches not shown/);
  });

  test(`lists exactly ${GREP_LIMIT} matches without a note`, async () => {
    const { root } = tempWorkspace({ 'a.txt': 'hit\n'.repeat(GREP_LIMIT) });
    const lines = (await grep(root, { pattern: 'hit' })).split('\n');
    expect(
      lines,
      `${GREP_LIMIT} matches fit: the note is only for more than GREP_LIMIT (hits.length <= GREP_LIMIT)`,
    ).toHaveLength(GREP_LIMIT);
    expect(lines.at(-1)).toBe(`a.txt:${GREP_LIMIT}: hit`);
  });

  test(`shows a line of exactly ${GREP_LINE_LIMIT} characters whole`, async () => {
    const line = `needle${'x'.repeat(GREP_LINE_LIMIT - 6)}`;
    const { root } = tempWorkspace({ 'a.txt': `${line}\n${line}y\n` });
    expect(
      await grep(root, { pattern: 'needle' }),
      `only a line longer than GREP_LINE_LIMIT is cut (line.length > ${GREP_LINE_LIMIT}), and then to exactly that many characters and '…'`,
    ).toBe(`a.txt:1: ${line}\na.txt:2: ${line}…`);
  });

  test('cuts a very long matching line', async () => {
    const { root } = tempWorkspace({ 'min.js': `${'x'.repeat(5000)}needle${'y'.repeat(5000)}\n` });
    const result = await grep(root, { pattern: 'needle' });
    expect(result.length, `a matching line shows at most ${GREP_LINE_LIMIT} characters`).toBeLessThan(
      GREP_LINE_LIMIT + 20,
    );
    expect(result).toBe(`min.js:1: ${'x'.repeat(GREP_LINE_LIMIT)}…`);
  });

  test('refuses a path outside the workspace', async () => {
    const { root } = tempWorkspace();
    const error = await rejection(
      grep(root, { pattern: 'secret', path: '../outside' }),
      'the path option must go through resolveInWorkspace',
    );
    expect((error as Error).name).toBe('PathOutsideWorkspaceError');
    expect(String(error)).not.toContain('top secret');
  });

  test('never reads a file outside through a symlink', async () => {
    const { root, outside } = tempWorkspace({ 'a.txt': 'not a secret\n' });
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'notes.txt'));
    symlinkSync(outside, path.join(root, 'linked'));
    expect(
      await grep(root, { pattern: 'secret' }),
      'skip links that lead outside: followSymbolicLinks: false and insideWorkspace',
    ).toBe('a.txt:1: not a secret');
    expect(
      await grep(root, { pattern: 'secret', glob: 'linked/*' }),
      'a glob through the linked folder must not reach outside',
    ).not.toContain('top secret');
    await rejection(grep(root, { pattern: 'secret', path: 'notes.txt' }), 'notes.txt links outside the workspace');
  });

  test('a pattern that backtracks for seconds is stopped at the time limit, and the agent stays responsive', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'fine\n', 'b.txt': `${'a'.repeat(28)}!\n` });
    grepLimits.timeMs = 150;
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    // Every regex method (test, match, replace…) goes through exec: a call on this thread with the slow line blocks
    // the agent. Told by what ran where, not by how long a timer was late.
    const exec = vi.spyOn(RegExp.prototype, 'exec');
    const onThisThread = () =>
      exec.mock.contexts.filter(
        (regex, i) => (regex as RegExp).source === '^(a+)+$' && String(exec.mock.calls[i]?.[0]).includes('aaaa'),
      ).length;
    let blocking = 0;
    try {
      const error = await rejection(
        grep(root, { pattern: '^(a+)+$' }),
        "match with a RegexSearch (regex, grepLimits.timeMs); past the limit its RegexTimeoutError is the tool's error (guided step 5)",
      );
      blocking = onThisThread();
      expect(String(error), 'the error explains the time limit, so the model can simplify the pattern').toMatch(
        /took longer than 150 ms/,
      );
    } finally {
      clearInterval(ticker);
      exec.mockRestore();
    }
    expect(
      blocking,
      'the event loop was blocked; run the regex through search.matchingLines, never regex.test on this thread (guided step 5)',
    ).toBe(0);
    // The search's time limit is a timer on this thread, due after the ticker's first tick: a free loop ticks first.
    expect(ticks, 'timers kept running while the pattern was being tried').toBeGreaterThan(0);
    expect(RegexSearch.running, 'close the search in a finally, or its worker thread stays alive (guided step 5)').toBe(
      0,
    );
  });

  test('a final newline does not start another line, and \\r\\n ends a line as \\n does', async () => {
    const { root } = tempWorkspace({ 'unix.txt': 'one\n\ntwo\n', 'windows.txt': 'one\r\n\r\ntwo\r\n' });
    expect(
      await grep(root, { pattern: '^one$' }),
      'a \\r left at the end of a line would make $ fail on Windows line endings (guided step 5)',
    ).toBe('unix.txt:1: one\nwindows.txt:1: one');
    expect(
      await grep(root, { pattern: '^$' }),
      'only line 2 is empty; the text after the final newline is not a line (split on /\\r?\\n/ after dropping one final newline) (guided step 5)',
    ).toBe('unix.txt:2: \nwindows.txt:2: ');
  });

  test('a FIFO as the path is refused at once instead of read forever', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'needle\n' });
    const fifo = path.join(root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const outcome = await outcomeWithin(grep(root, { pattern: 'needle', path: 'pipe' }));
    if (outcome.status === 'still running') closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    expect(
      outcome.status,
      'a FIFO is neither a folder nor a regular file; reading it waits for a writer forever (guided step 2)',
    ).toBe('rejected');
    expect(
      String((outcome as { error?: unknown }).error),
      'say the path is not a regular file (guided step 2)',
    ).toMatch(/pipe is not a regular file/);
  });

  test('skips a file over the size limit and names it in a last line', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'needle\n' });
    // big.log is never read: sparse, it costs neither disk nor time (a loaded machine is slow enough with fits.log).
    writeFileSync(path.join(root, 'big.log'), 'needle\n');
    truncateSync(path.join(root, 'big.log'), GREP_FILE_SIZE_LIMIT + 8);
    writeFileSync(path.join(root, 'fits.log'), `needle\n${'x'.repeat(GREP_FILE_SIZE_LIMIT - 8)}\n`);
    const found = (await grep(root, { pattern: 'needle' })).split('\n');
    expect(
      found.slice(0, 2),
      'files up to GREP_FILE_SIZE_LIMIT bytes are searched (fits.log is exactly at it) (guided step 4)',
    ).toEqual(['a.txt:1: needle', 'fits.log:1: needle']);
    expect(
      found,
      'big.log is over GREP_FILE_SIZE_LIMIT, so it is not read: its needle is not a hit (guided step 4)',
    ).toHaveLength(3);
    expect(found[2], 'a last line names the files not searched (guided step 7)').toContain('big.log');
    expect(found[2], 'only the files over the limit (guided step 7)').not.toContain('fits.log');
    // Without fits.log: a second pass over 10 MB adds nothing to this check, and costs much on a loaded machine.
    const small = tempWorkspace({ 'a.txt': 'needle\n' }).root;
    writeFileSync(path.join(small, 'big.log'), 'needle\n');
    truncateSync(path.join(small, 'big.log'), GREP_FILE_SIZE_LIMIT + 8);
    const none = (await grep(small, { pattern: 'nothing' })).split('\n');
    expect(none[0]).toBe('No matches for /nothing/');
    expect(none[1] ?? '', 'the note comes even when nothing matched (guided step 7)').toContain('big.log');
  });

  test('refuses a glob that leaves the search folder, before listing anything', async () => {
    const { root, outside } = tempWorkspace({ 'a.txt': 'secret\n' });
    for (const fileGlob of ['../outside/*', `${outside}/*.txt`]) {
      const error = await rejection(
        grep(root, { pattern: 'secret', glob: fileGlob }),
        `patternLeavesFolder("${fileGlob}") is true: refuse it (guided step 3)`,
      );
      expect(String(error), 'the error names the glob (guided step 3)').toContain(fileGlob);
      expect(String(error)).not.toContain('top secret');
    }
  });

  test('is named grep and read-only', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'x\n' });
    await grep(root, { pattern: 'x' });
    expect(
      RegexSearch.running,
      'close the search when done (in a finally), or its worker thread stays alive (guided step 5)',
    ).toBe(0);
    expect(grepTool.name).toBe('grep');
    expect(grepTool.readOnly).toBe(true);
  });
});
