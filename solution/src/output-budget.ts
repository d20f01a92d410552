/**
 * Chapter 9: a size budget for tool output.
 *
 * One `cat` of a build log can be a megabyte, and every byte of it goes back to the model on every later turn. The
 * budget is an after-tool-call hook: a result longer than `maxChars` keeps its head and its tail (where errors and
 * summaries usually are), and between them a note says how much was cut and where the whole text is: a file in the
 * workspace, `.agent/outputs/<call id>.txt`, which the read tool can page through with offset and limit.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorText } from './execute-tool.js';
import type { Hooks } from './hooks.js';

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

/** The after-tool-call hook that keeps every result within the budget (see the top of this file). */
export function outputBudget(options: OutputBudgetOptions): Hooks {
  const { cwd, maxChars } = options;
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`outputBudget: maxChars must be a whole number of at least 1, got ${maxChars}`);
  const tailChars = Math.min(options.tailChars ?? Math.floor(maxChars / 4), maxChars);
  return {
    async afterToolCall(call, result) {
      // #region chapter 9: outputBudget.afterToolCall
      // 1. A result of at most maxChars characters: change nothing.
      // 2. Otherwise write the whole content to OUTPUTS_DIR/<outputFileName(call.id)> inside cwd (make the folder,
      //    recursive). The model chose the id: outputFileName keeps the file inside the folder.
      // 3. Keep the first maxChars - tailChars characters and the last tailChars, and put between them, on lines of
      //    its own, a note that says how many characters were cut of how many, and the file's path relative to
      //    cwd with how to read it (the read tool, offset and limit). If writing failed, say so in the note
      //    instead, with the error's text: the cut still happens.
      // 4. Return the result with that content (same id, name and isError).
      const { content } = result;
      if (content.length <= maxChars) return;
      const relative = `${OUTPUTS_DIR}/${outputFileName(call.id)}`;
      let where: string;
      try {
        await mkdir(path.join(cwd, OUTPUTS_DIR), { recursive: true });
        await writeFile(path.join(cwd, relative), content);
        where = `the whole output is in ${relative}: read it with the read tool (offset and limit) if you need the rest`;
      } catch (error) {
        where = `the whole output could not be kept (${errorText(error)})`;
      }
      const head = content.slice(0, maxChars - tailChars);
      const tail = tailChars > 0 ? content.slice(-tailChars) : '';
      const cut = content.length - head.length - tail.length;
      return { ...result, content: `${head}\n[... ${cut} of ${content.length} characters cut; ${where} ...]\n${tail}` };
      // #endregion
    },
  };
}
