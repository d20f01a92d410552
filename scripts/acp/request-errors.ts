/** How npm run acp answers a request that reached a stub the learner has not written yet. */
import * as acp from '@agentclientprotocol/sdk';
import { isTodo, todoAdvice } from '../lib/agent-kit.js';
import type { AcpServer } from '../../solution/src/acp/index.js';

/**
 * A stub the learner has not written yet, thrown while a request is handled, becomes the request's JSON-RPC error,
 * with the same advice as npm run agent (the editor shows it), instead of the SDK's bare "Internal error".
 * (session/cancel is a notification: no answer can carry the error, so the server writes it to stderr.)
 */
export function todoAsRequestError(server: () => AcpServer): (error: unknown) => unknown {
  let RequestError: typeof acp.RequestError | undefined;
  return (error) => {
    if (!isTodo(error)) return error;
    RequestError ??= requestErrorOf(server());
    return new RequestError(-32603, todoAdvice(error), { chapter: error.chapter, stub: error.stub });
  };
}

/**
 * The RequestError class of the SDK the tree's server uses: the SDK sends an error's own message only for its own
 * class, and a tree outside the repository (KIT_SRC) may load a copy of the SDK of its own. AcpServer.session (given
 * code, not a stub) throws one for an unknown session.
 */
function requestErrorOf(server: AcpServer): typeof acp.RequestError {
  try {
    server.session('');
  } catch (error) {
    if (error instanceof Error && error.name === 'RequestError') return error.constructor as typeof acp.RequestError;
  }
  return acp.RequestError;
}
