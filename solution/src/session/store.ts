/**
 * Chapter 12: sessions on disk, as JSON Lines.
 *
 * Where: `$HOME/.coding-agent/sessions/<project key>/<id>.jsonl`, the project key being the working folder's
 * absolute path with every character other than a letter or a digit turned into "-" (as Claude Code names its
 * project folders), then "-" and the start of a hash of the path: `my.app` and `my-app` read the same, and without
 * the hash they would share their sessions (--continue in one would resume the other's). One record per line, appended as the run goes (session.ts says which).
 *
 * Why JSON Lines: appending one line is one write at the end of the file, so a process killed in the middle loses
 * at most the line it was writing; everything before it is whole. Loading therefore forgives exactly one thing, a
 * torn LAST line (skipped, with a warning), and nothing else: a line in the middle that does not parse means the
 * file was damaged some other way, and loading it anyway would silently drop part of a conversation.
 *
 * One writer at a time: opening a session for writing takes `<id>.jsonl.lock` (created exclusively, holding the
 * writer's pid); a second writer is refused while that process lives. No secret reaches the file: the store is given
 * the secrets it must never write (the API keys), and each line is scrubbed before it is written. And nobody else
 * reads it: a session holds every file the model read, so it is written 0600 in folders of 0700, and an existing
 * one is tightened when it is opened again.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { historyProblems, type Message } from '../messages.js';
import { noUsage } from '../agent-events.js';
import { closeOpenCalls } from '../client-tools.js';
import {
  INTERRUPTED_RESULT,
  newSession,
  sessionFromRecords,
  SessionRecorder,
  type RecorderOptions,
  type Session,
  type SessionRecord,
} from './session.js';
import { errorText } from '../safe-call.js';

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
   * Opens `file` for appending (creating it and its folder), after taking the lock `<file>.lock`; the file is left
   * 0600 and its folder 0700 (PRIVATE_FILE, PRIVATE_FOLDER), whatever they were. Throws a
   * SessionLockedError when a live process holds the lock; a lock left by a process that is gone is taken over.
   * Secrets shorter than 8 characters are ignored (they would scrub ordinary words).
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
   * Appends one record as one line, in one write: the record as JSON, with every secret replaced by REDACTED
   * (as it appears inside a JSON string), then "\n".
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

/** One line of `list`. */
export interface SessionSummary {
  id: string;
  createdAt: string;
  updatedAt: string;
  messages: number;
  /** The first request, clipped. */
  title: string;
  status: Session['status'];
  /** Set when the file could not be read (the session is still listed: nothing is silently dropped). */
  problem?: string;
}

/** A session open for writing: the session, its recorder, and close(). */
export interface OpenSession {
  session: Session;
  recorder: SessionRecorder;
  writer: SessionWriter;
  warnings: string[];
  close(): void;
}

export interface StoreOptions extends RecorderOptions {
  /** The home folder (tests pass a temp folder; the CLI passes os.homedir()). */
  home: string;
  /** The working folder: sessions are kept per project. */
  cwd: string;
  /** Strings that must never reach a session file (API keys). */
  secrets?: readonly string[];
  /** Makes session ids (default: random UUIDs). */
  newId?: () => string;
}

export class SessionStore {
  readonly dir: string;
  private readonly options: StoreOptions;

  constructor(options: StoreOptions) {
    this.options = options;
    this.dir = sessionsDir(options.home, options.cwd);
  }

  /** The file of session `id`. Refuses an id that is not a plain name (it would reach outside the folder). */
  file(id: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(id))
      throw new Error(`"${id}" is not a session id (letters, digits, "-" and "_" only)`);
    return path.join(this.dir, `${id}.jsonl`);
  }

  private now(): string {
    return (this.options.now ?? (() => new Date()))().toISOString();
  }

  /** Reads session `id` (not for writing). Throws SessionFileError for a damaged file, and when there is none. */
  load(id: string): { session: Session; warnings: string[] } {
    const file = this.file(id);
    if (!existsSync(file))
      throw new SessionFileError(
        file,
        undefined,
        `no session ${id} in this project (npm run agent -- --list shows them)`,
      );
    const { records, warnings } = parseSessionFile(readFileSync(file, 'utf8'), file);
    try {
      return { session: sessionFromRecords(records, this.options.prices), warnings };
    } catch (error) {
      if (error instanceof SessionFileError) throw error;
      throw new SessionFileError(file, undefined, errorText(error));
    }
  }

  private openWith(
    session: Session,
    header?: SessionRecord,
    messages: readonly Message[] = [],
    warnings: string[] = [],
  ): OpenSession {
    const writer = SessionWriter.open(this.file(session.id), this.options.secrets);
    if (header) writer.append(header);
    for (const message of messages) writer.append({ type: 'message', at: header!.at, message });
    const recorder = new SessionRecorder(session, (record) => writer.append(record), this.options);
    return {
      session,
      recorder,
      writer,
      warnings,
      close: () => {
        recorder.close();
        writer.close();
      },
    };
  }

  /** A new session, its file started with the session record. */
  create(model?: string): OpenSession {
    const at = this.now();
    const session = newSession({
      id: (this.options.newId ?? randomUUID)(),
      cwd: path.resolve(this.options.cwd),
      now: at,
      model,
    });
    return this.openWith(session, {
      type: 'session',
      at,
      version: 1,
      id: session.id,
      cwd: session.cwd,
      ...(model ? { model } : {}),
    });
  }

  /**
   * Session `id`, loaded and open for writing (its lock taken): the next run continues it. A session whose process
   * died mid-run is repaired first, in the file too: its open calls get an error result (INTERRUPTED_RESULT) and the
   * run is recorded as cancelled, so the history is valid.
   */
  resume(id: string): OpenSession {
    const { session, warnings } = this.load(id);
    const open = this.openWith(session, undefined, [], warnings);
    if (session.status === 'running') {
      closeOpenCalls(session.messages, INTERRUPTED_RESULT);
      open.recorder.record({
        type: 'done',
        reason: 'cancelled',
        turns: 0,
        text: '',
        usage: noUsage(),
        message: 'the process stopped during this run',
      });
    }
    return open;
  }

  /** The id of the session of this project changed last, or undefined when there is none. */
  latest(): string | undefined {
    return this.list().find((summary) => !summary.problem)?.id;
  }

  /**
   * The sessions of this project, the one changed last first (ties: by id). A file that cannot be read is listed
   * with its problem, never left out.
   */
  list(): SessionSummary[] {
    // #region chapter 12: SessionStore.list
    // 1. No folder yet: []. Otherwise every file of this.dir that ends in ".jsonl"; its id is the name without it.
    // 2. For each, this.load(id): id, createdAt, updatedAt, the number of messages, status, and the title: the first
    //    message's text when it is a user message, on one line, clipped to 60 characters ('' when there is none).
    //    If loading throws, list it anyway: id, empty times, 0 messages, status idle, title '', problem = the error's
    //    message.
    // 3. Sort by updatedAt, newest first; equal times by id.
    if (!existsSync(this.dir)) return [];
    const ids = readdirSync(this.dir)
      .filter((name) => name.endsWith('.jsonl'))
      .map((name) => name.slice(0, -'.jsonl'.length));
    const summaries = ids.map((id): SessionSummary => {
      try {
        const { session } = this.load(id);
        const first = session.messages[0];
        const title = first?.role === 'user' ? first.content.replace(/\s+/g, ' ').trim().slice(0, 60) : '';
        return {
          id,
          createdAt: session.createdAt,
          updatedAt: session.updatedAt,
          messages: session.messages.length,
          title,
          status: session.status,
        };
      } catch (error) {
        return {
          id,
          createdAt: '',
          updatedAt: '',
          messages: 0,
          title: '',
          status: 'idle',
          problem: errorText(error),
        };
      }
    });
    return summaries.sort((a, b) =>
      a.updatedAt === b.updatedAt ? (a.id < b.id ? -1 : 1) : a.updatedAt < b.updatedAt ? 1 : -1,
    );
    // #endregion
  }

  /**
   * A new session that starts as a copy of the first `messages` messages of session `id`, and goes its own way from
   * there (the original is not touched). Refuses a cut that would leave a call without its result, or one outside
   * 1..length. The copy's usage starts from zero: it is what the fork spends.
   */
  fork(id: string, messages: number): Session {
    // #region chapter 12: SessionStore.fork
    // 1. Load session `id`. `messages` must be a whole number from 1 to its number of messages: else throw an Error
    //    that gives the range.
    // 2. kept = a deep copy (structuredClone) of its first `messages` messages. If historyProblems(kept) finds
    //    anything (the cut leaves a call without its result), throw an Error that says so, with the problems.
    // 3. Make the new session (newSession, a new id, the source's cwd and model, forkedFrom { id, messages }) and
    //    write its file through this.openWith(session, header, kept): the session record, then one message record per
    //    kept message. Close the writer, and return the session holding the kept messages.
    const { session: source } = this.load(id);
    if (!Number.isInteger(messages) || messages < 1 || messages > source.messages.length) {
      throw new Error(`a fork of ${id} keeps 1 to ${source.messages.length} messages, not ${messages}`);
    }
    const kept = structuredClone(source.messages.slice(0, messages));
    const problems = historyProblems(kept);
    if (problems.length > 0)
      throw new Error(
        `cutting ${id} after ${messages} messages would split a tool call from its result: ${problems.join('; ')}`,
      );
    const at = this.now();
    const forkedFrom = { id, messages };
    const session = newSession({
      id: (this.options.newId ?? randomUUID)(),
      cwd: source.cwd,
      now: at,
      model: source.model,
    });
    session.forkedFrom = forkedFrom;
    const header: SessionRecord = {
      type: 'session',
      at,
      version: 1,
      id: session.id,
      cwd: session.cwd,
      ...(source.model ? { model: source.model } : {}),
      forkedFrom,
    };
    const open = this.openWith(session, header, kept);
    session.messages.push(...kept);
    open.writer.close();
    return session;
    // #endregion
  }
}
