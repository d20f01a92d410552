/**
 * Chapter 2: the read tool, the first thing the model can do to the world.
 *
 * It returns a file's lines numbered from 1, so the model can refer to them, a window at a time for long files.
 */
import { TodoError } from '../todo.js';
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../tool.js';
import { displayPath, resolveInWorkspace } from '../workspace.js';

/** Lines returned when the model does not say how many. */
export const DEFAULT_READ_LIMIT = 2000;

const input = z.object({
  path: z.string().describe('The file to read, relative to the workspace root'),
  offset: z.number().int().min(1).optional().describe('The first line to read, counting from 1'),
  limit: z.number().int().min(1).optional().describe(`How many lines to read (default ${DEFAULT_READ_LIMIT})`),
});

/** One numbered line, as `cat -n` prints it: the number right-aligned in 6 columns, a tab, the text. */
export function numberLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6)}\t${text}`;
}

export const readTool = defineTool({
  name: 'read',
  description:
    'Read a text file in the workspace. Returns its lines numbered from 1. ' +
    'For long files, read a window with offset and limit.',
  input,
  readOnly: true,
  async execute({ path: requested, offset = 1, limit = DEFAULT_READ_LIMIT }, ctx) {
    // #region chapter 2: readTool.execute
    // 1. Resolve the path with resolveInWorkspace(ctx.cwd, requested): it throws for paths outside the workspace.
    // 2. stat the file. A missing file throws `File not found: <path>`; a directory throws
    //    `<path> is a directory, not a file`. Use displayPath so the model sees the path relative to the root.
    // 3. Read it as UTF-8. An empty file returns '(empty file)'.
    // 4. Split into lines (a final newline does not start an extra line) and keep lines offset..offset+limit-1.
    //    An offset past the end throws `<path> has N lines; offset M is past the end`.
    // 5. Number each kept line with numberLine, join with '\n'.
    // 6. If lines remain after the window, add a last line:
    //    `(N more lines; read again with offset=<next line>)`.
    throw new TodoError(2, 'readTool.execute');
    // #endregion
  },
});
