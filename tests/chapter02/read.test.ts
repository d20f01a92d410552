import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { readTool } from 'kit/tools/read';
import { rejection } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

const read = (cwd: string, input: Record<string, unknown>) => readTool.execute(readTool.input.parse(input), { cwd });

describe('readTool (src/tools/read.ts)', () => {
  test('returns every line numbered from 1, like cat -n', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'alpha\nbeta\n' });
    expect(await read(root, { path: 'a.txt' }), 'each line: the number right-aligned in 6 columns, a tab, the text').toBe(
      '     1\talpha\n     2\tbeta',
    );
  });

  test('keeps the last line when the file does not end with a newline', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'one\ntwo' });
    expect(await read(root, { path: 'a.txt' })).toBe('     1\tone\n     2\ttwo');
  });

  test('keeps empty lines inside the file', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'a\n\nb\n' });
    expect(await read(root, { path: 'a.txt' })).toBe('     1\ta\n     2\t\n     3\tb');
  });

  test('reads a window with offset and limit, and says how to read on', async () => {
    const { root } = tempWorkspace({ 'n.txt': Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') });
    expect(await read(root, { path: 'n.txt', offset: 3, limit: 2 }), 'offset counts lines from 1; the note names the next line to read').toBe(
      '     3\tline 3\n     4\tline 4\n(6 more lines; read again with offset=5)',
    );
  });

  test('adds no note when the window reaches the end', async () => {
    const { root } = tempWorkspace({ 'n.txt': 'a\nb\nc\n' });
    expect(await read(root, { path: 'n.txt', offset: 2 })).toBe('     2\tb\n     3\tc');
  });

  test('reads at most 2000 lines when no limit is given', async () => {
    const { root } = tempWorkspace({ 'big.txt': Array.from({ length: 2500 }, (_, i) => `${i + 1}`).join('\n') });
    const lines = (await read(root, { path: 'big.txt' })).split('\n');
    expect(lines).toHaveLength(2001);
    expect(lines.at(-1)).toBe('(500 more lines; read again with offset=2001)');
  });

  test('says "(empty file)" for an empty file', async () => {
    const { root } = tempWorkspace({ 'empty.txt': '' });
    expect(await read(root, { path: 'empty.txt' })).toBe('(empty file)');
  });

  test('throws "File not found" with the path the model used', async () => {
    const { root } = tempWorkspace();
    await expect(read(root, { path: 'missing.txt' })).rejects.toThrow('File not found: missing.txt');
  });

  test('throws for a directory, saying it is one', async () => {
    const { root } = tempWorkspace();
    mkdirSync(path.join(root, 'src'));
    const error = await rejection(read(root, { path: 'src' }), 'reading a directory must throw');
    expect(
      (error as Error).message,
      'check with stat before reading, and say `src is a directory, not a file` (not the raw EISDIR error of readFile)',
    ).toBe('src is a directory, not a file');
  });

  test('throws for an offset past the end, giving the line count', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'a\nb\n' });
    await expect(read(root, { path: 'a.txt', offset: 5 })).rejects.toThrow(/2 lines/);
  });

  test('refuses a path outside the workspace without reading it', async () => {
    const { root } = tempWorkspace();
    const error = await rejection(read(root, { path: '../outside/secret.txt' }), 'the read tool must go through resolveInWorkspace');
    expect(String(error)).not.toContain('top secret');
    expect((error as Error).name).toBe('PathOutsideWorkspaceError');
  });

  test('refuses to follow a symlink out of the workspace', async () => {
    const { root, outside } = tempWorkspace();
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'notes.txt'));
    const error = await rejection(read(root, { path: 'notes.txt' }), 'notes.txt links outside the workspace: the read tool must go through resolveInWorkspace');
    expect(String(error)).toMatch(/outside/);
  });

  test('is named read, read-only, and requires only path', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'x' });
    await read(root, { path: 'a.txt' });
    expect(readTool.name).toBe('read');
    expect(readTool.readOnly, 'reading changes nothing, so it is safe to run without asking').toBe(true);
  });
});
