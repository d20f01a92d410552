/**
 * Chapter 4: the write tool, for new files and whole rewrites.
 *
 * It replaces a file's whole content, creating the folders on the way. For a change inside an existing file the
 * edit tool is safer: the model sends only the part that changes and cannot drop the rest by accident.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../tool.js';
import { displayPath, resolveInWorkspace } from '../workspace.js';

const input = z.object({
  path: z.string().describe('The file to write, relative to the workspace root; missing folders are created'),
  content: z.string().describe('The complete new content of the file (it replaces whatever was there)'),
});

export const writeTool = defineTool({
  name: 'write',
  description:
    'Create a file, or replace the whole content of an existing one. Missing parent folders are created. ' +
    'To change part of an existing file, use edit instead.',
  input,
  /**
   * Writes `content` as UTF-8 as the whole file, replacing whatever was there (nothing of the old content may
   * remain), and creates the folders on the way. The path goes through resolveInWorkspace, which refuses what is
   * outside (a symlink that leads out too); messages name the file as displayPath shows it.
   *
   * - Refused, before anything is written: an existing directory, `<path> is a directory, not a file`, and anything
   *   else that exists and is not a regular file, `<path> is not a regular file` (writing to a FIFO waits for a
   *   reader forever).
   * - The result is one line, `Wrote <bytes> bytes (<lines> lines) to <path>`: bytes as UTF-8 counts them (`é` is
   *   two), lines as read counts them (an empty file has 0, a final newline starts no new line).
   */
  async execute({ path: requested, content }, ctx) {
    // #region chapter 4: writeTool.execute
    // 1. Resolve the path with resolveInWorkspace(ctx.cwd, requested): it throws for paths outside the workspace,
    //    including a symlink that leads out. Keep displayPath(ctx.cwd, absolute) for messages.
    // 2. If the path exists, it must be a regular file: a directory throws `<path> is a directory, not a file`;
    //    anything else (a FIFO, a socket, a device) throws `<path> is not a regular file` (writing to a FIFO waits
    //    for a reader forever).
    // 3. Create the parent folders with mkdir(path.dirname(absolute), { recursive: true }).
    // 4. Write the content as UTF-8 (this replaces an existing file).
    // 5. Return one line: `Wrote <bytes> bytes (<lines> lines) to <path>`. Count bytes with Buffer.byteLength
    //    (UTF-8, not string length) and lines as read does: '' has 0 lines, a final newline starts no new line.
    const absolute = await resolveInWorkspace(ctx.cwd, requested);
    const shown = displayPath(ctx.cwd, absolute);
    const existing = await stat(absolute).catch(() => undefined);
    if (existing?.isDirectory()) throw new Error(`${shown} is a directory, not a file`);
    if (existing && !existing.isFile()) throw new Error(`${shown} is not a regular file`);
    await mkdir(path.dirname(absolute), { recursive: true });
    await writeFile(absolute, content, 'utf8');
    const lines = content === '' ? 0 : content.replace(/\n$/, '').split('\n').length;
    return `Wrote ${Buffer.byteLength(content, 'utf8')} bytes (${lines} lines) to ${shown}`;
    // #endregion
  },
});
