/**
 * Chapter 4: the edit tool, a search and replace the model cannot get subtly wrong.
 *
 * The model quotes the exact text it wants to change and what to put instead. Exact and unique: if the quote is not
 * in the file, or is there more than once, nothing changes and the error says how to do better. A fuzzy match would
 * sometimes change the wrong place, silently.
 */
import { TodoError } from '../todo.js';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../tool.js';
import { displayPath, resolveInWorkspace } from '../workspace.js';

/** Files larger than this (in bytes) are not edited: the model cannot have read them whole. */
export const EDIT_FILE_SIZE_LIMIT = 5_000_000;

/**
 * The text of `bytes` if they are UTF-8, or undefined if they are not (a binary file, or text in another encoding).
 * Writing such a file back as UTF-8 would change bytes the edit never touched. A byte order mark is kept.
 */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

const input = z.object({
  path: z.string().describe('The file to change, relative to the workspace root'),
  old_string: z
    .string()
    .describe(
      'The exact text to replace, copied from the file with its whitespace and indentation; it must occur once',
    ),
  new_string: z.string().describe('The text to put in its place (it must differ from old_string)'),
  replace_all: z
    .boolean()
    .default(false)
    .describe('Replace every occurrence of old_string instead of requiring exactly one (default false)'),
});

export const editTool = defineTool({
  name: 'edit',
  description:
    'Replace an exact piece of text in an existing file. old_string must match the file exactly (read the file ' +
    'first) and occur exactly once, unless replace_all is true. Include enough surrounding lines to make it unique.',
  input,
  async execute({ path: requested, old_string: oldString, new_string: newString, replace_all: replaceAll }, ctx) {
    // #region chapter 4: editTool.execute
    // Write it from the contract above. Step by step instead: npm run reset -- chapter4 --guided
    throw new TodoError(4, 'editTool.execute');
    // #endregion
  },
});
