import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  openSync,
  readFileSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { toolDefinition } from 'kit/tool';
import { EDIT_FILE_SIZE_LIMIT, editTool } from 'kit/tools/edit';
import { rejection, settles } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

const edit = (cwd: string, input: Record<string, unknown>) => editTool.execute(editTool.input.parse(input), { cwd });
const contentOf = (root: string, file: string) => readFileSync(path.join(root, file), 'utf8');

const SOURCE = 'function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n';

describe('editTool (src/tools/edit.ts)', () => {
  test('replaces the one occurrence and leaves the rest of the file alone', async () => {
    const { root } = tempWorkspace({ 'math.js': SOURCE });
    const summary = await edit(root, { path: 'math.js', old_string: 'return a - b;', new_string: 'return a - b - 0;' });
    expect(contentOf(root, 'math.js')).toBe(SOURCE.replace('return a - b;', 'return a - b - 0;'));
    expect(summary, 'say which file changed and how many replacements were made').toBe(
      'Edited math.js: replaced 1 occurrence',
    );
  });

  test('text that is not in the file: an error that tells the model to read and copy it exactly', async () => {
    const { root } = tempWorkspace({ 'math.js': SOURCE });
    const error = await rejection(
      edit(root, { path: 'math.js', old_string: 'return a * b;', new_string: 'x' }),
      'a missing old_string must throw',
    );
    expect(String(error), 'the message should tell the model to read the file and copy the exact text').toMatch(
      /not found/,
    );
    expect(String(error)).toMatch(/read/i);
    expect(String(error)).toMatch(/exact/);
    expect(contentOf(root, 'math.js')).toBe(SOURCE);
  });

  test('whitespace counts: a different indentation is not a match', async () => {
    const { root } = tempWorkspace({ 'math.js': SOURCE });
    await rejection(
      edit(root, { path: 'math.js', old_string: '    return a + b;', new_string: 'x' }),
      'matching is exact: no trimming, no fuzzy search',
    );
    expect(contentOf(root, 'math.js')).toBe(SOURCE);
  });

  test('text found several times: an error naming the count, and the file is unchanged', async () => {
    const { root } = tempWorkspace({ 'math.js': SOURCE });
    const error = await rejection(
      edit(root, { path: 'math.js', old_string: '(a, b)', new_string: '(x, y)' }),
      'old_string occurs twice: without replace_all, edit must refuse rather than pick one',
    );
    expect(String(error), 'say how many times it occurs (guided step 6)').toMatch(/\b2\b|twice/);
    expect(String(error), 'suggest more context or replace_all').toMatch(/replace_all/);
    expect(contentOf(root, 'math.js'), 'an ambiguous edit must change nothing').toBe(SOURCE);
  });

  test('replace_all changes every occurrence and says how many', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'cat, cat and cat\n' });
    expect(await edit(root, { path: 'a.txt', old_string: 'cat', new_string: 'dog', replace_all: true })).toBe(
      'Edited a.txt: replaced 3 occurrences',
    );
    expect(contentOf(root, 'a.txt')).toBe('dog, dog and dog\n');
  });

  test('replace_all with a single occurrence is fine', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'one cat\n' });
    expect(await edit(root, { path: 'a.txt', old_string: 'cat', new_string: 'dog', replace_all: true })).toBe(
      'Edited a.txt: replaced 1 occurrence',
    );
  });

  test('inserts new_string literally, even when it contains $& or $1', async () => {
    const { root } = tempWorkspace({ 'price.js': 'const price = PRICE;\n' });
    await edit(root, { path: 'price.js', old_string: 'PRICE', new_string: '`$& costs $1 $$`' });
    expect(contentOf(root, 'price.js'), 'String.replace gives $& and $1 a meaning: use split/join instead').toBe(
      'const price = `$& costs $1 $$`;\n',
    );
  });

  test('refuses an old_string equal to new_string', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'same\n' });
    const error = await rejection(
      edit(root, { path: 'a.txt', old_string: 'same', new_string: 'same' }),
      'an edit that changes nothing is a mistake to report',
    );
    expect(String(error)).toMatch(/same/);
  });

  test('refuses an empty old_string and points the model to write', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'text\n', 'one.txt': 'x' });
    for (const file of ['a.txt', 'one.txt']) {
      const error = await rejection(
        edit(root, { path: file, old_string: '', new_string: 'y' }),
        'an empty old_string would match everywhere; refuse it',
      );
      expect(
        (error as Error).message,
        "check old_string === '' before counting: the error must say old_string is empty (guided step 2)",
      ).toMatch(/empty/);
      expect((error as Error).message, 'refuse the empty quote before reading or counting (guided step 2)').not.toMatch(
        /not found|occurs|times/,
      );
      expect((error as Error).message, 'to create a file, the model should use write: say so').toMatch(/\bwrite\b/);
    }
    expect(contentOf(root, 'a.txt')).toBe('text\n');
    expect(contentOf(root, 'one.txt')).toBe('x');
  });

  test('refuses a path that is a directory, with a message that says so', async () => {
    const { root } = tempWorkspace({ 'src/a.ts': 'x\n' });
    const error = await rejection(
      edit(root, { path: 'src', old_string: 'x', new_string: 'y' }),
      'src is a folder: edit must refuse it',
    );
    expect(
      (error as Error).message,
      'after stat, check isDirectory() and throw `<path> is a directory, not a file` (not the EISDIR error of readFile)',
    ).toBe('src is a directory, not a file');
    expect(contentOf(root, 'src/a.ts')).toBe('x\n');
  });

  test('a missing file is an error, and no file is created', async () => {
    const { root } = tempWorkspace();
    await expect(edit(root, { path: 'nope.txt', old_string: 'a', new_string: 'b' })).rejects.toThrow(
      'File not found: nope.txt',
    );
    expect(existsSync(path.join(root, 'nope.txt'))).toBe(false);
  });

  test('refuses paths outside the workspace, through .. or a symlink', async () => {
    const { root, outside } = tempWorkspace();
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'notes.txt'));
    const error = await rejection(
      edit(root, { path: '../outside/secret.txt', old_string: 'top', new_string: 'no' }),
      'edit must resolve its path with resolveInWorkspace',
    );
    expect((error as Error).name).toBe('PathOutsideWorkspaceError');
    await rejection(
      edit(root, { path: 'notes.txt', old_string: 'top', new_string: 'no' }),
      'notes.txt links outside the workspace',
    );
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
    symlinkSync(path.join(outside, 'planted.txt'), path.join(root, 'dangling.txt'));
    const dangling = await rejection(
      edit(root, { path: 'dangling.txt', old_string: 'a', new_string: 'b' }),
      'dangling.txt links outside',
    );
    expect(
      (dangling as Error).name,
      'a dangling link that leads out is refused as outside, not "not found" (guided step 1)',
    ).toBe('PathOutsideWorkspaceError');
    expect(existsSync(path.join(outside, 'planted.txt'))).toBe(false);
  });

  test('a file with Windows line endings: a quote written with \\n matches, and the file keeps \\r\\n', async () => {
    const { root } = tempWorkspace({ 'win.txt': 'first\r\nsecond\r\nthird\r\n' });
    const summary = await settles(
      edit(root, { path: 'win.txt', old_string: 'first\nsecond', new_string: 'one\ntwo\nthree' }),
      'the file uses \\r\\n and the quote has no \\r; look for it with every \\n turned into \\r\\n (guided step 5)',
    );
    expect(summary, 'the file uses \\r\\n, so look for the quote with \\n turned into \\r\\n (guided step 5)').toBe(
      'Edited win.txt: replaced 1 occurrence',
    );
    expect(
      contentOf(root, 'win.txt'),
      'the new lines get \\r\\n too, so the file keeps one kind of line ending (guided step 5)',
    ).toBe('one\r\ntwo\r\nthree\r\nthird\r\n');
    await edit(root, { path: 'win.txt', old_string: 'two\r\nthree', new_string: '2\r\n3' });
    expect(
      contentOf(root, 'win.txt'),
      'a quote that already has \\r\\n is used as it is, and \\r\\n is not doubled (guided step 5)',
    ).toBe('one\r\n2\r\n3\r\nthird\r\n');
    await edit(root, { path: 'win.txt', old_string: 'one', new_string: 'uno\r\ndos' });
    expect(
      contentOf(root, 'win.txt'),
      'a new_string with \\r\\n keeps it as it is, even when the quote has no line end (guided step 5)',
    ).toBe('uno\r\ndos\r\n2\r\n3\r\nthird\r\n');
    writeFileSync(path.join(root, 'unix.txt'), 'first\nsecond\n');
    await edit(root, { path: 'unix.txt', old_string: 'first\nsecond', new_string: 'one\ntwo' });
    expect(
      contentOf(root, 'unix.txt'),
      'only a file that uses \\r\\n gets \\r\\n; this one keeps \\n (guided step 5)',
    ).toBe('one\ntwo\n');
  });

  test('a one-line quote in a Windows file: new lines in new_string get \\r\\n too', async () => {
    const { root } = tempWorkspace({ 'win.txt': 'alpha\r\nbeta\r\n' });
    await edit(root, { path: 'win.txt', old_string: 'alpha', new_string: 'one\ntwo' });
    expect(
      contentOf(root, 'win.txt'),
      'editTool.execute: the file uses \\r\\n and the quote has no \\r: turn the line ends of new_string into \\r\\n even when old_string is a single line (guided step 5)',
    ).toBe('one\r\ntwo\r\nbeta\r\n');
  });

  test('a quote that overlaps itself counts as two occurrences', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'x\n\n\ny\n' });
    const error = await rejection(
      edit(root, { path: 'a.txt', old_string: '\n\n', new_string: '\n' }),
      '"\\n\\n" occurs twice in "x\\n\\n\\ny" (at 1 and at 2): the quote is ambiguous, refuse it (guided step 6)',
    );
    expect(
      String(error),
      'count overlapping places too (indexOf from one past each hit), not only what split finds (guided step 6)',
    ).toMatch(/\b2\b|twice/);
    expect(contentOf(root, 'a.txt')).toBe('x\n\n\ny\n');
    expect(
      await edit(root, { path: 'a.txt', old_string: '\n\n', new_string: '\n', replace_all: true }),
      'N is the replacements made (guided step 8)',
    ).toBe('Edited a.txt: replaced 1 occurrence');
  });

  test('refuses a file that is not UTF-8 and leaves its bytes alone', async () => {
    const { root } = tempWorkspace();
    const latin1 = Buffer.from('café = 1;\n', 'latin1');
    writeFileSync(path.join(root, 'old.js'), latin1);
    const error = await rejection(
      edit(root, { path: 'old.js', old_string: '= 1', new_string: '= 2' }),
      'utf8Text gives undefined: refuse (guided step 4)',
    );
    expect(String(error), 'say the file is not UTF-8 (guided step 4)').toMatch(/UTF-8/);
    expect(
      readFileSync(path.join(root, 'old.js')).equals(latin1),
      'writing it back as UTF-8 would have changed the é (guided step 4)',
    ).toBe(true);
  });

  test('keeps a byte order mark', async () => {
    const { root } = tempWorkspace({ 'bom.txt': '\uFEFFhello\n' });
    await edit(root, { path: 'bom.txt', old_string: 'hello', new_string: 'bye' });
    expect(contentOf(root, 'bom.txt'), 'decode with utf8Text, which keeps the BOM (guided step 4)').toBe('\uFEFFbye\n');
  });

  test('refuses a FIFO at once instead of waiting to read it', async () => {
    const { root } = tempWorkspace();
    const fifo = path.join(root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      edit(root, { path: 'pipe', old_string: 'a', new_string: 'b' }).then(
        () => 'resolved',
        (error: unknown) => String(error),
      ),
      new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still waiting'), 1000))),
    ]);
    clearTimeout(timer);
    if (outcome === 'still waiting') closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    expect(
      outcome,
      'a FIFO is not a regular file (isFile() is false): refuse it before reading, which waits for a writer forever (guided step 3)',
    ).toMatch(/pipe is not a regular file/);
  });

  test('refuses a file over the size limit and points to bash', async () => {
    const { root } = tempWorkspace();
    // big.log is never read: sparse, it costs neither disk nor time.
    writeFileSync(path.join(root, 'big.log'), 'needle\n');
    truncateSync(path.join(root, 'big.log'), EDIT_FILE_SIZE_LIMIT + 7);
    writeFileSync(path.join(root, 'fits.log'), `needle\n${'x'.repeat(EDIT_FILE_SIZE_LIMIT - 7)}`);
    expect(
      await edit(root, { path: 'fits.log', old_string: 'needle', new_string: 'pin' }),
      'a file of exactly EDIT_FILE_SIZE_LIMIT bytes may be edited (guided step 3)',
    ).toBe('Edited fits.log: replaced 1 occurrence');
    const error = await rejection(
      edit(root, { path: 'big.log', old_string: 'needle', new_string: 'pin' }),
      'the file is over EDIT_FILE_SIZE_LIMIT (guided step 3)',
    );
    expect(String(error), 'suggest bash (sed) for such files (guided step 3)').toMatch(/bash/);
    expect(readFileSync(path.join(root, 'big.log'), 'utf8').startsWith('needle\n'), 'the file is unchanged').toBe(true);
  });

  test('the model must send path, old_string and new_string; replace_all is optional', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'a\n' });
    await edit(root, { path: 'a.txt', old_string: 'a', new_string: 'b' });
    expect(toolDefinition(editTool).inputSchema.required).toEqual(['path', 'old_string', 'new_string']);
    expect(editTool.readOnly).toBe(false);
  });
});
