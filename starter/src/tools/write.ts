/**
 * Chapter 4: the write tool, for new files and whole rewrites.
 *
 * It replaces a file's whole content, creating the folders on the way. For a change inside an existing file the
 * edit tool is safer: the model sends only the part that changes and cannot drop the rest by accident.
 */
import { TodoError } from '../todo.js';
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter4 --guided
    throw new TodoError(4, 'writeTool.execute');
    // #endregion
  },
});
