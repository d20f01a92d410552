/**
 * The network guard every graded test runs under (loaded by tests/setup.ts). Every TCP connection in Node, whether
 * from fetch (undici), node:http, node:https or a raw socket, goes through net.Socket.prototype.connect, so the
 * guard sits there: a connection to a host other than this machine's loopback (localhost, 127.0.0.0/8, ::1) is
 * refused before any DNS look-up, with an error that names the host. The attempt is also recorded, and
 * tests/setup.ts fails the test with it afterwards, so code that catches the error cannot hide it. msw answers
 * mocked requests without opening a socket, so it is unaffected. Unix sockets and pipes (a `path`) are allowed.
 */
import net from 'node:net';

export class NetworkReachedError extends Error {
  override name = 'NetworkReachedError';
  constructor(
    readonly host: string,
    readonly port: unknown,
  ) {
    super(
      `a test tried to reach ${host}:${String(port)} on the network. Tests must stay offline: point the provider's ` +
        `baseURL at a fake server on 127.0.0.1 (tests/helpers/fake-http.ts) or serve the request with msw`,
    );
  }
}

/** Connections refused since the current test began (tests/setup.ts empties and reads this). */
export const networkHits: NetworkReachedError[] = [];

const isLoopback = (host: string) =>
  host === 'localhost' || host === '::1' || host === '[::1]' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(host);

type Connect = (this: net.Socket, ...args: unknown[]) => net.Socket;
const original = net.Socket.prototype.connect as unknown as Connect;
const GUARDED = Symbol.for('kit.noNetwork');

if (!(original as unknown as Record<symbol, boolean>)[GUARDED]) {
  const guarded: Connect = function (this: net.Socket, ...args: unknown[]) {
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    let host: string | undefined;
    let port: unknown;
    if (first && typeof first === 'object') {
      const options = first as { host?: string; port?: unknown; path?: string };
      if (options.path === undefined) {
        host = options.host ?? 'localhost';
        port = options.port;
      }
    } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
      port = first;
      host = typeof args[1] === 'string' ? args[1] : 'localhost';
    }
    if (host !== undefined && !isLoopback(host)) {
      const error = new NetworkReachedError(host, port);
      networkHits.push(error);
      process.nextTick(() => this.destroy(error));
      return this;
    }
    return original.apply(this, args);
  };
  (guarded as unknown as Record<symbol, boolean>)[GUARDED] = true;
  net.Socket.prototype.connect = guarded as unknown as typeof net.Socket.prototype.connect;
}
