/**
 * Chapter 12: one session file: where it lives, how it is read, and how it is written.
 *
 * A session is `$HOME/.coding-agent/sessions/<project key>/<id>.jsonl` (projectKey, sessionsDir), one JSON record a
 * line. parseSessionFile reads it back, forgiving only a torn last line. A SessionWriter is the one writer of a file:
 * it holds `<id>.jsonl.lock` while it writes, scrubs each line of the secrets it was given, and keeps the file 0600
 * in folders of 0700. The store (store.ts) finds, lists, opens and forks sessions with these.
 */
import { TodoError } from '../todo.js';
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { type SessionRecord } from './session.js';

/** The folder in the home folder that holds the kit's sessions. */
export const KIT_DIR = '.coding-agent';

/** A session file's mode: its owner reads and writes it, nobody else (as Claude Code writes its transcripts). */
export const PRIVATE_FILE = 0o600;

/** The mode of the folders that hold session files: only their owner may list or enter them. */
export const PRIVATE_FOLDER = 0o700;

/** What replaces a secret in a session file. */
export const REDACTED = '[REDACTED]';

/** How much of the path a project key keeps before its hash: a folder name may be 255 bytes at most. */
export const PROJECT_KEY_CHARS = 200;

/**
 * The working folder as a folder name: "/home/me/app" -> "-home-me-app-" and 12 hex digits of its hash. The readable
 * part keeps the first PROJECT_KEY_CHARS characters of a longer path (the hash still tells them apart).
 */
export function projectKey(cwd: string): string {
  const resolved = path.resolve(cwd);
  // The hash keeps apart two folders whose names differ only in punctuation (my.app, my-app).
  const readable = resolved.replace(/[^A-Za-z0-9]/g, '-').slice(0, PROJECT_KEY_CHARS);
  return `${readable}-${createHash('sha256').update(resolved).digest('hex').slice(0, 12)}`;
}

/** The folder holding the sessions of the project in `cwd`. */
export function sessionsDir(home: string, cwd: string): string {
  return path.join(home, KIT_DIR, 'sessions', projectKey(cwd));
}

/** A session file that cannot be read as it is: names the file and, for a bad line, its number (from 1). */
export class SessionFileError extends Error {
  override name = 'SessionFileError';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    reason: string,
  ) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${reason}`);
  }
}

/** Another live process is writing this session. */
export class SessionLockedError extends Error {
  override name = 'SessionLockedError';
}

/**
 * The records of a session file's text. Empty lines are skipped. A last line that does not parse (the process was
 * killed while writing it) is skipped with a warning that names the file and line; any other line that does not
 * parse, or that is not an object with a string `type`, throws a SessionFileError naming the file and the line.
 */
export function parseSessionFile(text: string, file: string): { records: SessionRecord[]; warnings: string[] } {
  // #region chapter 12: parseSessionFile
  // Write it from the contract above. Step by step instead: npm run reset -- chapter12 --guided
  throw new TodoError(12, 'parseSessionFile');
  // #endregion
}

/** Whether a process with this pid is alive (EPERM: alive, but someone else's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Appends records to one session file, holding its lock until closed. */
export class SessionWriter {
  private constructor(
    readonly file: string,
    readonly lockFile: string,
    private readonly fd: number,
    private readonly secrets: readonly string[],
  ) {}

  /**
   * Opens `file` for appending (creating it and its folder), after taking the lock `<file>.lock`; the file is left
   * 0600 and its folder 0700 (PRIVATE_FILE, PRIVATE_FOLDER), whatever they were. Throws a
   * SessionLockedError when a live process holds the lock; a lock left by a process that is gone is taken over.
   * Secrets shorter than 8 characters are ignored (they would scrub ordinary words).
   */
  static open(file: string, secrets: readonly string[] = []): SessionWriter {
    // #region chapter 12: SessionWriter.open
    // Write it from the contract above. Step by step instead: npm run reset -- chapter12 --guided
    throw new TodoError(12, 'SessionWriter.open');
    // #endregion
  }

  /**
   * Appends one record as one line, in one write: the record as JSON, with every secret replaced by REDACTED
   * (as it appears inside a JSON string), then "\n".
   */
  append(record: SessionRecord): void {
    // #region chapter 12: SessionWriter.append
    // Write it from the contract above. Step by step instead: npm run reset -- chapter12 --guided
    throw new TodoError(12, 'SessionWriter.append');
    // #endregion
  }

  /** Closes the file and releases the lock. */
  close(): void {
    closeSync(this.fd);
    rmSync(this.lockFile, { force: true });
  }
}
