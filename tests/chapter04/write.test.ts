import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { writeTool } from 'kit/tools/write';
import { rejection } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

const write = (cwd: string, input: Record<string, unknown>) => writeTool.execute(writeTool.input.parse(input), { cwd });

describe('writeTool (src/tools/write.ts)', () => {
  test('creates a new file and its missing folders, and sums up what it wrote', async () => {
    const { root } = tempWorkspace();
    const summary = await write(root, { path: 'notes/2024/todo.txt', content: 'buy milk\ncall Bob\n' });
    expect(
      readFileSync(path.join(root, 'notes/2024/todo.txt'), 'utf8'),
      'the file holds exactly the content; mkdir the parents with recursive: true',
    ).toBe('buy milk\ncall Bob\n');
    expect(
      summary,
      'writeTool.execute: one line: bytes, lines (counted as read counts them: the final newline starts no new line, so 2), and the path relative to the workspace root (guided step 5)',
    ).toBe('Wrote 18 bytes (2 lines) to notes/2024/todo.txt');
  });

  test('replaces the whole content of an existing file', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'a long old content that is longer than the new one\n' });
    await write(root, { path: 'a.txt', content: 'short\n' });
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'nothing of the old content may remain').toBe('short\n');
  });

  test('counts bytes in UTF-8 and lines without a final newline', async () => {
    const { root } = tempWorkspace();
    expect(
      await write(root, { path: 'é.txt', content: 'héllo\nwörld' }),
      '"é" and "ö" take two bytes each: use Buffer.byteLength',
    ).toBe('Wrote 13 bytes (2 lines) to é.txt');
  });

  test('writes an empty file as 0 bytes and 0 lines', async () => {
    const { root } = tempWorkspace();
    expect(await write(root, { path: 'empty.txt', content: '' })).toBe('Wrote 0 bytes (0 lines) to empty.txt');
    expect(readFileSync(path.join(root, 'empty.txt'), 'utf8')).toBe('');
  });

  test('refuses a path that climbs out of the workspace, and creates nothing there', async () => {
    const { root, outside } = tempWorkspace();
    const error = await rejection(
      write(root, { path: '../outside/new.txt', content: 'x' }),
      'write must resolve every path with resolveInWorkspace',
    );
    expect((error as Error).name).toBe('PathOutsideWorkspaceError');
    expect(existsSync(path.join(outside, 'new.txt')), 'the check must come before anything is written').toBe(false);
  });

  test('refuses an absolute path outside the workspace', async () => {
    const { root, outside } = tempWorkspace();
    await rejection(
      write(root, { path: path.join(outside, 'secret.txt'), content: 'pwned' }),
      'an absolute path outside the root must be refused',
    );
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  test('refuses to write through a symlink that leads out of the workspace', async () => {
    const { root, outside } = tempWorkspace();
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'notes.txt'));
    symlinkSync(outside, path.join(root, 'linked'));
    await rejection(
      write(root, { path: 'notes.txt', content: 'pwned' }),
      'notes.txt links outside: resolveInWorkspace follows symlinks',
    );
    await rejection(
      write(root, { path: 'linked/new.txt', content: 'pwned' }),
      'linked/ is a folder outside the workspace',
    );
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'the file outside must be untouched').toBe(
      'top secret\n',
    );
    expect(existsSync(path.join(outside, 'new.txt'))).toBe(false);
  });

  test('refuses to write through a dangling symlink that leads out, to a file or a folder not made yet', async () => {
    const { root, outside } = tempWorkspace();
    symlinkSync(path.join(outside, 'planted.txt'), path.join(root, 'notes.txt'));
    symlinkSync(path.join(outside, 'later'), path.join(root, 'cache'));
    const error = await rejection(
      write(root, { path: 'notes.txt', content: 'pwned' }),
      'notes.txt links to a file outside that does not exist yet (guided step 1)',
    );
    expect((error as Error).name, 'resolveInWorkspace refuses it (guided step 1)').toBe('PathOutsideWorkspaceError');
    await rejection(
      write(root, { path: 'cache/x.txt', content: 'pwned' }),
      'cache/ links to a folder outside that does not exist yet (guided step 1)',
    );
    expect(existsSync(path.join(outside, 'planted.txt')), 'nothing may be created outside').toBe(false);
    expect(
      existsSync(path.join(outside, 'later')),
      'no folder may be created outside either (the check comes before mkdir)',
    ).toBe(false);
  });

  test('refuses a path that is a directory, with a message that says so', async () => {
    const { root } = tempWorkspace();
    mkdirSync(path.join(root, 'src'));
    writeFileSync(path.join(root, 'src/keep.txt'), 'keep');
    const error = await rejection(write(root, { path: 'src', content: 'x' }), 'src is a folder: write must refuse it');
    expect(
      (error as Error).message,
      'stat the path first and throw `<path> is a directory, not a file` (not the EISDIR error of writeFile)',
    ).toBe('src is a directory, not a file');
    expect(readFileSync(path.join(root, 'src/keep.txt'), 'utf8'), 'the folder and its files must be left alone').toBe(
      'keep',
    );
  });

  test('refuses a FIFO at once instead of waiting for a reader', async () => {
    const { root } = tempWorkspace();
    const fifo = path.join(root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      write(root, { path: 'pipe', content: 'x' }).then(
        () => 'resolved',
        (error: unknown) => String(error),
      ),
      new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still waiting'), 1000))),
    ]);
    clearTimeout(timer);
    if (outcome === 'still waiting') closeSync(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK));
    expect(
      outcome,
      'an existing path that is not a regular file (isFile() is false) must be refused before writing (guided step 2)',
    ).toMatch(/pipe is not a regular file/);
  });

  test('writes through a symlink that stays inside the workspace, to its target', async () => {
    const { root } = tempWorkspace({ 'docs/real.md': 'old\n' });
    symlinkSync('docs/real.md', path.join(root, 'README.md'));
    expect(await write(root, { path: 'README.md', content: 'new\n' }), 'the path the model used is the one named').toBe(
      'Wrote 4 bytes (1 lines) to README.md',
    );
    expect(
      readFileSync(path.join(root, 'docs/real.md'), 'utf8'),
      'the link is followed: its target gets the content',
    ).toBe('new\n');
  });

  test('is named write and is not read-only', async () => {
    const { root } = tempWorkspace();
    await write(root, { path: 'x.txt', content: 'x' });
    expect(writeTool.name).toBe('write');
    expect(writeTool.readOnly, 'write changes files: it must not be marked read-only').toBe(false);
  });
});
