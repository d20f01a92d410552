/**
 * Chapter 8, given: paths that are asked about whatever the rules say.
 *
 * Writing into `.git`, `.claude`, an editor's or a tool's configuration changes what runs next time, so such a
 * write is always a question (isProtected). The commands that write the paths they are given are WRITERS, and
 * resolveArg makes a path as a shell command names it absolute. safetyConcern (command.ts) uses them.
 */
import path from 'node:path';
import { knownVariables } from './bash-syntax.js';

/** Where the checks below look: the workspace and the home folder (for `~`). */
export interface Workspace {
  root: string;
  home: string;
}

/** Folders whose contents change what runs next time: hooks, settings, git's config and hooks, and the files an
 *  editor or a tool runs when the folder is next opened (tasks, dev containers, git hooks managers). */
export const PROTECTED_FOLDERS: ReadonlySet<string> = new Set([
  '.git',
  '.claude',
  '.vscode',
  '.idea',
  '.husky',
  '.devcontainer',
]);
/** Files that change what runs or what the model is told next time. */
export const PROTECTED_FILES: ReadonlySet<string> = new Set([
  '.mcp.json',
  'CLAUDE.md',
  'CLAUDE.local.md',
  'AGENTS.md',
  '.gitconfig',
  '.gitmodules',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.envrc',
  '.npmrc',
]);
const lower = (names: ReadonlySet<string>) => new Set([...names].map((name) => name.toLowerCase()));
const PROTECTED_FOLDERS_LOWER = lower(PROTECTED_FOLDERS);
const PROTECTED_FILES_LOWER = lower(PROTECTED_FILES);

/**
 * True when writing `target` changes what runs next time: a path in a PROTECTED_FOLDERS folder, or a
 * PROTECTED_FILES file. Names are compared without case: on a case-insensitive file system `.GIT/config` is
 * `.git/config`.
 */
export function isProtected(target: string): boolean {
  const segments = target.toLowerCase().split(/[\\/]/);
  return (
    segments.some((segment) => PROTECTED_FOLDERS_LOWER.has(segment)) || PROTECTED_FILES_LOWER.has(segments.at(-1) ?? '')
  );
}

/** A path as a shell command names it, made absolute: a leading `~` (or `$HOME`: knownVariables) is the home
 *  folder, the rest is against the root. */
export function resolveArg(written: string, ws: Workspace): string {
  const arg = knownVariables(written);
  return arg === '~' || arg.startsWith('~/') ? path.join(ws.home, arg.slice(1)) : path.resolve(ws.root, arg);
}

/** Commands that write to, move or delete the paths they are given. */
export const WRITERS: ReadonlySet<string> = new Set([
  'rm',
  'mv',
  'cp',
  'tee',
  'touch',
  'chmod',
  'chown',
  'ln',
  'truncate',
  'rmdir',
  'mkdir',
  'dd',
  'install',
  'rsync',
]);
