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
import { TodoError } from '../todo.js';
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter12 --guided
    throw new TodoError(12, 'SessionStore.list');
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter12 --guided
    throw new TodoError(12, 'SessionStore.fork');
    // #endregion
  }
}
