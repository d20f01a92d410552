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
 * The session bookkeeping and session/list, close and delete are in session-admin.ts (AcpServer extends
 * SessionAdmin); the types it is given in session-types.ts; the ACP app that wires a connection to it in app.ts.
 */

import { TodoError } from '../todo.js';
import * as acp from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../agent-events.js';
import { userMessage } from '../messages.js';
import type { PermissionMode } from '../permissions/evaluate.js';
import { clientEditTool, clientReadTool, clientWriteTool } from './client-files.js';
import { clientBashTool } from './client-terminal.js';
import { approvePlanThroughClient, askThroughClient, type RequestPermission } from './permission.js';
import { promptImages, promptText } from './prompt.js';
import {
  isPermissionMode,
  mcpServersFromAcp,
  resumeFromMeta,
  SESSION_MODES,
  systemPromptFromMeta,
} from './session-setup.js';
import { historyUpdates, sessionTitle, stopReasonOf, UpdateTranslator } from './updates.js';
import { CONFIG_IDS, configOptionsOf, raisesMode } from './config-options.js';
import { availableCommands, BUILTIN_COMMANDS, COMMAND_NAME } from './commands.js';
import { errorText } from '../safe-call.js';
import { answerBuiltin } from './builtin-commands.js';
import { clientFiles, clientTerminals } from './client-access.js';
import { SessionAdmin } from './session-admin.js';
import {
  isAbsolutePath,
  type Client,
  type LiveSession,
  type SessionHandle,
  type SessionSetup,
} from './session-types.js';

export * from './session-types.js';
export * from './session-admin.js';

export class AcpServer extends SessionAdmin {
  /** What the client said it can do (initialize). */
  clientCapabilities: acp.ClientCapabilities = {};

  /**
   * initialize: the protocol version (PROTOCOL_VERSION), the agent's name and version, its capabilities (loadSession,
   * prompts with embedded context, images when the model reads them and no audio, MCP over http, resume) and no auth
   * methods. Keeps the client's capabilities.
   */
  initialize(params: acp.InitializeRequest): acp.InitializeResponse {
    // #region chapter 14: AcpServer.initialize
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.initialize');
    // #endregion
  }

  /** The session methods beyond resume: close always; list and delete when the server has the saved sessions. */
  sessionCapabilities(): acp.SessionCapabilities {
    return { close: {}, ...(this.options.sessions ? { list: {}, delete: {} } : {}) };
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
    const files = clientFiles(client, sessionId);
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
        ...(this.clientCapabilities.terminal ? [clientBashTool(clientTerminals(client, sessionId))] : []),
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.newSession');
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.loadSession');
    // #endregion
  }

  /**
   * session/prompt: runs the session's agent on the prompt and sends its events as updates while it runs; answers
   * with the stop reason when the run is over. One prompt at a time per session. `signal` aborts when the client
   * withdraws the request or goes away: the run is then cancelled (and the session stays usable).
   */
  async prompt(params: acp.PromptRequest, client: Client, signal: AbortSignal): Promise<acp.PromptResponse> {
    // #region chapter 14: AcpServer.prompt
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.prompt');
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
  runBuiltin(session: LiveSession, name: string, args: string, client: Client): Promise<void> {
    return answerBuiltin(this, session, name, args, client);
  }

  /**
   * A prompt's text as a slash command: the text the model gets (the text itself when it is no command; a custom
   * command's prompt), or undefined when the command was answered here (a built-in, or an unknown name).
   */
  async slashCommand(session: LiveSession, text: string, client: Client): Promise<string | undefined> {
    // #region chapter 14: AcpServer.slashCommand
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.slashCommand');
    // #endregion
  }

  /** session/cancel (a notification: no answer, no error): ends the session's running prompt, if any. */
  cancel(params: acp.CancelNotification): void {
    // #region chapter 14: AcpServer.cancel
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.cancel');
    // #endregion
  }

  /**
   * session/set_mode: switches the session's permission mode; a mode that is not one of SESSION_MODES is refused, and
   * so is a raised mode in a folder the person has not trusted (checkModeTrust).
   */
  setMode(params: acp.SetSessionModeRequest): acp.SetSessionModeResponse {
    // #region chapter 14: AcpServer.setMode
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.setMode');
    // #endregion
  }

  /**
   * session/set_config_option: the person picked a value in one of the selectors of configOptionsOf. The mode is
   * checked as session/set_mode checks it; a model must be one of the session's choices. An unknown option or value
   * is invalid params, and then nothing changes. Answers with every option and its value now.
   */
  setConfigOption(params: acp.SetSessionConfigOptionRequest): acp.SetSessionConfigOptionResponse {
    // #region chapter 14: AcpServer.setConfigOption
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.setConfigOption');
    // #endregion
  }
}
