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
 *
 * One file's name, reader and writer are in session-file.ts (exported from here too); this file is the store that
 * finds, lists, opens and forks the sessions of a project.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
import { SessionFileError, SessionWriter, parseSessionFile, sessionsDir } from './session-file.js';

export * from './session-file.js';

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
   * The sessions of this project (the `.jsonl` files of its folder; none yet, or no folder: an empty list), as
   * SessionSummary values, the one changed last first (equal times: by id). The title is the first message when it
   * is the person's, on one line, trimmed and clipped to 60 characters; none otherwise. A file that cannot be read
   * is listed with its problem (the error's text, which names the file and line), never left out.
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
   * there: the original and its file are not touched, and the copy's messages are its own. Its file holds its
   * session record (which says where it was forked from) and one record per message; its usage starts from zero:
   * it is what the fork spends.
   *
   * Refused, with an Error and no file made: a number outside the session's range, the message giving it as
   * `1 to <n>`; and a cut that would `split` a tool call from its result, the message giving every problem
   * historyProblems (given) finds, joined by `; `.
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
