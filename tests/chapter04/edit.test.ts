import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { toolDefinition } from 'kit/tool';
import { editTool } from 'kit/tools/edit';
import { rejection } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

const edit = (cwd: string, input: Record<string, unknown>) => editTool.execute(editTool.input.parse(input), { cwd });
const contentOf = (root: string, file: string) => readFileSync(path.join(root, file), 'utf8');

const SOURCE = 'function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n';

describe('editTool (src/tools/edit.ts)', () => {
  test('replaces the one occurrence and leaves the rest of the file alone', async () => {
    const { root } = tempWorkspace({ 'math.js': SOURCE });
    const summary = await edit(root, { path: 'math.js', old_string: 'return a - b;', new_string: 'return a - b - 0;' });
    expect(contentOf(root, 'math.js')).toBe(SOURCE.replace('return a - b;', 'return a - b - 0;'));
    expect(summary, 'say which file changed and how many replacements were made').toBe('Edited math.js: replaced 1 occurrence');
  });

  test('text that is not in the file: an error that tells the model to read and copy it exactly', async () => {
    const { root } = tempWorkspace({ 'math.js': SOURCE });
    const error = await rejection(edit(root, { path: 'math.js', old_string: 'return a * b;', new_string: 'x' }), 'a missing old_string must throw');
    expect(String(error), 'the message should tell the model to read the file and copy the exact text').toMatch(/not found/);
    expect(String(error)).toMatch(/read/i);
    expect(String(error)).toMatch(/exact/);
    expect(contentOf(root, 'math.js')).toBe(SOURCE);
  });

  test('whitespace counts: a different indentation is not a match', async () => {
    const { root } = tempWorkspace({ 'math.js': SOURCE });
    await rejection(edit(root, { path: 'math.js', old_string: '    return a + b;', new_string: 'x' }), 'matching is exact: no trimming, no fuzzy search');
    expect(contentOf(root, 'math.js')).toBe(SOURCE);
  });

  test('text found several times: an error naming the count, and the file is unchanged', async () => {
    const { root } = tempWorkspace({ 'math.js': SOURCE });
    const error = await rejection(
      edit(root, { path: 'math.js', old_string: '(a, b)', new_string: '(x, y)' }),
      'old_string occurs twice: without replace_all, edit must refuse rather than pick one',
    );
    expect(String(error), 'say how many times it occurs').toMatch(/2 times/);
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
    const error = await rejection(edit(root, { path: 'a.txt', old_string: 'same', new_string: 'same' }), 'an edit that changes nothing is a mistake to report');
    expect(String(error)).toMatch(/same/);
  });

  test('refuses an empty old_string and points the model to write', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'text\n', 'one.txt': 'x' });
    for (const file of ['a.txt', 'one.txt']) {
      const error = await rejection(edit(root, { path: file, old_string: '', new_string: 'y' }), 'an empty old_string would match everywhere; refuse it');
      expect(
        (error as Error).message,
        `check old_string === '' before counting: the error must say old_string is empty (not "not found" or "occurs N times")`,
      ).toMatch(/^old_string is empty/);
      expect((error as Error).message, 'to create a file, the model should use write: say so').toMatch(/\bwrite\b/);
    }
    expect(contentOf(root, 'a.txt')).toBe('text\n');
    expect(contentOf(root, 'one.txt')).toBe('x');
  });

  test('refuses a path that is a directory, with a message that says so', async () => {
    const { root } = tempWorkspace({ 'src/a.ts': 'x\n' });
    const error = await rejection(edit(root, { path: 'src', old_string: 'x', new_string: 'y' }), 'src is a folder: edit must refuse it');
    expect(
      (error as Error).message,
      'after stat, check isDirectory() and throw `<path> is a directory, not a file` (not the EISDIR error of readFile)',
    ).toBe('src is a directory, not a file');
    expect(contentOf(root, 'src/a.ts')).toBe('x\n');
  });

  test('a missing file is an error, and no file is created', async () => {
    const { root } = tempWorkspace();
    await expect(edit(root, { path: 'nope.txt', old_string: 'a', new_string: 'b' })).rejects.toThrow('File not found: nope.txt');
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
    await rejection(edit(root, { path: 'notes.txt', old_string: 'top', new_string: 'no' }), 'notes.txt links outside the workspace');
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  test('the model must send path, old_string and new_string; replace_all is optional', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'a\n' });
    await edit(root, { path: 'a.txt', old_string: 'a', new_string: 'b' });
    expect(toolDefinition(editTool).inputSchema.required).toEqual(['path', 'old_string', 'new_string']);
    expect(editTool.readOnly).toBe(false);
  });
});
