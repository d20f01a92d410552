/**
 * Chapter 4: the glob tool, for finding files by name.
 *
 * The model rarely knows a project's layout; glob lets it look before it reads. Results are paths relative to the
 * workspace root, sorted, so the same question always gets the same answer and each path can go straight to read.
 */
import { TodoError } from '../todo.js';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { z } from 'zod';
import { defineTool } from '../tool.js';
import { displayPath, resolveInWorkspace } from '../workspace.js';

/** Files listed at most; a note says how many more matched. */
export const GLOB_LIMIT = 100;

/** Folders no search looks into. */
export const IGNORED_FOLDERS = ['**/node_modules/**', '**/.git/**'];

const input = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('A glob pattern such as "**/*.ts" or "src/*.json", relative to the search folder'),
  path: z.string().optional().describe('The folder to search in, relative to the workspace root (default: the root)'),
});

/**
 * True when a glob pattern names something outside the folder it is searched from: it is absolute (`/etc/*`), or
 * has a `..` segment (`../*`, `src/../../x`), also inside braces (`{..,src}/*`). tinyglobby would walk there before
 * any filter could drop the results, and `/**` walks the whole disk.
 */
export function patternLeavesFolder(pattern: string): boolean {
  return /(^|[{,])\//.test(pattern) || /(^|[/{,])\.\.($|[/},])/.test(pattern);
}

/** True when `absolute` is a path resolveInWorkspace accepts (no `..`, absolute path or symlink leads out). */
export async function insideWorkspace(root: string, absolute: string): Promise<boolean> {
  return resolveInWorkspace(root, absolute).then(
    () => true,
    () => false,
  );
}

export const globTool = defineTool({
  name: 'glob',
  description:
    'Find files by name with a glob pattern ("**/*.ts", "src/**/*.test.ts"). Returns matching file paths relative ' +
    'to the workspace root, sorted. node_modules and .git are skipped.',
  input,
  readOnly: true,
  /**
   * The files (never folders) under the search folder `path` whose path matches the glob `pattern`, listed one a
   * line, relative to the workspace root (not to the folder, so each can go straight to read), in code-unit order
   * over the whole list (`B.ts` before `a.ts`; a locale's order would differ from machine to machine). Dotfiles are
   * found; IGNORED_FOLDERS are not searched. tinyglobby's glob does the listing.
   *
   * - The folder goes through resolveInWorkspace; one that is missing or not a directory is
   *   `<folder> is not a directory`.
   * - A pattern that leaves the search folder (patternLeavesFolder, given) is refused before anything is listed:
   *   the error quotes it and says patterns are relative to the folder, which the model chooses with `path`.
   * - Symlinks are never followed while walking (a linked folder outside is not listed, a linked folder inside not
   *   listed twice), and a result that still leads out is dropped (insideWorkspace, given).
   * - Nothing found: `No files match "<pattern>"`, with ` in <folder>` when a folder was given. More than GLOB_LIMIT:
   *   the first GLOB_LIMIT, then a last line `(<N> more files not shown; use a narrower pattern or path)`.
   */
  async execute({ pattern, path: folder = '.' }, ctx) {
    // #region chapter 4: globTool.execute
    // Write it from the contract above. Step by step instead: npm run reset -- chapter4 --guided
    throw new TodoError(4, 'globTool.execute');
    // #endregion
  },
});
