/**
 * Chapter 2: keeping the model's paths inside the workspace.
 *
 * The model chooses every path a tool touches. A path like `../../.ssh/id_rsa`, `/etc/passwd`, or a symlink that
 * points out of the project must be refused before any file is opened.
 */
import { TodoError } from './todo.js';
import { lstat, readlink } from 'node:fs/promises';
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

/** Symlinks followed on one path before it counts as a loop (Linux allows 40). */
const MAX_LINK_HOPS = 40;

/**
 * Where the absolute path `absolute` really leads: every symlink on it is followed, one part at a time, including
 * a link whose target does not exist yet (it leads where its target would be created). The parts that do not exist
 * are kept as written. Given, not a stub: this is realpath for paths that may not exist yet, and its corners (links
 * inside link targets, `..` after a link, loops) are not the lesson. Throws for a NUL character or a symlink loop.
 */
export async function realLocation(absolute: string): Promise<string> {
  if (absolute.includes('\0')) throw new Error(`the path ${JSON.stringify(absolute)} contains a NUL character`);
  const parts = absolute.split(path.sep).filter(Boolean);
  let real = path.parse(absolute).root;
  let hops = 0;
  let exists = true;
  while (parts.length > 0) {
    const part = parts.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      real = path.dirname(real);
      continue;
    }
    const next = path.join(real, part);
    const info = exists ? await lstat(next).catch((error: NodeJS.ErrnoException) => missing(error)) : undefined;
    if (info?.isSymbolicLink()) {
      if (++hops > MAX_LINK_HOPS) throw new Error(`${absolute} goes through a loop of symlinks`);
      const target = await readlink(next);
      parts.unshift(...target.split(path.sep).filter(Boolean));
      if (path.isAbsolute(target)) real = path.parse(target).root;
      continue;
    }
    if (!info) exists = false;
    real = next;
  }
  return real;
}

/** lstat's failure for a part that does not exist (ENOENT, or ENOTDIR below a file); anything else is rethrown. */
function missing(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
  throw error;
}

/**
 * The absolute path for `requested` (relative to `root`, or absolute; `..` that climbs back inside is fine), after
 * checking that it stays inside `root`. The file need not exist: a tool may be about to write it. Otherwise throws
 * PathOutsideWorkspaceError, whose message names the path as requested. The model picks every path, so this is
 * the one door every tool goes through.
 *
 * - Inside is a question of path segments (isInside, given): a sibling folder whose name starts like the root is
 *   outside.
 * - The path is checked as written and where it really leads: a path that leaves the root by name is refused even
 *   if it comes back to it, and every symlink on it is followed (realLocation, given), a dangling one too, since a
 *   write would create its target. What it leads to is compared with where the root really is (the root itself
 *   may be reached through a symlink). realLocation's own errors (a NUL character, a loop of links) pass through.
 * - It returns the path as resolved, not where it leads: messages show the path the model used.
 */
export async function resolveInWorkspace(root: string, requested: string): Promise<string> {
  // #region chapter 2: resolveInWorkspace
  // Write it from the contract above. Step by step instead: npm run reset -- chapter2 --guided
  throw new TodoError(2, 'resolveInWorkspace');
  // #endregion
}

/** `absolute` written relative to `root`, with forward slashes, for messages the model reads. */
export function displayPath(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join('/') || '.';
}
