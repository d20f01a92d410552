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
  /**
   * Every line that the regular expression `pattern` matches (case-insensitively with `ignore_case`) in the text
   * files of `path` (a folder, searched as glob lists files, or a single file), one hit a line as
   * `<file>:<line>: <text>`: the file relative to the root, lines counted from 1, sorted by file in code-unit order
   * then by line. A line ends at \n or \r\n; a final newline starts no other line. Every matching line is found,
   * consecutive ones too.
   *
   * - An invalid pattern is an error that says `invalid regular expression`, quotes the pattern and passes on the
   *   SyntaxError's own message.
   * - The path goes through resolveInWorkspace: missing, `Path not found: <path>`; neither folder nor regular file,
   *   `<path> is not a regular file` (a FIFO would be read forever). Files are found as the glob tool finds them,
   *   never through a symlink out of the workspace or twice through one inside. The `glob` option narrows them, at
   *   any depth when it has no `/`; one that leaves the folder (patternLeavesFolder) is refused, quoted, before
   *   anything is read.
   * - Binary files (isBinary, given) are skipped; files over GREP_FILE_SIZE_LIMIT bytes are not searched, and a
   *   last line names them, even when nothing matched.
   * - The matching is done by one RegexSearch for the whole grep, with grepLimits.timeMs: it runs on a worker, so a
   *   pattern that backtracks for minutes cannot freeze the agent, and its RegexTimeoutError is the tool's error.
   *   It is closed however the grep ends.
   * - A line longer than GREP_LINE_LIMIT characters is cut there and ends with `…`.
   * - No hit: `No matches for /<pattern>/`, with ` in <path>` when one was given. More than GREP_LIMIT hits, counted
   *   over every file: the first GREP_LIMIT, then `(<N> more matches not shown; narrow the pattern, path or glob)`.
   */
  async execute({ pattern, path: target = '.', glob: fileGlob, ignore_case: ignoreCase }, ctx) {
    // #region chapter 4: grepTool.execute
    // Write it from the contract above. Step by step instead: npm run reset -- chapter4 --guided
    throw new TodoError(4, 'grepTool.execute');
    // #endregion
  },
});
