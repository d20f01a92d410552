/**
 * Chapter 4: the grep tool, for finding where something is said.
 *
 * A JavaScript regular expression is tried on every line of every text file under a folder. Each hit comes back as
 * `file:line: text`, a form the model can cite and hand to read (as an offset) or edit (as the text to match).
 */
import { TodoError } from '../todo.js';
import { readFile, stat } from 'node:fs/promises';
import { glob } from 'tinyglobby';
import { z } from 'zod';
import { defineTool } from '../tool.js';
import { displayPath, resolveInWorkspace } from '../workspace.js';
import { IGNORED_FOLDERS, insideWorkspace, patternLeavesFolder } from './glob.js';
import { RegexSearch } from './regex-search.js';

/** Matching lines listed at most; a note says how many more there were. */
export const GREP_LIMIT = 100;
/** Characters of a matching line shown; longer lines (minified code) are cut. */
export const GREP_LINE_LIMIT = 300;
/** Files larger than this (in bytes) are not searched: logs and data dumps; a note names them. */
export const GREP_FILE_SIZE_LIMIT = 10_000_000;
/** How long one grep may spend matching before it is stopped (tests shorten it). */
export const grepLimits = { timeMs: 5_000 };

const input = z.object({
  pattern: z.string().min(1).describe('A JavaScript regular expression, without slashes, such as "function \\w+"'),
  path: z
    .string()
    .optional()
    .describe('A file or folder to search, relative to the workspace root (default: the root)'),
  glob: z
    .string()
    .optional()
    .describe('Only search files whose path matches this glob, such as "*.ts" or "src/**/*.js"'),
  ignore_case: z.boolean().default(false).describe('Match letters in either case (default false)'),
});

/** True when the bytes look like a binary file: a NUL byte in the first 8000, as git decides. */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search text files for a JavaScript regular expression. Returns matching lines as "file:line: text", sorted by ' +
    'file then line. Narrow the search with path (a file or folder) and glob (such as "*.ts").',
  input,
  readOnly: true,
  async execute({ pattern, path: target = '.', glob: fileGlob, ignore_case: ignoreCase }, ctx) {
    // #region chapter 4: grepTool.execute
    // Write it from the contract above. Step by step instead: npm run reset -- chapter4 --guided
    throw new TodoError(4, 'grepTool.execute');
    // #endregion
  },
});
