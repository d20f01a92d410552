import { symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { GREP_LIMIT, GREP_LINE_LIMIT, grepTool } from 'kit/tools/grep';
import { rejection } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

const grep = (cwd: string, input: Record<string, unknown>) => grepTool.execute(grepTool.input.parse(input), { cwd });

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
    const { root } = tempWorkspace({ 'z.txt': 'needle\n', 'lib/a.txt': 'needle\n', 'B.txt': 'needle\n', 'a.txt': 'needle\n' });
    expect(
      await grep(root, { pattern: 'needle' }),
      'tinyglobby lists a folder\'s files before its subfolders\' files: sort by display path with .sort() (not localeCompare)',
    ).toBe('B.txt:1: needle\na.txt:1: needle\nlib/a.txt:1: needle\nz.txt:1: needle');
  });

  test('finds a match on every line, even on consecutive lines', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'foo = 1\nfoo = 2\nfoo = 3\n' });
    expect(await grep(root, { pattern: 'foo' }), 'a regex with the g flag remembers lastIndex between test() calls: do not use g').toBe(
      'a.txt:1: foo = 1\na.txt:2: foo = 2\na.txt:3: foo = 3',
    );
  });

  test('the pattern is a regular expression, not plain text', async () => {
    const { root } = tempWorkspace({ 'a.ts': 'export function add() {}\nfunction helper() {}\nexport const x = 1;\n' });
    expect(await grep(root, { pattern: '^export function \\w+' }), 'compile the pattern with new RegExp').toBe('a.ts:1: export function add() {}');
  });

  test('is case-sensitive unless ignore_case is true', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'Error: one\nerror: two\nERROR: three\n' });
    expect(await grep(root, { pattern: 'error' }), 'by default, letters must match in case').toBe('a.txt:2: error: two');
    expect(await grep(root, { pattern: 'error', ignore_case: true }), "ignore_case: true compiles the regex with the 'i' flag").toBe(
      'a.txt:1: Error: one\na.txt:2: error: two\na.txt:3: ERROR: three',
    );
  });

  test('an invalid regular expression is an error that names it', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'x\n' });
    const error = await rejection(grep(root, { pattern: 'foo(' }), 'new RegExp throws on "foo(": turn that into a clear error');
    expect(String(error)).toMatch(/Invalid regular expression/);
    expect(String(error), 'name the pattern the model sent').toContain('"foo("');
  });

  test('skips binary files and the node_modules and .git folders', async () => {
    const { root } = tempWorkspace({
      'app.js': 'needle\n',
      'node_modules/lib/index.js': 'needle\n',
      '.git/COMMIT_EDITMSG': 'needle\n',
    });
    writeFileSync(path.join(root, 'image.png'), Buffer.from([0x89, 0x50, 0x00, 0x00, ...Buffer.from('needle\n')]));
    expect(await grep(root, { pattern: 'needle' }), 'a file with a NUL byte is binary; ignore **/node_modules/** and **/.git/**').toBe(
      'app.js:1: needle',
    );
  });

  test('searches dotfiles too', async () => {
    const { root } = tempWorkspace({ '.env': 'TOKEN=needle\n', '.github/workflows/ci.yml': 'run: needle\n' });
    expect(await grep(root, { pattern: 'needle' }), 'list the files with dot: true, as glob does: config often lives in dotfiles').toBe(
      '.env:1: TOKEN=needle\n.github/workflows/ci.yml:1: run: needle',
    );
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
    const { root } = tempWorkspace({ 'a.md': 'needle\n', 'src/b.ts': 'needle\n', 'src/deep/c.ts': 'needle\n', 'lib/d.ts': 'needle\n' });
    expect(await grep(root, { pattern: 'needle', glob: '*.ts' }), '"*.ts" means **/*.ts, as with ripgrep').toBe(
      'lib/d.ts:1: needle\nsrc/b.ts:1: needle\nsrc/deep/c.ts:1: needle',
    );
    expect(await grep(root, { pattern: 'needle', glob: 'src/*.ts' }), 'a glob with a slash is taken as it is').toBe('src/b.ts:1: needle');
  });

  test('path narrows the search to a folder or a single file', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'needle\n', 'src/b.txt': 'needle\n', 'src/c.txt': 'needle\n' });
    expect(await grep(root, { pattern: 'needle', path: 'src' }), 'paths stay relative to the root').toBe('src/b.txt:1: needle\nsrc/c.txt:1: needle');
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

  test(`lists exactly ${GREP_LIMIT} matches without a note`, async () => {
    const { root } = tempWorkspace({ 'a.txt': 'hit\n'.repeat(GREP_LIMIT) });
    const lines = (await grep(root, { pattern: 'hit' })).split('\n');
    expect(lines, `${GREP_LIMIT} matches fit: the note is only for more than GREP_LIMIT (hits.length <= GREP_LIMIT)`).toHaveLength(GREP_LIMIT);
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
    expect(result.length, `a matching line shows at most ${GREP_LINE_LIMIT} characters`).toBeLessThan(GREP_LINE_LIMIT + 20);
    expect(result).toBe(`min.js:1: ${'x'.repeat(GREP_LINE_LIMIT)}…`);
  });

  test('refuses a path outside the workspace', async () => {
    const { root } = tempWorkspace();
    const error = await rejection(grep(root, { pattern: 'secret', path: '../outside' }), 'the path option must go through resolveInWorkspace');
    expect((error as Error).name).toBe('PathOutsideWorkspaceError');
    expect(String(error)).not.toContain('top secret');
  });

  test('never reads a file outside through a symlink', async () => {
    const { root, outside } = tempWorkspace({ 'a.txt': 'not a secret\n' });
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'notes.txt'));
    symlinkSync(outside, path.join(root, 'linked'));
    expect(await grep(root, { pattern: 'secret' }), 'skip links that lead outside: followSymbolicLinks: false and insideWorkspace').toBe(
      'a.txt:1: not a secret',
    );
    expect(await grep(root, { pattern: 'secret', glob: 'linked/*' }), 'a glob through the linked folder must not reach outside').not.toContain(
      'top secret',
    );
    await rejection(grep(root, { pattern: 'secret', path: 'notes.txt' }), 'notes.txt links outside the workspace');
  });

  test('is named grep and read-only', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'x\n' });
    await grep(root, { pattern: 'x' });
    expect(grepTool.name).toBe('grep');
    expect(grepTool.readOnly).toBe(true);
  });
});
