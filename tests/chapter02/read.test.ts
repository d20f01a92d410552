import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { MAX_READ_BYTES, readTool } from 'kit/tools/read';
import { rejection, settles } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

const read = (cwd: string, input: Record<string, unknown>) => readTool.execute(readTool.input.parse(input), { cwd });

describe('readTool (src/tools/read.ts)', () => {
  test('returns every line numbered from 1, like cat -n', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'alpha\nbeta\n' });
    expect(
      await read(root, { path: 'a.txt' }),
      'each line: the number right-aligned in 6 columns, a tab, the text',
    ).toBe('     1\talpha\n     2\tbeta');
  });

  test('keeps the last line when the file does not end with a newline', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'one\ntwo' });
    expect(await read(root, { path: 'a.txt' }), 'a last line without a newline is still a line').toBe(
      '     1\tone\n     2\ttwo',
    );
  });

  test('keeps empty lines inside the file', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'a\n\nb\n' });
    expect(await read(root, { path: 'a.txt' }), 'an empty line inside the file is shown, numbered').toBe(
      '     1\ta\n     2\t\n     3\tb',
    );
  });

  test('reads a window with offset and limit, and says how to read on', async () => {
    const { root } = tempWorkspace({ 'n.txt': Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') });
    const lines = (await read(root, { path: 'n.txt', offset: 3, limit: 2 })).split('\n');
    expect(
      lines.slice(0, 2),
      'offset counts lines from 1: offset 3, limit 2 shows lines 3 and 4 (guided step 5)',
    ).toEqual(['     3\tline 3', '     4\tline 4']);
    expect(lines, 'one note line after the window (guided step 6)').toHaveLength(3);
    expect(lines[2], 'the note says how many lines remain (6)').toMatch(/\b6 more lines\b/);
    expect(lines[2], 'the note names the offset to read on from (5)').toMatch(/offset=5\b/);
  });

  test('counts a single line left after the window', async () => {
    const { root } = tempWorkspace({ 'n.txt': 'a\nb\nc\n' });
    const lines = (await read(root, { path: 'n.txt', limit: 2 })).split('\n');
    expect(lines, 'two lines and a note: one line is left (guided step 6)').toHaveLength(3);
    expect(lines[2], 'the note counts the 1 line left and names offset=3').toMatch(/\b1 more line[^]*offset=3\b/);
    expect(lines[2], 'the window was not capped by bytes: the note says nothing about bytes').not.toMatch(/bytes/);
  });

  test('adds no note when the window reaches the end', async () => {
    const { root } = tempWorkspace({ 'n.txt': 'a\nb\nc\n' });
    expect(
      await read(root, { path: 'n.txt', offset: 2 }),
      'the window reaches the last line: no note (guided step 6)',
    ).toBe('     2\tb\n     3\tc');
  });

  test('adds no note when the window is full and ends exactly at the last line', async () => {
    const { root } = tempWorkspace({ 'n.txt': 'a\nb\nc\n' });
    const why =
      'readTool.execute: the note is for lines that remain after the window, not for a window that is full; this window ends at the last line (guided step 6)';
    expect(await read(root, { path: 'n.txt', limit: 3 }), `${why} (limit 3 on a 3-line file)`).toBe(
      '     1\ta\n     2\tb\n     3\tc',
    );
    expect(await read(root, { path: 'n.txt', offset: 2, limit: 2 }), `${why} (offset 2, limit 2)`).toBe(
      '     2\tb\n     3\tc',
    );
  });

  test('reads the last line when the offset is its number; one past it is past the end', async () => {
    const { root } = tempWorkspace({ 'n.txt': 'a\nb\nc' });
    const why =
      'readTool.execute: offset 3 of a 3-line file is the last line, not past the end (past the end is offset > line count) (guided step 4)';
    expect(await settles(read(root, { path: 'n.txt', offset: 3 }), why), why).toBe('     3\tc');
    const error = await rejection(
      read(root, { path: 'n.txt', offset: 4 }),
      'readTool.execute: offset 4 of a 3-line file is past the end: throw (guided step 4)',
    );
    expect(String(error), 'readTool.execute: the message says how many lines the file has (3) (guided step 4)').toMatch(
      /\b3 lines\b/,
    );
  });

  test('reads at most 2000 lines when no limit is given', async () => {
    const { root } = tempWorkspace({ 'big.txt': Array.from({ length: 2500 }, (_, i) => `${i + 1}`).join('\n') });
    const lines = (await read(root, { path: 'big.txt' })).split('\n');
    expect(lines, '2000 numbered lines and the note').toHaveLength(2001);
    expect(lines[1999], 'the last line shown is line 2000').toBe(`  2000\t2000`);
    expect(lines.at(-1), 'the note: 500 more lines, read on from offset=2001').toMatch(
      /\b500 more lines\b[^]*offset=2001\b/,
    );
  });

  test('says "(empty file)" for an empty file', async () => {
    const { root } = tempWorkspace({ 'empty.txt': '' });
    const why = "an empty file returns '(empty file)', not an error about the offset (check it first) (guided step 4)";
    expect(await settles(read(root, { path: 'empty.txt' }), why), why).toBe('(empty file)');
  });

  test('throws for a missing file, naming the path the model used', async () => {
    const { root } = tempWorkspace();
    const error = await rejection(
      read(root, { path: 'missing.txt' }),
      'reading a missing file must throw (guided step 2)',
    );
    expect((error as Error).message, 'the message names the path as the model wrote it (use displayPath)').toContain(
      'missing.txt',
    );
    expect((error as Error).message, 'the message says the file was not found').toMatch(
      /not found|does not exist|no such file/i,
    );
  });

  test('throws for a directory, saying it is one', async () => {
    const { root } = tempWorkspace();
    mkdirSync(path.join(root, 'src'));
    const error = await rejection(read(root, { path: 'src' }), 'reading a directory must throw');
    expect((error as Error).message, 'the message names the path (src) (guided step 2)').toMatch(/^src\b|\bsrc\b/);
    expect(
      (error as Error).message,
      'check with stat and say it is a directory (not the raw EISDIR error of a read) (guided step 2)',
    ).toMatch(/directory/);
    expect((error as Error).message).not.toMatch(/EISDIR/);
  });

  test('throws for an offset past the end, giving the line count', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'a\nb\n' });
    const error = await rejection(
      read(root, { path: 'a.txt', offset: 5 }),
      'an offset past the end must throw (guided step 4)',
    );
    expect((error as Error).message, 'the message says how many lines the file has (2)').toMatch(/\b2 lines\b/);
  });

  test('refuses a path outside the workspace without reading it', async () => {
    const { root } = tempWorkspace();
    const error = await rejection(
      read(root, { path: '../outside/secret.txt' }),
      'the read tool must go through resolveInWorkspace',
    );
    expect(String(error), 'the secret must not appear in the error').not.toContain('top secret');
    expect((error as Error).name, 'the error is the PathOutsideWorkspaceError of resolveInWorkspace').toBe(
      'PathOutsideWorkspaceError',
    );
  });

  test('refuses to follow a symlink out of the workspace', async () => {
    const { root, outside } = tempWorkspace();
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'notes.txt'));
    const error = await rejection(
      read(root, { path: 'notes.txt' }),
      'notes.txt links outside the workspace: the read tool must go through resolveInWorkspace',
    );
    expect(String(error), 'the error says the path is outside the workspace').toMatch(/outside/);
  });

  test('is named read, read-only, and requires only path', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'x' });
    await read(root, { path: 'a.txt' });
    expect(readTool.name, 'the tool is named read').toBe('read');
    expect(readTool.input.safeParse({}).success, 'path is required').toBe(false);
    expect(readTool.readOnly, 'reading changes nothing, so it is safe to run without asking').toBe(true);
  });
});

describe('readTool (src/tools/read.ts): what a careless model or a hostile workspace sends', () => {
  test('refuses a FIFO at once instead of waiting for a writer', async () => {
    const { root } = tempWorkspace();
    const fifo = path.join(root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    try {
      const outcome = await Promise.race([
        read(root, { path: 'pipe' }).then(
          (value) => ({ kind: 'resolved', value }),
          (error: unknown) => ({ kind: 'rejected', error }),
        ),
        new Promise<{ kind: 'hung' }>((resolve) => setTimeout(() => resolve({ kind: 'hung' }), 1000)),
      ]);
      if (outcome.kind === 'rejected' && (outcome as { error: Error }).error.name === 'TodoError')
        throw (outcome as { error: Error }).error;
      expect(
        outcome.kind,
        'a FIFO is not a regular file; refuse it before opening it (opening one waits for a writer) (guided step 2)',
      ).toBe('rejected');
      expect(
        String((outcome as { error: unknown }).error),
        'a FIFO is not a regular file: refuse it with an error that names the path (guided step 2)',
      ).toContain('pipe');
    } finally {
      // Release a read that is stuck opening the FIFO, so the test worker is not left with a blocked thread.
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader was waiting: nothing to release
      }
    }
  });

  test('cuts a line longer than 2000 bytes, and says so', async () => {
    const { root } = tempWorkspace();
    writeFileSync(path.join(root, 'bundle.min.js'), Buffer.alloc(20_000_000, 'x'));
    const result = await read(root, { path: 'bundle.min.js' });
    expect(
      result.length,
      'a 20 MB line must not come back whole: readWindow cuts it; return what it gives',
    ).toBeLessThan(3000);
    expect(result, 'the line starts as in the file').toMatch(/^ {5}1\txxxx/);
    expect(result, 'the output says the line was cut').toMatch(/cut/);
  });

  test('stops at MAX_READ_BYTES of text however many lines were asked for, and says where to read on', async () => {
    const line = 'y'.repeat(99);
    const { root } = tempWorkspace({ 'wide.txt': `${line}\n`.repeat(3000) });
    const result = await read(root, { path: 'wide.txt', limit: 3000 });
    const lines = result.split('\n');
    const shown = lines.length - 1;
    expect(
      shown * 100,
      `at most ${MAX_READ_BYTES} bytes of the file's text (readWindow stops there)`,
    ).toBeLessThanOrEqual(MAX_READ_BYTES);
    expect(shown, 'as many whole lines as fit').toBe(MAX_READ_BYTES / 100);
    expect(lines.at(-1), 'the note counts the lines left (guided step 6)').toMatch(
      new RegExp(`\\b${3000 - shown} more lines\\b`),
    );
    expect(lines.at(-1), 'the note names the next line to read (guided step 6)').toMatch(
      new RegExp(`offset=${shown + 1}\\b`),
    );
    expect(lines.at(-1), 'when the window was capped by bytes, the note says so (guided step 6)').toMatch(/bytes/);
    const next = (await read(root, { path: 'wide.txt', offset: shown + 1, limit: 1 })).split('\n')[0];
    expect(next, 'reading again from the offset in the note goes on where the window stopped').toBe(
      `${String(shown + 1).padStart(6)}\t${line}`,
    );
  });

  test('refuses a binary file instead of returning its bytes as text', async () => {
    const { root } = tempWorkspace();
    writeFileSync(
      path.join(root, 'logo.png'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48]),
    );
    const error = await rejection(
      read(root, { path: 'logo.png' }),
      'a file with NUL bytes is binary (readWindow says so): throw (guided step 4)',
    );
    expect(String(error), 'the error names the path').toContain('logo.png');
    expect(String(error), 'the error says the file is binary').toMatch(/binary/i);
  });

  test('reads the start of a 600 MB file without loading all of it', async () => {
    const { root } = tempWorkspace();
    const huge = path.join(root, 'huge.log');
    writeFileSync(huge, `${'first line\n'.repeat(1000)}`);
    truncateSync(huge, 600_000_000); // sparse: costs no disk
    const result = await read(root, { path: 'huge.log', limit: 2 }).catch((error: unknown) => {
      if (error instanceof Error && error.name === 'TodoError') throw error;
      return error;
    });
    expect(
      typeof result === 'string' ? result : String(result),
      'read through readWindow on the open handle, never the whole file into one string (guided step 4)',
    ).toMatch(/^ {5}1\tfirst line\n {5}2\tfirst line\n/);
    expect(
      String(result).split('\n').at(-1),
      'lines that were not counted: the note says there are more, and where to read on (guided step 6)',
    ).toMatch(/more lines[^]*offset=3\b/);
    expect(
      String(result).split('\n').at(-1),
      'the lines after the window were not counted: the note must not give a number',
    ).not.toMatch(/\d+ more lines/);
  });

  test('shows a Windows (CRLF) file without the carriage returns', async () => {
    const { root } = tempWorkspace({ 'win.txt': 'one\r\ntwo\r\n' });
    expect(
      await read(root, { path: 'win.txt' }),
      'the lines readWindow gives have no \\r; number them as they are',
    ).toBe('     1\tone\n     2\ttwo');
  });

  test('an offset far past the end throws with the line count; a huge limit reads to the end', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'a\nb\n' });
    const error = await rejection(read(root, { path: 'a.txt', offset: 1e12 }), 'offset 10^12 is past the end');
    expect(String(error), 'the message says how many lines the file has').toMatch(/\b2 lines\b/);
    expect(
      await read(root, { path: 'a.txt', limit: Number.MAX_SAFE_INTEGER }),
      'a limit larger than the file shows it all, with no note',
    ).toBe('     1\ta\n     2\tb');
  });

  test('refuses a symlink to a FIFO inside the workspace, and a path that is the root itself', async () => {
    const { root } = tempWorkspace();
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    symlinkSync('pipe', path.join(root, 'alias'));
    expect(
      String(
        await rejection(
          read(root, { path: 'alias' }),
          'alias leads to a FIFO: stat follows the link, so it is refused too',
        ),
      ),
    ).toContain('alias');
    expect(String(await rejection(read(root, { path: '.' }), '"." is the workspace folder: not a file'))).toMatch(
      /directory/,
    );
  });

  test('refuses a socket, naming it as the model wrote it', async () => {
    const { root } = tempWorkspace();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(root, 'agent.sock'), resolve));
    try {
      const error = await rejection(
        read(root, { path: 'agent.sock' }),
        'a socket is not a regular file: refuse it (guided step 2)',
      );
      expect(
        String(error),
        'stat first, and name the path relative to the root (displayPath), not the raw error of open (guided step 2)',
      ).not.toContain(root);
      expect(String(error), 'the message names the path').toContain('agent.sock');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('closes the file it opened, after a read and after a refusal', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'a\n' });
    writeFileSync(path.join(root, 'blob.bin'), Buffer.from([1, 0, 2]));
    const openOn = (file: string) =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === file;
        } catch {
          return false;
        }
      }).length;
    await read(root, { path: 'a.txt' });
    expect(openOn(path.join(root, 'a.txt')), 'close the handle when done (guided step 3)').toBe(0);
    await read(root, { path: 'blob.bin' }).catch((error: unknown) => {
      if (error instanceof Error && error.name === 'TodoError') throw error;
    });
    expect(
      openOn(path.join(root, 'blob.bin')),
      'close the handle whatever happens, a refused binary file too (try/finally) (guided step 3)',
    ).toBe(0);
  });
});
