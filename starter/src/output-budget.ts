/**
 * Chapter 9: a size budget for tool output.
 *
 * One `cat` of a build log can be a megabyte, and every byte of it goes back to the model on every later turn. The
 * budget is an after-tool-call hook: a result longer than `maxChars` keeps its head and its tail (where errors and
 * summaries usually are), and between them a note says how much was cut and where the whole text is: a file in the
 * workspace, `.agent/outputs/<call id>.txt`, which the read tool can page through with offset and limit.
 */
import { TodoError } from './todo.js';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorText } from './execute-tool.js';
import type { Hooks } from './hooks.js';
import { displayPath, resolveInWorkspace } from './workspace.js';

/** Where the whole outputs are kept, relative to the workspace root. */
export const OUTPUTS_DIR = '.agent/outputs';

export interface OutputBudgetOptions {
  /** The workspace root; the whole outputs go under OUTPUTS_DIR inside it. */
  cwd: string;
  /** The most characters of output the model gets (head and tail together), at least 1. */
  maxChars: number;
  /** How many of them come from the end (default: a quarter of maxChars). */
  tailChars?: number;
}

/** A call id as a file name: anything but letters, digits, `_` and `-` becomes `_` (the model chose that id). */
export function outputFileName(callId: string): string {
  return `${callId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100) || 'call'}.txt`;
}

/**
 * Keeps `content` in a new file of OUTPUTS_DIR for call `callId` and returns its path relative to `cwd`. The file
 * goes through the same workspace check as the write tool (resolveInWorkspace: a `.agent` that is a link out of the
 * workspace is refused before any folder is made), and it never replaces a file: the model chose the id, so a
 * second call with the same id (or one named like an existing file) gets `<id>-2.txt`, `<id>-3.txt`, ... Throws when
 * the folder leads outside the workspace or no free name is left.
 */
export async function saveWholeOutput(cwd: string, callId: string, content: string): Promise<string> {
  const base = outputFileName(callId).slice(0, -'.txt'.length);
  await resolveInWorkspace(cwd, OUTPUTS_DIR);
  await mkdir(path.join(cwd, OUTPUTS_DIR), { recursive: true });
  for (let n = 1; n <= 100; n++) {
    const file = await resolveInWorkspace(cwd, `${OUTPUTS_DIR}/${n === 1 ? base : `${base}-${n}`}.txt`);
    try {
      await writeFile(file, content, { flag: 'wx' });
      return displayPath(cwd, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`no free file name for call ${callId} in ${OUTPUTS_DIR}`);
}

/** The after-tool-call hook that keeps every result within the budget (see the top of this file). */
export function outputBudget(options: OutputBudgetOptions): Hooks {
  const { cwd, maxChars } = options;
  if (!Number.isInteger(maxChars) || maxChars < 1)
    throw new RangeError(`outputBudget: maxChars must be a whole number of at least 1, got ${maxChars}`);
  const tailChars = Math.min(options.tailChars ?? Math.floor(maxChars / 4), maxChars);
  return {
    async afterToolCall(call, result) {
      // #region chapter 9: outputBudget.afterToolCall
      // 1. A result of at most maxChars characters: change nothing.
      // 2. Otherwise keep the whole content with the given saveWholeOutput(cwd, call.id, content): it returns the
      //    file's path relative to cwd. (It checks the folder the way the write tool checks a path, and never
      //    replaces a file: the model chose the id, and `.agent` may be a link someone else put there.)
      // 3. Keep the first maxChars - tailChars characters and the last tailChars, and put between them, on lines of
      //    its own, a note that says how many characters were cut of how many, and the file's path relative to
      //    cwd with how to read it (the read tool, offset and limit). If writing failed, say so in the note
      //    instead, with the error's text: the cut still happens.
      // 4. Return the result with that content (same id, name and isError).
      throw new TodoError(9, 'outputBudget.afterToolCall');
      // #endregion
    },
  };
}
