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

import { TodoError } from '../todo.js';
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.initialize');
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.newSession');
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.loadSession');
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.forkSession');
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.prompt');
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.slashCommand');
    // #endregion
  }

  /**
   * session/cancel (a notification: no answer, no error): aborts the session's running prompt, if any, with a reason
   * that says the client cancelled it; that prompt then answers cancelled. An unknown session, or one with nothing
   * running: nothing happens (a notification has no answer to carry an error).
   */
  cancel(params: acp.CancelNotification): void {
    // #region chapter 14: AcpServer.cancel
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.cancel');
    // #endregion
  }
}
