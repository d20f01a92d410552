/**
 * Chapter 12: one session file: where it lives, how it is read, and how it is written.
 *
 * A session is `$HOME/.coding-agent/sessions/<project key>/<id>.jsonl` (projectKey, sessionsDir), one JSON record a
 * line. parseSessionFile reads it back, forgiving only a torn last line. A SessionWriter is the one writer of a file:
 * it holds `<id>.jsonl.lock` while it writes, scrubs each line of the secrets it was given, and keeps the file 0600
 * in folders of 0700. The store (store.ts) finds, lists, opens and forks sessions with these.
 */
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
  // 1. Split the text on "\n". Find the last line that is not empty (after trimming): only it may be torn.
  // 2. For each non-empty line, JSON.parse it. If that fails: on the last non-empty line, push a warning
  //    "<file>:<n>: the last line is incomplete (the process stopped while writing it); skipped" and go on;
  //    anywhere else throw new SessionFileError(file, n, 'not valid JSON ...'). Line numbers count from 1.
  // 3. A parsed value that is not an object with a string `type` is a SessionFileError too (wherever it is).
  // 4. Return the records in order, and the warnings.
  const lines = text.split('\n');
  let last = lines.length - 1;
  while (last >= 0 && lines[last]!.trim() === '') last--;
  const records: SessionRecord[] = [];
  const warnings: string[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (index === last) {
        warnings.push(
          `${file}:${index + 1}: the last line is incomplete (the process stopped while writing it); skipped`,
        );
        return;
      }
      throw new SessionFileError(
        file,
        index + 1,
        'not valid JSON: the file is damaged (only a torn last line can be skipped)',
      );
    }
    if (typeof (value as { type?: unknown } | null)?.type !== 'string') {
      throw new SessionFileError(file, index + 1, 'not a session record (an object with a type)');
    }
    records.push(value as SessionRecord);
  });
  return { records, warnings };
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
    // 1. Make the file's folder (recursive, mode PRIVATE_FOLDER), and chmod it to PRIVATE_FOLDER too: mkdir's mode
    //    applies only to the folders it creates, and one already there may be open to others (0755). The sessions
    //    hold everything the model read. The lock is `${file}.lock`.
    // 2. Create the lock exclusively (openSync(lock, 'wx', PRIVATE_FILE)) and write process.pid into it. If it exists
    //    (EEXIST): read the pid in it; if that process is alive, throw a SessionLockedError that names the session
    //    file, the pid, and the lock file to remove if that process is gone; else remove the stale lock and try
    //    once more.
    // 3. Open the file for appending ('a', PRIVATE_FILE), then fchmodSync the descriptor to PRIVATE_FILE: open's mode
    //    applies only to a file it creates, and a session already there (resumed, repaired) may be 0644. Return a
    //    writer with the secrets of 8 characters or more.
    const folder = path.dirname(file);
    mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER });
    chmodSync(folder, PRIVATE_FOLDER);
    const lockFile = `${file}.lock`;
    const take = () => {
      const lock = openSync(lockFile, 'wx', PRIVATE_FILE);
      writeSync(lock, String(process.pid));
      closeSync(lock);
    };
    try {
      take();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(lockFile, 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
        throw new SessionLockedError(
          `${file} is being written by another run (pid ${pid}); close that one, or remove ${lockFile} if that process is gone`,
        );
      }
      rmSync(lockFile);
      take();
    }
    const fd = openSync(file, 'a', PRIVATE_FILE);
    fchmodSync(fd, PRIVATE_FILE);
    return new SessionWriter(
      file,
      lockFile,
      fd,
      secrets.filter((secret) => secret.length >= 8),
    );
    // #endregion
  }

  /**
   * Appends one record as one line, in one write, so that a crash tears at most this line: the record as JSON, with
   * every secret replaced by REDACTED, then "\n". A secret is looked for as it appears inside a JSON string (a
   * quote or a backslash in it is escaped there), so that no API key ever reaches the file.
   */
  append(record: SessionRecord): void {
    // #region chapter 12: SessionWriter.append
    // 1. line = JSON.stringify(record).
    // 2. For each secret, replace every occurrence of it as JSON writes it inside a string
    //    (JSON.stringify(secret).slice(1, -1)) with REDACTED.
    // 3. writeSync(this.fd, line + '\n'): one write, so a crash tears at most this line.
    let line = JSON.stringify(record);
    for (const secret of this.secrets) line = line.split(JSON.stringify(secret).slice(1, -1)).join(REDACTED);
    writeSync(this.fd, `${line}\n`);
    // #endregion
  }

  /** Closes the file and releases the lock. */
  close(): void {
    closeSync(this.fd);
    rmSync(this.lockFile, { force: true });
  }
}
