/**
 * Chapter 14: the agent as an ACP server.
 *
 * An editor starts the agent as a child process and speaks JSON-RPC to it over stdin and stdout (the official SDK
 * does the framing and the method dispatch). The server keeps the sessions the client opened, each with its own
 * agent, history and mode, and for each prompt runs chapter 7's loop and forwards its events as session/update
 * notifications. It builds no agent itself: `openSession` (chapter 15's factory, or a test's) does, given the
 * folder, the client's MCP servers, the system prompt choice, and the callbacks that ask the editor. So what a
 * person meets in the editor is what the terminal does, with another face.
 *
 * The session bookkeeping and session/list, close and delete are in session-admin.ts; what the methods share (a
 * session's setup for this client, its modes and options as ACP shows them, the trust check of a raised mode, messages
 * to the client) in session-services.ts (AcpServer extends SessionServices, which extends SessionAdmin); the types it
 * is given in session-types.ts; the ACP app that wires a connection to it in app.ts.
 */

import * as acp from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../agent-events.js';
import { userMessage } from '../messages.js';
import { errorText } from '../safe-call.js';
import { BUILTIN_COMMANDS, COMMAND_NAME } from './commands.js';
import { promptImages, promptText } from './prompt.js';
import { resumeFromMeta, type ForkSessionParams } from './session-setup.js';
import { SessionSelectors } from './session-selectors.js';
import { isAbsolutePath, type Client, type LiveSession, type SessionHandle } from './session-types.js';
import { historyUpdates, sessionTitle, stopReasonOf, UpdateTranslator } from './updates.js';

export * from './session-types.js';
export * from './session-admin.js';
export * from './session-services.js';
export * from './session-selectors.js';

export class AcpServer extends SessionSelectors {
  /**
   * initialize, the first request of a connection: who the agent is and what it can do (ACP's InitializeResponse).
   *
   * - The protocol version the SDK speaks (PROTOCOL_VERSION), and agentInfo as the server was given it, `coding-agent`
   *   and `1.0.0` when it was not.
   * - The capabilities are promises the rest of the server keeps: it loads saved sessions unless it was told not to,
   *   and then resumes them too; the others are what sessionCapabilities() gives; prompts may embed context, and carry
   *   pictures only when the model reads them (AcpServerOptions says whether), never audio (promptText and
   *   promptImages refuse what was not offered); MCP servers may come over http, never SSE.
   * - No auth methods.
   * - Keeps what the client says it can do (nothing, when it says nothing): setupFor reads there which tools go
   *   through the client.
   */
  initialize(params: acp.InitializeRequest): acp.InitializeResponse {
    // #region chapter 14: AcpServer.initialize
    // 1. Keep params.clientCapabilities (or {}) in this.clientCapabilities: newSession reads fs from it.
    // 2. Return protocolVersion acp.PROTOCOL_VERSION; agentInfo { name, version } (options, defaulting to
    //    'coding-agent' and '1.0.0'); agentCapabilities: loadSession (options.loadSession, default true),
    //    promptCapabilities { image: options.imageInput === true (only a model that reads images), audio: false,
    //    embeddedContext: true }, mcpCapabilities { http: true, sse: false }, and sessionCapabilities: { resume: {} } when sessions can be loaded, with the ones
    //    this.sessionCapabilities() gives (close, and list and delete when there are saved sessions); authMethods [].
    this.clientCapabilities = params.clientCapabilities ?? {};
    const load = this.options.loadSession ?? true;
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentInfo: { name: this.options.name ?? 'coding-agent', version: this.options.version ?? '1.0.0' },
      agentCapabilities: {
        loadSession: load,
        promptCapabilities: { image: this.options.imageInput === true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: false },
        sessionCapabilities: { ...(load ? { resume: {} } : {}), ...this.sessionCapabilities() },
      },
      authMethods: [],
    };
    // #endregion
  }

  /**
   * session/new: a new session, its agent built by the factory (this server's openSession, from setupFor's setup),
   * kept with the connection's open ones, no plan calls yet. Answers with its id and what modesOf and configOptionsOf
   * say of it.
   *
   * - ACP paths are absolute: a relative folder (isAbsolutePath, given) is refused as invalid params (-32602) that
   *   name it. What setupFor refuses (a bad MCP server, a bad meta) goes to the client as it is. Either way no
   *   session is made.
   * - Every session gets a new id: newId's, when the server was given one (the tests do), else a random UUID.
   * - When resumeFromMeta finds a saved session's id in the request, that session is continued instead, as loading
   *   without replay does (loadSession), and the answer carries that id.
   */
  async newSession(params: acp.NewSessionRequest, client: Client): Promise<acp.NewSessionResponse> {
    // #region chapter 14: AcpServer.newSession
    // 1. ACP paths are absolute: a cwd that is not (isAbsolutePath, given) → throw RequestError.invalidParams naming it.
    // 2. resumeFromMeta(params._meta) gives an id: continue that session as session/resume does, and answer with its
    //    id: { sessionId: it, ...(await this.loadSession({ ...params, sessionId: it }, client, false)) }.
    // 3. Else a new id (options.newId, or randomUUID). setup = this.setupFor(id, params, client, false): it checks the
    //    MCP servers and the _meta, and may throw invalidParams; let it.
    // 4. handle = await this.options.openSession(setup); keep { id, cwd, handle, planCalls: [] } in this.sessions.
    // 5. Return { sessionId: id, modes: this.modesOf(handle), configOptions: this.configOptionsOf(handle) }.
    if (!isAbsolutePath(params.cwd))
      throw RequestError.invalidParams(undefined, `cwd must be an absolute path, not ${JSON.stringify(params.cwd)}`);
    const resume = resumeFromMeta(params._meta);
    if (resume !== undefined)
      return { sessionId: resume, ...(await this.loadSession({ ...params, sessionId: resume }, client, false)) };
    const sessionId = (this.options.newId ?? randomUUID)();
    const handle = await this.options.openSession(this.setupFor(sessionId, params, client, false));
    this.sessions.set(sessionId, { id: sessionId, cwd: params.cwd, handle, planCalls: [] });
    return { sessionId, modes: this.modesOf(handle), configOptions: this.configOptionsOf(handle) };
    // #endregion
  }

  /**
   * session/load (replay: true) and session/resume (replay: false): the saved session the client names, opened by the
   * factory from setupFor's result for a resumed session, then kept and answered as newSession does (the client
   * chose the id).
   *
   * - A server that cannot load (its options say so) refuses with RequestError.methodNotFound for the method asked;
   *   a relative folder is invalid params, as in newSession.
   * - A session already opened on this connection under that id is forgotten and stopped first (stopSession, given:
   *   its run cancelled and waited for, then closed, so it is saved whole before it is opened again).
   * - The factory's failure (a session it cannot find) becomes a -32002 RequestError whose message names the session
   *   and gives the factory's reason, with data `{ sessionId }`; setupFor's refusals go to the client as they are.
   * - With replay, the saved conversation reaches the client before the answer, as notifications of updates
   *   (historyUpdates), each one awaited, in order; a resume sends none.
   */
  async loadSession(params: acp.LoadSessionRequest, client: Client, replay: boolean): Promise<acp.LoadSessionResponse> {
    // #region chapter 14: AcpServer.loadSession
    // 1. Loading is off (options.loadSession === false): throw RequestError.methodNotFound with the method's name.
    //    A cwd that is not absolute: invalidParams, as in newSession.
    // 2. If this.sessions has the id already: forget it, and await this.stopSession(it) (given: it cancels the
    //    running prompt, waits for that run to end, then closes the handle, so the session is saved whole).
    // 3. setup = setupFor(id, params, client, true) (its invalidParams errors go to the client as they are); then
    //    handle = await openSession(setup). If openSession throws, throw
    //    new RequestError(-32002, `session <id> could not be loaded: <its message>`, { sessionId }).
    // 4. With replay: for each update of historyUpdates(handle.history, cwd), in order, await
    //    client.notify(acp.methods.client.session.update, { sessionId, update }).
    // 5. Keep the session (as newSession does) and return { modes: this.modesOf(handle), configOptions:
    //    this.configOptionsOf(handle) }.
    if (this.options.loadSession === false)
      throw RequestError.methodNotFound(replay ? acp.methods.agent.session.load : acp.methods.agent.session.resume);
    if (!isAbsolutePath(params.cwd))
      throw RequestError.invalidParams(undefined, `cwd must be an absolute path, not ${JSON.stringify(params.cwd)}`);
    const sessionId = params.sessionId;
    const open = this.sessions.get(sessionId);
    if (open) {
      this.sessions.delete(sessionId);
      await this.stopSession(open, 'the session was loaded again');
    }
    const setup = this.setupFor(sessionId, params, client, true);
    let handle: SessionHandle;
    try {
      handle = await this.options.openSession(setup);
    } catch (error) {
      throw new RequestError(-32002, `session ${sessionId} could not be loaded: ${errorText(error)}`, { sessionId });
    }
    if (replay) {
      for (const update of historyUpdates(handle.history, params.cwd))
        await client.notify(acp.methods.client.session.update, { sessionId, update });
    }
    this.sessions.set(sessionId, { id: sessionId, cwd: params.cwd, handle, planCalls: [] });
    return { modes: this.modesOf(handle), configOptions: this.configOptionsOf(handle) };
    // #endregion
  }

  /**
   * session/fork (ACP's unstable method; the capability is advertised when sessions can be loaded): a new session that
   * starts as a copy of saved session `params.sessionId`, with its history, and goes its own way from there; the
   * original is left as it was. Answers with the new session's id and what modesOf and configOptionsOf say of it.
   * The history is not sent again: the client has it from the session it forked.
   *
   * - Loading is off (options.loadSession === false): methodNotFound for session/fork. A relative cwd: invalid params
   *   that name it, as newSession says. Either way no session is made.
   * - The new id is made as newSession makes one; the factory is given setupFor's setup for it (its refusals go to the
   *   client as they are) with `forkedFrom` the source's id, and keeps the copy under the new id.
   * - A source the factory cannot fork (none saved with that id, a damaged file) is error -32002 whose message says
   *   `session <source> could not be forked` and why, with the source's id in its data; no session is kept.
   */
  async forkSession(params: ForkSessionParams, client: Client): Promise<acp.NewSessionResponse> {
    // #region chapter 14: AcpServer.forkSession
    // 1. Loading is off: throw RequestError.methodNotFound('session/fork'). A cwd that is not absolute
    //    (isAbsolutePath): invalidParams that names it.
    // 2. id = a new id (this.options.newId, else randomUUID()).
    // 3. setup = { ...this.setupFor(id, { cwd, mcpServers: params.mcpServers ?? [], _meta: params._meta }, client,
    //    true), forkedFrom: params.sessionId }; handle = await this.options.openSession(setup). If openSession throws:
    //    new RequestError(-32002, `session <source> could not be forked: <its message>`, { sessionId: source }).
    // 4. Keep { id, cwd, handle, planCalls: [] } in this.sessions under the new id, and return { sessionId: id,
    //    modes: this.modesOf(handle), configOptions: this.configOptionsOf(handle) }.
    if (this.options.loadSession === false) throw RequestError.methodNotFound('session/fork');
    if (!isAbsolutePath(params.cwd))
      throw RequestError.invalidParams(undefined, `cwd must be an absolute path, not ${JSON.stringify(params.cwd)}`);
    const sessionId = (this.options.newId ?? randomUUID)();
    const source = params.sessionId;
    const setup = {
      ...this.setupFor(
        sessionId,
        { cwd: params.cwd, mcpServers: params.mcpServers ?? [], _meta: params._meta },
        client,
        true,
      ),
      forkedFrom: source,
    };
    let handle: SessionHandle;
    try {
      handle = await this.options.openSession(setup);
    } catch (error) {
      throw new RequestError(-32002, `session ${source} could not be forked: ${errorText(error)}`, {
        sessionId: source,
      });
    }
    this.sessions.set(sessionId, { id: sessionId, cwd: params.cwd, handle, planCalls: [] });
    return { sessionId, modes: this.modesOf(handle), configOptions: this.configOptionsOf(handle) };
    // #endregion
  }

  /**
   * session/prompt: runs the session's agent (the handle's run, chapter 7's loop) on the prompt, tells the client
   * each event as session/update notifications while it runs (UpdateTranslator, given the session's folder, the
   * context window of the options, 200000 by default, the price, the usage so far and the title: sessionTitle), and
   * answers with the stop reason (stopReasonOf) when the run is over.
   *
   * - One prompt at a time per session: a second one while a prompt runs is RequestError.invalidRequest whose
   *   message says a prompt is `already running` (cancel it or wait); the first goes on undisturbed. An unknown
   *   session and a bad prompt (promptText, promptImages) are refused too, before anything changes.
   * - A slash command answered here (slashCommand) ends the prompt with end_turn, without the model. Else the text
   *   and the images become one user message added to the session's history: a second prompt goes on from it.
   * - `signal` fires when the client withdraws the request or goes away, and session/cancel aborts what
   *   session.running holds while the prompt runs. Either way the run is cancelled, the prompt answers cancelled,
   *   and the session stays usable.
   * - When telling the client fails (it went away), the run is cancelled and nothing more is sent, but its events
   *   are still read to the end: the run must finish, and leave a whole history.
   * - However it ends, the session is free again afterwards (no running prompt, no plan calls), and its usage
   *   counts on from the translator's, so the next prompt's totals include this one.
   * - exit_plan_mode calls are noted in session.planCalls, in order, as they are requested: the plan question
   *   (approvePlanThroughClient) is about the call it answers.
   * - A run that never says done is a broken loop: RequestError.internalError.
   */
  async prompt(params: acp.PromptRequest, client: Client, signal: AbortSignal): Promise<acp.PromptResponse> {
    // #region chapter 14: AcpServer.prompt
    // 1. The session (this.session: unknown ids throw). If it has a running prompt, throw RequestError.invalidRequest
    //    saying a prompt is already running in that session (cancel it or wait).
    // 2. images = promptImages(params.prompt, options.imageInput === true) and text = promptText(params.prompt) (each
    //    throws for a bad prompt, before anything changes). Then text = await this.slashCommand(session, text,
    //    client): undefined means a command was answered here, without the model: return { stopReason: 'end_turn' }.
    // 3. A new AbortController becomes session.running; when `signal` aborts (now or later), abort it with the
    //    signal's reason. Push userMessage(text, images) onto the handle's history.
    // 4. A translator: new UpdateTranslator({ cwd, contextWindow (default 200000), price, usage: handle.usage, title:
    //    sessionTitle(history) }) (given: the first request, on one line).
    // 5. for await each event of handle.run(history, { signal: controller.signal }): remember the done event; a
    //    tool_call_requested for exit_plan_mode → push its callId onto session.planCalls; then for each of
    //    translator.updates(event): await client.notify(session/update, { sessionId, update }). If a notify fails
    //    (the client went away), abort the controller and keep reading the events, sending nothing more: the run
    //    must end, and the history with it.
    // 6. finally: session.running = undefined and planCalls emptied (a new prompt may start); handle.usage =
    //    translator.sessionUsage (the next prompt counts on from there).
    // 7. Return { stopReason: stopReasonOf(done, history) } (no done event at all is a broken loop: throw
    //    RequestError.internalError saying so).
    const session = this.session(params.sessionId);
    if (session.running)
      throw RequestError.invalidRequest(
        undefined,
        `a prompt is already running in session ${session.id}: cancel it (session/cancel) or wait for it to end`,
      );
    const images = promptImages(params.prompt, this.options.imageInput === true);
    const text = await this.slashCommand(session, promptText(params.prompt), client);
    if (text === undefined) return { stopReason: 'end_turn' };
    const controller = new AbortController();
    session.running = controller;
    const onAbort = () => controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const { handle } = session;
    handle.history.push(userMessage(text, images));
    const translator = new UpdateTranslator({
      cwd: session.cwd,
      contextWindow: this.options.contextWindow ?? 200_000,
      price: this.options.price,
      usage: handle.usage,
      title: sessionTitle(handle.history),
    });
    let done: Extract<AgentEvent, { type: 'done' }> | undefined;
    let connected = true;
    try {
      for await (const event of handle.run(handle.history, { signal: controller.signal })) {
        if (event.type === 'done') done = event;
        if (event.type === 'tool_call_requested' && event.name === 'exit_plan_mode')
          session.planCalls.push(event.callId);
        for (const update of translator.updates(event)) {
          if (!connected) break;
          try {
            await client.notify(acp.methods.client.session.update, { sessionId: session.id, update });
          } catch (error) {
            connected = false;
            controller.abort(error);
          }
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      session.running = undefined;
      session.planCalls.length = 0;
      handle.usage = translator.sessionUsage;
    }
    if (!done) throw RequestError.internalError(undefined, 'the run ended without a done event');
    return { stopReason: stopReasonOf(done, handle.history) };
    // #endregion
  }

  /**
   * A prompt's text as a slash command: the text the model gets (the text itself when it is no command; a custom
   * command's prompt), or undefined when the command was answered here (a built-in, or an unknown one).
   *
   * - A command is a "/" and a word COMMAND_NAME (given) accepts, up to the first whitespace; the rest, trimmed, is
   *   its arguments. Text that only starts with a slash ("/etc/hosts is wrong") goes to the model as typed.
   * - The built-ins (BUILTIN_COMMANDS) are answered by runBuiltin (given), and win over a session's own command of
   *   that name, so a file cannot hide a built-in.
   * - A session's own custom command (SessionHandle has them; there may be none) becomes its prompt for those
   *   arguments.
   * - An unknown one never reaches the model: the client is told (say, given) that `/<name>` is unknown and that
   *   `/help` lists the commands.
   */
  async slashCommand(session: LiveSession, text: string, client: Client): Promise<string | undefined> {
    // #region chapter 14: AcpServer.slashCommand
    // 1. Not a command: the text does not start with "/", or its first word after the "/" (up to whitespace) does not
    //    match COMMAND_NAME (given): "/etc/hosts is wrong" is a sentence. Return the text as it is.
    // 2. The name is that word; the arguments are the rest of the text, trimmed.
    // 3. A built-in name (BUILTIN_COMMANDS) first, so a file cannot hide one: await this.runBuiltin(session, name,
    //    args, client) (given) and return undefined.
    // 4. A command of session.handle.commands with that name: return its expand(args).
    // 5. Otherwise: await this.say(session.id, client, message) naming /<name> and saying /help lists the commands,
    //    and return undefined (an unknown command never reaches the model as a request).
    if (!text.startsWith('/')) return text;
    const name = text.slice(1).split(/\s/, 1)[0]!;
    if (!COMMAND_NAME.test(name)) return text;
    const args = text.slice(1 + name.length).trim();
    if (BUILTIN_COMMANDS.some((command) => command.name === name)) {
      await this.runBuiltin(session, name, args, client);
      return undefined;
    }
    const command = session.handle.commands?.find((one) => one.name === name);
    if (command) return command.expand(args);
    await this.say(session.id, client, `Unknown command /${name}: /help lists the commands.`);
    return undefined;
    // #endregion
  }

  /**
   * session/cancel (a notification: no answer, no error): aborts the session's running prompt, if any, with a reason
   * that says the client cancelled it; that prompt then answers cancelled. An unknown session, or one with nothing
   * running: nothing happens (a notification has no answer to carry an error).
   */
  cancel(params: acp.CancelNotification): void {
    // #region chapter 14: AcpServer.cancel
    // 1. Abort the running prompt of session params.sessionId with an Error saying the client cancelled it.
    // 2. No such session, or nothing running: do nothing (a notification has no answer to carry an error).
    this.sessions.get(params.sessionId)?.running?.abort(new Error('cancelled by the client'));
    // #endregion
  }
}
