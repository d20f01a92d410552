/**
 * Chapter 2: keeping the model's paths inside the workspace.
 *
 * The model chooses every path a tool touches. A path like `../../.ssh/id_rsa`, `/etc/passwd`, or a symlink that
 * points out of the project must be refused before any file is opened.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';

/** A path the model asked for that leads outside the workspace. */
export class PathOutsideWorkspaceError extends Error {
  override name = 'PathOutsideWorkspaceError';
}

/** True when `child` is `parent` itself or lies below it. Both must be absolute and normalised. */
export function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The absolute path for `requested` (relative to `root`, or absolute), after checking that it stays inside
 * `root`, following symlinks. The file need not exist: for a new file, its nearest existing ancestor is checked.
 * Throws PathOutsideWorkspaceError otherwise.
 */
export async function resolveInWorkspace(root: string, requested: string): Promise<string> {
  // #region chapter 2: resolveInWorkspace
  // 1. Resolve `requested` against `root` with path.resolve (this also handles absolute paths and `..`).
  // 2. If the result is not inside root (use isInside), throw PathOutsideWorkspaceError naming the path.
  // 3. Symlinks: find the nearest part of the path that exists (walk up with path.dirname until realpath works),
  //    take its realpath, and check that it is inside realpath(root). Throw the same error if not.
  // 4. Return the resolved absolute path (not the realpath: error messages should show the path the model used).
  const absolute = path.resolve(root, requested);
  const refuse = () =>
    new PathOutsideWorkspaceError(`"${requested}" is outside the workspace; use a path inside ${root}`);
  if (!isInside(path.resolve(root), absolute)) throw refuse();
  const realRoot = await realpath(root);
  let existing = absolute;
  for (;;) {
    try {
      const real = await realpath(existing);
      if (!isInside(realRoot, real)) throw refuse();
      return absolute;
    } catch (error) {
      if (error instanceof PathOutsideWorkspaceError) throw error;
      const parent = path.dirname(existing);
      if (parent === existing) throw refuse();
      existing = parent;
    }
  }
  // #endregion
}

/** `absolute` written relative to `root`, with forward slashes, for messages the model reads. */
export function displayPath(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join('/') || '.';
}
