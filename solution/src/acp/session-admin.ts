/**
 * Chapter 14: the sessions an ACP server keeps, and the client's session admin: list, close and delete.
 *
 * SessionAdmin holds the open sessions and the prompts being answered for them, so a session can be closed after
 * its run has ended; it answers session/list, session/close and session/delete (the saved sessions of chapter 12).
 * AcpServer (server.ts) extends it with everything else a client asks.
 */
import * as acp from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { lockHolder, SESSION_ID, type SavedSessions } from './saved-sessions.js';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { isAbsolutePath, type AcpServerOptions, type LiveSession } from './session-types.js';

/** The open sessions of one connection, and the session/list, session/close and session/delete methods. */
export class SessionAdmin {
  readonly sessions = new Map<string, LiveSession>();
  /** The prompts being answered, by session id (createAcpAgent adds each one), so a session can be closed after its run. */
  private readonly inflight = new Map<string, Set<Promise<unknown>>>();
  private closing: Promise<void> | undefined;

  constructor(readonly options: AcpServerOptions) {}

  /** The session `sessionId`, or a -32002 error that names it. */
  session(sessionId: string): LiveSession {
    const session = this.sessions.get(sessionId);
    if (!session)
      throw new RequestError(
        -32002,
        `unknown session ${sessionId}: open one with session/new (or session/load) first`,
        { sessionId },
      );
    return session;
  }

  /** The saved sessions, or methodNotFound for `method` when the server was given none. */
  private saved(method: string): SavedSessions {
    if (!this.options.sessions) throw RequestError.methodNotFound(method);
    return this.options.sessions;
  }

  /**
   * session/list: the saved sessions (chapter 12's SavedSessions, given as `saved`) of the folder `cwd`, or of every
   * project folder when there is none, each with its id, its folder, its title (null when it has none) and when it
   * changed, in the order the saved sessions give them (the one changed last first). A damaged file is left out; a
   * folder without any gives [].
   *
   * - One page, never a next cursor: so a cursor can only be one this server never gave, and it is refused as
   *   invalid params (-32602) naming it. A relative folder is invalid params too, as in newSession.
   */
  listSessions(params: acp.ListSessionsRequest): acp.ListSessionsResponse {
    const saved = this.saved(acp.methods.agent.session.list);
    // #region chapter 14: AcpServer.listSessions
    // 1. This server answers in one page, so a cursor can only be one it never gave: invalidParams naming it. A cwd
    //    that is not absolute: invalidParams, as in newSession.
    // 2. The folders: [params.cwd] when there is one, else saved.projects() (given).
    // 3. For each folder, each summary of saved.list(folder) that has no problem (a damaged file cannot be opened):
    //    { sessionId: its id, cwd: the folder, title: its title or null when it is '', updatedAt }.
    // 4. Return { sessions } in that order.
    if (params.cursor != null)
      throw RequestError.invalidParams(
        undefined,
        `unknown cursor ${JSON.stringify(params.cursor)}: this agent lists every session in one page`,
      );
    if (params.cwd != null && !isAbsolutePath(params.cwd))
      throw RequestError.invalidParams(undefined, `cwd must be an absolute path, not ${JSON.stringify(params.cwd)}`);
    const folders = params.cwd != null ? [params.cwd] : saved.projects();
    const sessions = folders.flatMap((cwd) =>
      saved
        .list(cwd)
        .filter((summary) => !summary.problem)
        .map((summary) => ({ sessionId: summary.id, cwd, title: summary.title || null, updatedAt: summary.updatedAt })),
    );
    return { sessions };
    // #endregion
  }

  /**
   * session/close: ends an open session and answers {}: its running prompt is cancelled and waited for, and it is
   * closed once and saved (stopSession, given). It is forgotten first, so a prompt for it is refused from that
   * moment on. An unknown one is the -32002 error this.session gives (the SDK's client takes it as "already closed").
   */
  async closeSession(params: acp.CloseSessionRequest): Promise<acp.CloseSessionResponse> {
    // #region chapter 14: AcpServer.closeSession
    // 1. The session (this.session: an unknown id throws -32002).
    // 2. Forget it first (a prompt for it is refused from now on), then await this.stopSession(it, why) (given).
    // 3. Return {}.
    const session = this.session(params.sessionId);
    this.sessions.delete(session.id);
    await this.stopSession(session, 'the client closed the session');
    return {};
    // #endregion
  }

  /**
   * session/delete: removes a saved session from the disk and answers {}.
   *
   * - The id comes from the client and becomes a file name, so it is checked before anything is made of it or any
   *   file looked at: anything but a string SESSION_ID (given) accepts is invalid params (-32602) naming it ("../x",
   *   "a/b" and "" are no ids, nor is a number, even one that reads as a saved id once made text).
   * - Only `<id>.jsonl` in a folder of the saved ones is removed; when there is none, a -32002 error names the
   *   session.
   * - A session opened on this connection is forgotten and stopped first (stopSession), so it is saved, closed and
   *   unlocked before it goes.
   * - One another live process is writing (lockHolder, given, knows which) is refused as an invalid request, and
   *   stays.
   */
  async deleteSession(params: acp.DeleteSessionRequest): Promise<acp.DeleteSessionResponse> {
    const saved = this.saved(acp.methods.agent.session.delete);
    // #region chapter 14: AcpServer.deleteSession
    // 1. An id that does not match SESSION_ID (given) → RequestError.invalidParams naming it: never make a path of
    //    it ("../x", "a/b" and "" are not ids).
    // 2. Its file: the first `<id>.jsonl` (path.join(folder, ...)) that exists, over saved.folders(). None: throw
    //    new RequestError(-32002, message naming the session, { sessionId }).
    // 3. Open on this connection: forget it and await this.stopSession(it, why), so its file is closed and unlocked.
    // 4. lockHolder(file) (given) gives a pid: another process is writing it → RequestError.invalidRequest saying so
    //    (close it there first). Else remove the file (rmSync) and return {}.
    const id = params.sessionId;
    if (typeof id !== 'string' || !SESSION_ID.test(id))
      throw RequestError.invalidParams(
        undefined,
        `${JSON.stringify(id)} is not a session id (letters, digits, "-" and "_" only)`,
      );
    const file = saved
      .folders()
      .map((folder) => path.join(folder, `${id}.jsonl`))
      .find((candidate) => existsSync(candidate));
    if (!file) throw new RequestError(-32002, `no saved session ${id}`, { sessionId: id });
    const open = this.sessions.get(id);
    if (open) {
      this.sessions.delete(id);
      await this.stopSession(open, 'the client deleted the session');
    }
    const pid = lockHolder(file);
    if (pid !== undefined)
      throw RequestError.invalidRequest(
        undefined,
        `session ${id} is being written by another process (pid ${pid}): close it there first`,
      );
    rmSync(file);
    return {};
    // #endregion
  }

  /** Remembers a prompt being answered for `sessionId` until it settles (createAcpAgent calls this). */
  track<T>(sessionId: string, work: Promise<T>): Promise<T> {
    const set = this.inflight.get(sessionId) ?? new Set();
    this.inflight.set(sessionId, set);
    set.add(work);
    const forget = () => void set.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** Cancels the session's running prompt (with `why`), waits for its run to end, then closes the handle. */
  async stopSession(session: LiveSession, why: string): Promise<void> {
    session.running?.abort(new Error(why));
    await Promise.allSettled([...(this.inflight.get(session.id) ?? [])]);
    await session.handle.close().catch(() => {});
  }

  /** Ends every session: running prompts cancelled and waited for, then each closed (saved). Safe to call twice. */
  closeAll(): Promise<void> {
    this.closing ??= (async () => {
      const sessions = [...this.sessions.values()];
      this.sessions.clear();
      await Promise.all(sessions.map((session) => this.stopSession(session, 'the client disconnected')));
    })();
    return this.closing;
  }
}
