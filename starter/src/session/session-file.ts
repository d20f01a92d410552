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
 * The records of a session file's text, in order, and the warnings. Blank lines (spaces only too) are skipped. Only
 * the last line that is not blank may be torn (the process was killed while writing it): when it does not parse it
 * is skipped, with the warning `<file>:<n>: the last line is incomplete (the process stopped while writing it);
 * skipped`. Any other line that does not parse throws a SessionFileError whose reason says `not valid JSON`; a line
 * that parses but is not an object with a string `type` (a number, null) throws one too, even at the end. Lines
 * count from 1, and every message names the file and the line as `<file>:<n>`. An empty text is no records.
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
   * Opens `file` for appending, never truncating it (creating it and its folder), after taking the lock
   * `<file>.lock`: one writer per session. The sessions hold everything the model read, so the file and its lock
   * are left PRIVATE_FILE and the folder PRIVATE_FOLDER, whatever they were before (a resumed session may be 0644 in
   * a 0755 folder, and a mode given when creating applies only to what is created).
   *
   * - A lock whose process is alive: a SessionLockedError that names the session file, that process's pid, and the
   *   lock file to remove if that process is gone.
   * - A lock left by a process that is gone, or holding no pid at all (0, garbage), is stale: it is taken over.
   * - Secrets shorter than 8 characters are ignored (they would scrub ordinary words).
   */
  static open(file: string, secrets: readonly string[] = []): SessionWriter {
    // #region chapter 12: SessionWriter.open
    // Write it from the contract above. Step by step instead: npm run reset -- chapter12 --guided
    throw new TodoError(12, 'SessionWriter.open');
    // #endregion
  }

  /**
   * Appends one record as one line, in one write, so that a crash tears at most this line: the record as JSON, with
   * every secret replaced by REDACTED, then "\n". A secret is looked for as it appears inside a JSON string (a
   * quote or a backslash in it is escaped there), so that no API key ever reaches the file.
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
