/**
 * Chapter 4: the grep tool, for finding where something is said.
 *
 * A JavaScript regular expression is tried on every line of every text file under a folder. Each hit comes back as
 * `file:line: text`, a form the model can cite and hand to read (as an offset) or edit (as the text to match).
 */
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
    let regex: RegExp;
    try {
      regex = new RegExp(pattern, ignoreCase ? 'i' : '');
    } catch (error) {
      throw new Error(`Invalid regular expression "${pattern}": ${(error as Error).message}`);
    }
    const base = await resolveInWorkspace(ctx.cwd, target);
    const info = await stat(base).catch(() => {
      throw new Error(`Path not found: ${target}`);
    });
    if (!info.isDirectory() && !info.isFile()) throw new Error(`${target} is not a regular file`);
    let files = [base];
    if (info.isDirectory()) {
      if (fileGlob && patternLeavesFolder(fileGlob)) {
        throw new Error(
          `Glob "${fileGlob}" leaves the search folder: globs are relative to it; choose the folder with path`,
        );
      }
      const filePattern = !fileGlob ? '**/*' : fileGlob.includes('/') ? fileGlob : `**/${fileGlob}`;
      const found = await glob(filePattern, {
        cwd: base,
        absolute: true,
        onlyFiles: true,
        dot: true,
        followSymbolicLinks: false,
        ignore: IGNORED_FOLDERS,
      });
      const inside = await Promise.all(found.map((file) => insideWorkspace(ctx.cwd, file)));
      files = found.filter((_, i) => inside[i]);
    }
    const byName = new Map(files.map((file) => [displayPath(ctx.cwd, file), file]));
    const hits: string[] = [];
    const tooLarge: string[] = [];
    const search = new RegexSearch(regex, grepLimits.timeMs);
    try {
      for (const name of [...byName.keys()].sort()) {
        const file = byName.get(name)!;
        if ((await stat(file)).size > GREP_FILE_SIZE_LIMIT) {
          tooLarge.push(name);
          continue;
        }
        const bytes = await readFile(file);
        if (isBinary(bytes)) continue;
        const text = bytes.toString('utf8');
        const lines = text.replace(/\r?\n$/, '').split(/\r?\n/);
        for (const i of await search.matchingLines(lines)) {
          const line = lines[i]!;
          hits.push(`${name}:${i + 1}: ${line.length > GREP_LINE_LIMIT ? `${line.slice(0, GREP_LINE_LIMIT)}…` : line}`);
        }
      }
    } finally {
      search.close();
    }
    const out =
      hits.length === 0
        ? [`No matches for /${pattern}/${target === '.' ? '' : ` in ${target}`}`]
        : hits.slice(0, GREP_LIMIT);
    if (hits.length > GREP_LIMIT)
      out.push(`(${hits.length - GREP_LIMIT} more matches not shown; narrow the pattern, path or glob)`);
    if (tooLarge.length > 0)
      out.push(`(not searched, larger than ${GREP_FILE_SIZE_LIMIT} bytes: ${tooLarge.join(', ')})`);
    return out.join('\n');
    // #endregion
  },
});
