/**
 * Chapter 14, given: the ACP app, each method of the protocol wired to an AcpServer.
 */
import * as acp from '@agentclientprotocol/sdk';
import { errorText } from '../safe-call.js';
import { AcpServer } from './server.js';
import { parseForkParams } from './session-setup.js';
import type { AcpServerOptions, Client } from './session-types.js';

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
    // session/fork is ACP's unstable method: registered by name, with its params parser (the stable builder does not
    // know it).
    .onRequest('session/fork', parseForkParams, ({ params, client }) =>
      announce(
        client,
        undefined,
        handle(() => server.forkSession(params, client)),
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
