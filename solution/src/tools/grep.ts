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
import { IGNORED_FOLDERS, insideWorkspace } from './glob.js';

/** Matching lines listed at most; a note says how many more there were. */
export const GREP_LIMIT = 100;
/** Characters of a matching line shown; longer lines (minified code) are cut. */
export const GREP_LINE_LIMIT = 300;

const input = z.object({
  pattern: z.string().min(1).describe('A JavaScript regular expression, without slashes, such as "function \\w+"'),
  path: z.string().optional().describe('A file or folder to search, relative to the workspace root (default: the root)'),
  glob: z.string().optional().describe('Only search files whose path matches this glob, such as "*.ts" or "src/**/*.js"'),
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
    // 1. Compile the pattern with new RegExp(pattern, ignoreCase ? 'i' : ''). If that throws, throw
    //    `Invalid regular expression "<pattern>": <the SyntaxError's message>`. (No 'g' flag: a global regex
    //    remembers lastIndex between test() calls and skips matches.)
    // 2. Resolve the target with resolveInWorkspace. A missing target throws `Path not found: <target>`.
    // 3. A file is searched alone. For a folder, list files with tinyglobby as the glob tool does, with the glob
    //    option (default '**/*') as the pattern; a glob without a '/' matches at any depth ('*.ts' -> '**/*.ts').
    //    Keep only files for which insideWorkspace(ctx.cwd, file) is true.
    // 4. Go through the files in the order of their displayPath, sorted with .sort() as in glob (a Map from display
    //    path to file keeps the pair). Read each as bytes; skip it when isBinary.
    // 5. Split the text into lines (\r\n or \n) and test each line. For a hit, record
    //    `<path>:<line number from 1>: <line>`, the line cut to GREP_LINE_LIMIT characters with '…' when longer.
    // 6. No hits: return `No matches for /<pattern>/` (add ` in <target>` when a target was given).
    // 7. More than GREP_LIMIT hits: keep the first GREP_LIMIT and add a last line
    //    `(<N> more matches not shown; narrow the pattern, path or glob)`.
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
    let files = [base];
    if (info.isDirectory()) {
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
    for (const name of [...byName.keys()].sort()) {
      const bytes = await readFile(byName.get(name)!);
      if (isBinary(bytes)) continue;
      const lines = bytes.toString('utf8').split(/\r?\n/);
      lines.forEach((line, i) => {
        if (!regex.test(line)) return;
        const text = line.length > GREP_LINE_LIMIT ? `${line.slice(0, GREP_LINE_LIMIT)}…` : line;
        hits.push(`${name}:${i + 1}: ${text}`);
      });
    }
    if (hits.length === 0) return `No matches for /${pattern}/${target === '.' ? '' : ` in ${target}`}`;
    if (hits.length <= GREP_LIMIT) return hits.join('\n');
    const more = hits.length - GREP_LIMIT;
    return [...hits.slice(0, GREP_LIMIT), `(${more} more matches not shown; narrow the pattern, path or glob)`].join('\n');
    // #endregion
  },
});
