/**
 * Chapter 14: the agent as an ACP server.
 *
 * An editor starts the agent as a child process and speaks JSON-RPC to it over stdin and stdout (the official SDK
 * does the framing and the method dispatch). The server keeps the sessions the client opened, each with its own
 * agent, history and mode, and for each prompt runs chapter 7's loop and forwards its events as session/update
 * notifications. It builds no agent itself: `openSession` (chapter 15's factory, or a test's) does, given the
 * folder, the client's MCP servers, the system prompt choice, and the callbacks that ask the editor. So what a
 * person meets in the editor is what the terminal does, with another face.
 */
import * as acp from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { randomUUID } from 'node:crypto';
import type { AgentEvent, ApprovePlan } from '../agent-events.js';
import { userMessage, type Message, type Usage } from '../messages.js';
import type { McpServerConfig } from '../mcp/config.js';
import type { AskPermission } from '../permissions/gate.js';
import type { ModeControl } from '../planning/plan-mode.js';
import type { PermissionMode } from '../permissions/evaluate.js';
import { costOf, type ModelPrice } from '../session/cost.js';
import type { Tool } from '../tool.js';
import { clientEditTool, clientReadTool, clientWriteTool, type ClientFiles } from './client-files.js';
import { clientBashTool, type ClientTerminal, type ClientTerminals } from './client-terminal.js';
import { approvePlanThroughClient, askThroughClient, type RequestPermission } from './permission.js';
import { promptImages, promptText } from './prompt.js';
import {
  isPermissionMode,
  mcpServersFromAcp,
  resumeFromMeta,
  SESSION_MODES,
  systemPromptFromMeta,
  type SystemPromptChoice,
} from './session-setup.js';
import { historyUpdates, sessionTitle, stopReasonOf, UpdateTranslator } from './updates.js';
import { lockHolder, SESSION_ID, type SavedSessions } from './saved-sessions.js';
import { CONFIG_IDS, configOptionsOf, raisesMode, type ModelControl } from './config-options.js';
import { availableCommands, BUILTIN_COMMANDS, COMMAND_NAME, type SessionCommand } from './commands.js';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { errorText } from '../safe-call.js';

/** What the factory is given to build a session's agent. */
export interface SessionSetup {
  /** The session's id: made by the server for session/new, the client's for load and resume. */
  sessionId: string;
  /** True for session/load and session/resume: continue the saved session `sessionId`. */
  resume: boolean;
  cwd: string;
  /** The client's MCP servers, as chapter 11 configures them. */
  mcpServers: Record<string, McpServerConfig>;
  /** From `_meta.systemPrompt`. */
  systemPrompt?: SystemPromptChoice;
  /** Chapter 8's question, asked in the editor. */
  ask: AskPermission;
  /** Chapter 13's plan approval, asked in the editor. */
  approvePlan: ApprovePlan;
  /** Tools that take the place of the built-in ones of the same name (the client's files). */
  tools: Tool[];
}

/** What the factory builds: the session's agent and what the server needs around it. */
export interface SessionHandle {
  /** The history the agent continues (a loaded session's saved messages; [] for a new one). */
  history: Message[];
  /** Chapter 7's Agent, or anything that runs like it (the factory may wrap it to record the session). */
  run(history: Message[], options: { signal: AbortSignal }): AsyncIterable<AgentEvent>;
  /** Where the permission mode lives (chapter 8's gate). */
  modes: ModeControl;
  /**
   * What the session has used so far, for the cost in usage_update and the tokens of session_info_update: a loaded
   * session's at first; the server sets it after each prompt.
   */
  usage?: Usage;
  /** The session's models, when the person may switch them (the model config options). */
  models?: ModelControl;
  /**
   * False when the person has not trusted the session's folder (chapter 15's trust): the mode may not be raised
   * from the editor there. Left out: the factory has no such rule (a test's), and every mode may be chosen.
   */
  trusted?: boolean;
  /** The session's own slash commands (chapter 15's .claude/commands), besides the server's built-ins. */
  commands?: SessionCommand[];
  /** Ends the session: saves it, stops its MCP servers. */
  close(): Promise<void>;
}

export interface AcpServerOptions {
  /** Builds a session's agent; throws when a session to load does not exist. */
  openSession(setup: SessionSetup): Promise<SessionHandle>;
  /** Whether sessions can be loaded and resumed (default true). */
  loadSession?: boolean;
  /** Chapter 12's saved sessions, for session/list and session/delete (not given: neither is offered). */
  sessions?: SavedSessions;
  /**
   * Whether the sessions' model reads images (the provider's imageInput): advertised in initialize, and an image in a
   * prompt is refused when it is not true (fail closed).
   */
  imageInput?: boolean;
  /** The agent's name and version, for initialize. */
  name?: string;
  version?: string;
  /** The model's context window in tokens (default 200,000) and its price, for usage_update. */
  contextWindow?: number;
  price?: ModelPrice;
  /** Makes session ids (default: random UUIDs). */
  newId?: () => string;
  /**
   * Turns an error a handler threw into the one the client gets (the kit's CLI turns an unfinished stub into advice
   * the editor shows). The SDK sends a RequestError as it is and any other error as a bare internal error.
   */
  mapError?(error: unknown): unknown;
}

/** One session as the server keeps it. */
interface LiveSession {
  id: string;
  cwd: string;
  handle: SessionHandle;
  /** The running prompt's controller, while one runs. */
  running?: AbortController;
  /** The exit_plan_mode calls of the running turn, oldest first (the plan question answers the first). */
  planCalls: string[];
}

/** The client as the handlers see it: chapter 14 only sends requests and notifications through it. */
export type Client = Pick<acp.AgentContext, 'request' | 'notify'>;

export class AcpServer {
  /** What the client said it can do (initialize). */
  clientCapabilities: acp.ClientCapabilities = {};
  readonly sessions = new Map<string, LiveSession>();
  /** The prompts being answered, by session id (createAcpAgent adds each one), so a session can be closed after its run. */
  private readonly inflight = new Map<string, Set<Promise<unknown>>>();
  private closing: Promise<void> | undefined;

  constructor(readonly options: AcpServerOptions) {}

  /**
   * initialize: the protocol version (PROTOCOL_VERSION), the agent's name and version, its capabilities (loadSession,
   * prompts with embedded context, images when the model reads them and no audio, MCP over http, resume) and no auth
   * methods. Keeps the client's capabilities.
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

  /** The session methods beyond resume: close always; list and delete when the server has the saved sessions. */
  sessionCapabilities(): acp.SessionCapabilities {
    return { close: {}, ...(this.options.sessions ? { list: {}, delete: {} } : {}) };
  }

  /** The client's files, for the tools of session `sessionId`. */
  private clientFiles(client: Client, sessionId: string): ClientFiles {
    return {
      readTextFile: async (request, signal) =>
        (
          await client.request(
            acp.methods.client.fs.readTextFile,
            { sessionId, ...request },
            { cancellationSignal: signal },
          )
        ).content,
      writeTextFile: async (request, signal) => {
        await client.request(
          acp.methods.client.fs.writeTextFile,
          { sessionId, ...request },
          { cancellationSignal: signal },
        );
      },
    };
  }

  /**
   * The client's terminals, for the bash tool of session `sessionId`: `bash -c <command>` started by the client, and
   * shown in the card of the call that runs it (a tool_call_update whose content is the terminal).
   */
  private clientTerminals(client: Client, sessionId: string): ClientTerminals {
    return {
      async create({ command, cwd, outputByteLimit, callId }, signal) {
        const { terminalId } = await client.request(
          acp.methods.client.terminal.create,
          { sessionId, command: 'bash', args: ['-c', command], cwd, outputByteLimit },
          { cancellationSignal: signal },
        );
        const ids = { sessionId, terminalId };
        const terminal: ClientTerminal = {
          id: terminalId,
          currentOutput: () => client.request(acp.methods.client.terminal.output, ids),
          waitForExit: () => client.request(acp.methods.client.terminal.waitForExit, ids),
          kill: async () => void (await client.request(acp.methods.client.terminal.kill, ids)),
          release: async () => void (await client.request(acp.methods.client.terminal.release, ids)),
        };
        if (callId !== undefined) {
          const update: acp.SessionUpdate = {
            sessionUpdate: 'tool_call_update',
            toolCallId: callId,
            content: [{ type: 'terminal', terminalId }],
          };
          await client.notify(acp.methods.client.session.update, { sessionId, update }).catch(() => {});
        }
        return terminal;
      },
    };
  }

  /** The setup of a session: everything the factory needs, with the callbacks that reach this client. */
  setupFor(
    sessionId: string,
    params: Pick<acp.NewSessionRequest, 'cwd' | 'mcpServers' | '_meta'>,
    client: Client,
    resume: boolean,
  ): SessionSetup {
    const requestPermission: RequestPermission = (request, signal) =>
      client.request(acp.methods.client.session.requestPermission, request, { cancellationSignal: signal });
    const fs = this.clientCapabilities.fs;
    const files = this.clientFiles(client, sessionId);
    return {
      sessionId,
      resume,
      cwd: params.cwd,
      mcpServers: mcpServersFromAcp(params.mcpServers ?? []),
      systemPrompt: systemPromptFromMeta(params._meta),
      ask: askThroughClient(sessionId, params.cwd, requestPermission),
      approvePlan: approvePlanThroughClient(sessionId, requestPermission, () =>
        this.sessions.get(sessionId)?.planCalls.shift(),
      ),
      tools: [
        ...(fs?.readTextFile ? [clientReadTool(files)] : []),
        ...(fs?.writeTextFile ? [clientWriteTool(files)] : []),
        // An edit reads and writes: through the client only when it offers both (else on the disk, as before).
        ...(fs?.readTextFile && fs?.writeTextFile ? [clientEditTool(files)] : []),
        // Commands in the editor's terminal, when it offers terminals (else in a shell of the agent's own, as before).
        ...(this.clientCapabilities.terminal ? [clientBashTool(this.clientTerminals(client, sessionId))] : []),
      ],
    };
  }

  /** The modes of a session, as ACP shows them. */
  modesOf(handle: SessionHandle): acp.SessionModeState {
    return { currentModeId: handle.modes.mode, availableModes: SESSION_MODES };
  }

  /** The config options of a session (mode, model, small fast model) with their current values. */
  configOptionsOf(handle: SessionHandle): acp.SessionConfigOption[] {
    return configOptionsOf(handle.modes, handle.models);
  }

  /**
   * Refuses a raised mode (bypassPermissions, acceptEdits) in a folder the person has not trusted: in an editor
   * there is no trust question to ask, so the person trusts the folder in npm run agent (or starts npm run acp with
   * --trust-workspace). Throws RequestError.invalidRequest; nothing changes.
   */
  checkModeTrust(session: LiveSession, mode: PermissionMode): void {
    if (session.handle.trusted !== false || !raisesMode(mode)) return;
    throw RequestError.invalidRequest(
      undefined,
      `mode ${mode} is not available in ${session.cwd}: this folder is not trusted. Trust it in npm run agent (or start npm run acp with --trust-workspace), then choose the mode again`,
    );
  }

  /**
   * session/new: a session with a new id, its agent from the factory (setupFor), kept in this.sessions. Answers
   * with the id, the modes and the config options. A relative cwd is refused. With `_meta.claudeCode.options.resume`
   * it continues that saved session instead, as session/resume does, and answers with its id.
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
   * session/load (replay: true) and session/resume (replay: false): the saved session `sessionId`, from the factory
   * with resume set; with replay, its history is sent to the client as updates (historyUpdates) before the answer.
   * A session already open on this connection is closed first (its run cancelled). The factory's error for a
   * session it cannot find becomes RequestError.resourceNotFound-style error (-32002) with its message.
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

  /**
   * session/prompt: runs the session's agent on the prompt and sends its events as updates while it runs; answers
   * with the stop reason when the run is over. One prompt at a time per session. `signal` aborts when the client
   * withdraws the request or goes away: the run is then cancelled (and the session stays usable).
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

  /** Sends `text` to the client as the agent's message in session `sessionId`. */
  async say(sessionId: string, client: Client, text: string): Promise<void> {
    await client.notify(acp.methods.client.session.update, {
      sessionId,
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
    });
  }

  /** Tells the client which slash commands session `sessionId` has (createAcpAgent calls it once a session is open). */
  async announceCommands(sessionId: string, client: Client): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    await client.notify(acp.methods.client.session.update, {
      sessionId,
      update: {
        sessionUpdate: 'available_commands_update',
        availableCommands: availableCommands(session.handle.commands),
      },
    });
  }

  /**
   * Answers a built-in command (BUILTIN_COMMANDS) with a message: /help lists the commands; /usage the session's
   * tokens; /mode shows the mode, or switches it with the checks of session/set_mode (an unknown mode, an untrusted
   * folder's raise: the message says why) and a current_mode_update, since the client did not ask through set_mode.
   */
  async runBuiltin(session: LiveSession, name: string, args: string, client: Client): Promise<void> {
    const { handle } = session;
    if (name === 'help') {
      const lines = availableCommands(handle.commands).map(
        (command) => `/${command.name}${command.input ? ` ${command.input.hint}` : ''}: ${command.description}`,
      );
      return this.say(session.id, client, lines.join('\n'));
    }
    if (name === 'usage') {
      const usage = handle.usage;
      if (!usage) return this.say(session.id, client, 'Nothing used yet in this session.');
      const figures = `${usage.inputTokens} input, ${usage.outputTokens} output, ${usage.cacheReadTokens ?? 0} cache read, ${usage.cacheWriteTokens ?? 0} cache write tokens`;
      const amount = this.options.price && costOf(usage, this.options.price);
      const cost = amount !== undefined ? ` ($${amount.toFixed(4)})` : '';
      return this.say(session.id, client, `This session: ${figures}${cost}.`);
    }
    const wanted = args.trim();
    if (!wanted)
      return this.say(
        session.id,
        client,
        `Mode: ${handle.modes.mode} (modes: ${SESSION_MODES.map((mode) => mode.id).join(', ')})`,
      );
    if (!isPermissionMode(wanted))
      return this.say(
        session.id,
        client,
        `Unknown mode "${wanted}": one of ${SESSION_MODES.map((mode) => mode.id).join(', ')}.`,
      );
    try {
      this.checkModeTrust(session, wanted);
    } catch (error) {
      return this.say(session.id, client, (error as Error).message);
    }
    handle.modes.setMode(wanted);
    await client.notify(acp.methods.client.session.update, {
      sessionId: session.id,
      update: { sessionUpdate: 'current_mode_update', currentModeId: wanted },
    });
    return this.say(session.id, client, `Mode: ${wanted}.`);
  }

  /**
   * A prompt's text as a slash command: the text the model gets (the text itself when it is no command; a custom
   * command's prompt), or undefined when the command was answered here (a built-in, or an unknown name).
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

  /** session/cancel (a notification: no answer, no error): ends the session's running prompt, if any. */
  cancel(params: acp.CancelNotification): void {
    // #region chapter 14: AcpServer.cancel
    // 1. Abort the running prompt of session params.sessionId with an Error saying the client cancelled it.
    // 2. No such session, or nothing running: do nothing (a notification has no answer to carry an error).
    this.sessions.get(params.sessionId)?.running?.abort(new Error('cancelled by the client'));
    // #endregion
  }

  /**
   * session/set_mode: switches the session's permission mode; a mode that is not one of SESSION_MODES is refused, and
   * so is a raised mode in a folder the person has not trusted (checkModeTrust).
   */
  setMode(params: acp.SetSessionModeRequest): acp.SetSessionModeResponse {
    // #region chapter 14: AcpServer.setMode
    // 1. The session (unknown ids throw, through this.session).
    // 2. A modeId that is not a permission mode (isPermissionMode): throw RequestError.invalidParams naming it and
    //    the modes there are.
    // 3. this.checkModeTrust(session, modeId) (given): it throws for a raised mode in an untrusted folder.
    // 4. handle.modes.setMode(modeId) and return {}. The client asked for it, so no current_mode_update is sent.
    const session = this.session(params.sessionId);
    if (!isPermissionMode(params.modeId)) {
      throw RequestError.invalidParams(
        undefined,
        `unknown mode ${JSON.stringify(params.modeId)}; the modes are ${SESSION_MODES.map((mode) => mode.id).join(', ')}`,
      );
    }
    this.checkModeTrust(session, params.modeId);
    session.handle.modes.setMode(params.modeId);
    return {};
    // #endregion
  }

  /**
   * session/set_config_option: the person picked a value in one of the selectors of configOptionsOf. The mode is
   * checked as session/set_mode checks it; a model must be one of the session's choices. An unknown option or value
   * is invalid params, and then nothing changes. Answers with every option and its value now.
   */
  setConfigOption(params: acp.SetSessionConfigOptionRequest): acp.SetSessionConfigOptionResponse {
    // #region chapter 14: AcpServer.setConfigOption
    // 1. The session (this.session: unknown ids throw). Every option here is a selector: a value that is not a string
    //    (a boolean option's) → RequestError.invalidParams saying a string is expected.
    // 2. configId CONFIG_IDS.mode: the same checks as setMode (an unknown mode is invalid params naming it, then
    //    this.checkModeTrust), then handle.modes.setMode(value).
    // 3. CONFIG_IDS.model or CONFIG_IDS.smallFastModel: the session has no handle.models, or the value is not one of
    //    handle.models.choices → invalidParams naming the value (and the choices). Else handle.models.set('model' or
    //    'smallFastModel', value).
    // 4. Any other configId → invalidParams naming it and the ids there are (those of this.configOptionsOf(handle)).
    // 5. Return { configOptions: this.configOptionsOf(handle) }: every option with its value now.
    const session = this.session(params.sessionId);
    const { handle } = session;
    const value: unknown = params.value;
    if (typeof value !== 'string')
      throw RequestError.invalidParams(
        undefined,
        `config option ${JSON.stringify(params.configId)} takes one of its values (a string), not ${JSON.stringify(value)}`,
      );
    const ids = this.configOptionsOf(handle).map((option) => option.id);
    if (params.configId === CONFIG_IDS.mode) {
      if (!isPermissionMode(value))
        throw RequestError.invalidParams(
          undefined,
          `unknown mode ${JSON.stringify(value)}; the modes are ${SESSION_MODES.map((mode) => mode.id).join(', ')}`,
        );
      this.checkModeTrust(session, value);
      handle.modes.setMode(value);
    } else if (
      (params.configId === CONFIG_IDS.model || params.configId === CONFIG_IDS.smallFastModel) &&
      handle.models
    ) {
      if (!handle.models.choices.includes(value))
        throw RequestError.invalidParams(
          undefined,
          `unknown model ${JSON.stringify(value)} for ${params.configId}; the models are ${handle.models.choices.join(', ')}`,
        );
      handle.models.set(params.configId === CONFIG_IDS.model ? 'model' : 'smallFastModel', value);
    } else {
      throw RequestError.invalidParams(
        undefined,
        `unknown config option ${JSON.stringify(params.configId)}; the options are ${ids.join(', ')}`,
      );
    }
    return { configOptions: this.configOptionsOf(handle) };
    // #endregion
  }

  /** The saved sessions, or methodNotFound for `method` when the server was given none. */
  private saved(method: string): SavedSessions {
    if (!this.options.sessions) throw RequestError.methodNotFound(method);
    return this.options.sessions;
  }

  /**
   * session/list: the saved sessions of the folder `cwd` (of every folder when there is none), each with its id, its
   * folder, its title and when it changed, the one changed last first. One page: there is never a next cursor.
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

  /** session/close: ends an open session (its running prompt cancelled and waited for; the session saved). */
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
   * session/delete: removes a saved session's file. The id comes from the client: it is checked before any path is
   * made of it, and only a file `<id>.jsonl` in one of the saved sessions' folders is removed. A session open here
   * is closed first; one another process is writing is refused.
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

/** True for an absolute path on this system. */
function isAbsolutePath(value: string): boolean {
  return typeof value === 'string' && (value.startsWith('/') || /^[A-Za-z]:[\\/]/.test(value));
}

/**
 * The ACP agent app: each method wired to an AcpServer. Serve it over stdio with
 * `app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)))`, or connect a test
 * client to it directly. When the connection closes, every session is closed (a running prompt is cancelled and
 * the session saved).
 */
export function createAcpAgent(options: AcpServerOptions): { app: acp.AgentApp; server: AcpServer } {
  const server = new AcpServer(options);
  /** Runs a handler; what it throws (at once or later) goes through options.mapError. */
  const handle = <T>(work: () => T | Promise<T>): Promise<T> => {
    const mapped = (error: unknown) => Promise.reject(options.mapError ? options.mapError(error) : error);
    try {
      return Promise.resolve(work()).catch(mapped);
    } catch (error) {
      return mapped(error);
    }
  };
  /** Once a session is open and its answer sent, tells the client its slash commands. */
  const announce = <T extends object>(client: Client, sessionId: string | undefined, work: Promise<T>): Promise<T> =>
    work.then((result) => {
      const id = sessionId ?? (result as { sessionId?: string }).sessionId;
      // After the answer: the client learns the session's id from it, so the update must not come first.
      if (id !== undefined) setImmediate(() => void server.announceCommands(id, client).catch(() => {}));
      return result;
    });
  const app = acp
    .agent({ name: options.name ?? 'coding-agent' })
    .onConnect((connection) => void connection.closed.finally(() => server.closeAll()))
    .onRequest(acp.methods.agent.initialize, ({ params }) => handle(() => server.initialize(params)))
    .onRequest(acp.methods.agent.session.new, ({ params, client }) =>
      announce(
        client,
        undefined,
        handle(() => server.newSession(params, client)),
      ),
    )
    .onRequest(acp.methods.agent.session.load, ({ params, client }) =>
      announce(
        client,
        params.sessionId,
        handle(() => server.loadSession(params, client, true)),
      ),
    )
    .onRequest(acp.methods.agent.session.resume, ({ params, client }) =>
      announce(
        client,
        params.sessionId,
        handle(() => server.loadSession({ ...params, mcpServers: params.mcpServers ?? [] }, client, false)),
      ),
    )
    .onRequest(acp.methods.agent.session.prompt, ({ params, client, signal }) =>
      handle(() =>
        server.track(
          params.sessionId,
          Promise.resolve().then(() => server.prompt(params, client, signal)),
        ),
      ),
    )
    .onRequest(acp.methods.agent.session.setMode, ({ params }) => handle(() => server.setMode(params)))
    .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) => handle(() => server.setConfigOption(params)))
    .onRequest(acp.methods.agent.session.list, ({ params }) => handle(() => server.listSessions(params)))
    .onRequest(acp.methods.agent.session.close, ({ params }) => handle(() => server.closeSession(params)))
    .onRequest(acp.methods.agent.session.delete, ({ params }) => handle(() => server.deleteSession(params)))
    .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
      await handle(() => server.cancel(params)).catch((error) =>
        process.stderr.write(`session/cancel: ${errorText(error)}\n`),
      );
    });
  return { app, server };
}
