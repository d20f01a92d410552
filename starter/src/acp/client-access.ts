/**
 * Chapter 14, given: the client's files and terminals, as the tools of one session reach them.
 *
 * When the editor offers them (clientCapabilities.fs, .terminal), a session's read, write and edit tools go through
 * the editor's buffers and its bash tool through the editor's terminals: each is a request to the client, tagged
 * with the session's id and cancelled with the call's signal.
 */
import * as acp from '@agentclientprotocol/sdk';
import { type ClientFiles } from './client-files.js';
import { type ClientTerminal, type ClientTerminals } from './client-terminal.js';
import type { Client } from './session-types.js';

/** The client's files, for the tools of session `sessionId`. */
export function clientFiles(client: Client, sessionId: string): ClientFiles {
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
export function clientTerminals(client: Client, sessionId: string): ClientTerminals {
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
