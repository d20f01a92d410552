/**
 * Chapter 14: the saved sessions of chapter 12, as an editor asks about them (session/list, session/delete).
 *
 * Chapter 12 keeps one folder per project under `~/.coding-agent/sessions/`, named by a key made from the project's
 * path (a hash included), so the folder's name does not say which project it is: the session record at the top of
 * each file does. This file finds the folders and the projects they belong to, and answers whether another process is
 * writing a session (its lock). It never builds a path from what a client sent: the server checks a session id before
 * it looks for `<id>.jsonl` in these folders.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { KIT_DIR, sessionsDir, SessionStore, type SessionSummary } from '../session/store.js';

/** What a session id may be: letters, digits, "-" and "_" (chapter 12's ids; no "/", no "."). */
export const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The saved sessions the server lists and deletes. */
export interface SavedSessions {
  /** The project folders that hold session files (absolute paths, under one root). */
  folders(): string[];
  /** The working folders that have saved sessions, as their files name them. */
  projects(): string[];
  /** The sessions of the project in `cwd`, changed last first (chapter 12's SessionStore.list). */
  list(cwd: string): SessionSummary[];
}

/** The saved sessions under `home` (the person's home folder; tests give a temporary one). */
export function savedSessions(home: string): SavedSessions {
  const root = path.join(home, KIT_DIR, 'sessions');
  const folders = () => {
    if (!existsSync(root)) return [];
    return readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => path.join(root, entry.name))
      .sort();
  };
  return {
    folders,
    projects() {
      const found = new Set<string>();
      for (const folder of folders()) {
        const cwd = projectOf(folder);
        // Only a folder that is where chapter 12 keeps that project's sessions: a file that claims another project
        // does not make its folder that project's.
        if (cwd !== undefined && sessionsDir(home, cwd) === folder) found.add(cwd);
      }
      return [...found].sort();
    },
    list: (cwd) => new SessionStore({ home, cwd }).list(),
  };
}

/** The working folder the first readable session file of `folder` names, or undefined. */
function projectOf(folder: string): string | undefined {
  for (const name of readdirSync(folder)
    .filter((one) => one.endsWith('.jsonl'))
    .sort()) {
    try {
      const first = JSON.parse(readFileSync(path.join(folder, name), 'utf8').split('\n', 1)[0]!) as {
        type?: unknown;
        cwd?: unknown;
      };
      if (first.type === 'session' && typeof first.cwd === 'string' && path.isAbsolute(first.cwd)) return first.cwd;
    } catch {
      // a damaged file says nothing about its folder: try the next
    }
  }
  return undefined;
}

/** The pid of another live process that holds the lock of session file `file` (chapter 12's `<file>.lock`), if any. */
export function lockHolder(file: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(`${file}.lock`, 'utf8'));
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}
