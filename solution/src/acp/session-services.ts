/**
 * Chapter 14, given: what the server's ACP methods share.
 *
 * SessionServices sits between SessionAdmin (the open sessions; list, close, delete) and AcpServer (server.ts, the
 * methods a learner writes): the setup of a session for this client (setupFor), a session's modes and config options
 * as ACP shows them, the trust check of a raised mode, and the messages and command lists sent to the client.
 */
import * as acp from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import type { PermissionMode } from '../permissions/evaluate.js';
import { answerBuiltin } from './builtin-commands.js';
import { clientFiles, clientTerminals } from './client-access.js';
import { clientEditTool, clientReadTool, clientWriteTool } from './client-files.js';
import { clientBashTool } from './client-terminal.js';
import { availableCommands } from './commands.js';
import { configOptionsOf, raisesMode } from './config-options.js';
import { approvePlanThroughClient, askThroughClient, type RequestPermission } from './permission.js';
import { SessionAdmin } from './session-admin.js';
import { mcpServersFromAcp, SESSION_MODES, systemPromptFromMeta } from './session-setup.js';
import type { Client, LiveSession, SessionHandle, SessionSetup } from './session-types.js';

/** The session bookkeeping of SessionAdmin, with what every ACP method of AcpServer needs beside it. */
export class SessionServices extends SessionAdmin {
  /** What the client said it can do (initialize). */
  clientCapabilities: acp.ClientCapabilities = {};

  /**
   * The session methods beyond resume: close always; fork when sessions can be loaded (ACP's unstable session/fork);
   * list and delete when the server has the saved sessions.
   */
  sessionCapabilities(): acp.SessionCapabilities {
    return {
      close: {},
      ...(this.options.loadSession !== false ? { fork: {} } : {}),
      ...(this.options.sessions ? { list: {}, delete: {} } : {}),
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
}
