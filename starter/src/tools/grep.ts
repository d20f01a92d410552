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
    // 1. Compile the pattern with new RegExp(pattern, ignoreCase ? 'i' : ''). If that throws, throw an error that
    //    says the regular expression is invalid, quotes the pattern and gives the SyntaxError's message. (No 'g'
    //    flag: a global regex remembers lastIndex between test() calls and skips matches.)
    // 2. Resolve the target with resolveInWorkspace. A missing target throws `Path not found: <target>`; one that
    //    is neither a folder nor a regular file throws `<target> is not a regular file` (reading a FIFO would wait
    //    forever; tinyglobby lists regular files only).
    // 3. A file is searched alone. For a folder, list files with tinyglobby as the glob tool does, with the glob
    //    option (default '**/*') as the pattern; a glob without a '/' matches at any depth ('*.ts' -> '**/*.ts').
    //    Refuse a glob for which patternLeavesFolder is true, as glob does. Keep only files for which
    //    insideWorkspace(ctx.cwd, file) is true.
    // 4. Go through the files in the order of their displayPath, sorted with .sort() as in glob (a Map from display
    //    path to file keeps the pair). Set aside the files over GREP_FILE_SIZE_LIMIT bytes (stat them). Read the
    //    others as bytes; skip a file when isBinary.
    // 5. Split the text into lines (\r\n or \n; a final newline does not start another line) and find the
    //    matches with a RegexSearch made once for the whole grep (regex, grepLimits.timeMs): search.matchingLines
    //    runs the regex on a worker thread, so a pattern that backtracks for minutes cannot freeze the agent; its
    //    RegexTimeoutError is the tool's error. Close the search when done, whatever happened.
    // 6. For each hit, record `<path>:<line number from 1>: <line>`, the line cut to GREP_LINE_LIMIT characters
    //    with '…' when longer.
    // 7. No hits: return `No matches for /<pattern>/` (add ` in <target>` when a target was given). More than
    //    GREP_LIMIT hits: keep the first GREP_LIMIT and add a line `(<N> more matches not shown; narrow the
    //    pattern, path or glob)`. Files set aside for their size: a last line naming them.
    throw new TodoError(4, 'grepTool.execute');
    // #endregion
  },
});
