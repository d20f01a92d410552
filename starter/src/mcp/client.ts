/**
 * Chapter 11: one connection to one MCP server.
 *
 * The official SDK does the protocol (JSON-RPC framing, agreeing on a protocol revision, matching answers to
 * requests, calling again when a call asked for input); this file decides what the agent does around it: how long to wait for a server to start, what a call to a server
 * that has died returns, when to start it again, how long one call may take, and that no child process outlives the
 * agent. The rule throughout: a server is somebody else's program, so nothing it does (or fails to do) may hang or
 * crash the run. Its failures become error results the model reads, and the model carries on without it.
 */
import { TodoError } from '../todo.js';
import {
  Client,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type ClientOptions,
  type Tool as McpToolInfo,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { errorText } from '../safe-call.js';
import type { AskPermission } from '../permissions/gate.js';
import type { McpCallOptions } from './adapter.js';
import { SERVER_NAME, type McpServerConfig } from './config.js';
import { answerElicitation, type RunningCall } from './elicitation.js';

export type { McpCallOptions } from './adapter.js';

export type { Transport };

/** Makes a fresh transport for every (re)start of a server. Tests pass one that returns an InMemoryTransport. */
export type TransportFactory = () => Transport;

export interface McpConnectionOptions {
  /** How long each step of a start may take: the revision probe (`server/discover`), then `initialize` (default 10 s). */
  startupTimeoutMs?: number;
  /** How long one tool call may take (default 60 s, the SDK's own default). */
  callTimeoutMs?: number;
  /**
   * Chapter 8's question to the person, for a server that asks one mid-call (elicitation.ts). Chapter 15's factory
   * passes the run's (the terminal's, or the editor's over ACP). Without one, every such question is declined.
   */
  ask?: AskPermission;
}

/** The most pages of tools/list followed, and the most tools kept: a server that never stops paginating cannot hang start-up. */
export const MAX_TOOL_PAGES = 50;
export const MAX_TOOLS = 1000;

/** The most times one call may come back asking for input (2026-07-28's `input_required`) before the kit stops it. */
export const MAX_INPUT_ROUNDS = 5;

/**
 * The SDK client's options: what the client tells a server it can do (answer elicitation/create forms, and nothing it
 * cannot), the most pages of tools/list it follows (MAX_TOOL_PAGES), and how many times one call may ask for input
 * (MAX_INPUT_ROUNDS: the SDK answers each `input_required` result through the same elicitation/create handler, then
 * calls again with the answers).
 */
export const CLIENT_OPTIONS: ClientOptions = {
  capabilities: { elicitation: { form: {} } },
  listMaxPages: MAX_TOOL_PAGES,
  inputRequired: { maxRounds: MAX_INPUT_ROUNDS },
};

/**
 * The protocol revisions the client speaks, newest first: the stateless 2026-07-28 revision (which the SDK only ever
 * selects through `server/discover`), then the SDK's 2025 family (2025-11-25 down to 2024-11-05, through
 * `initialize`). The SDK's own default is the 2025 family alone.
 */
export const PROTOCOL_VERSIONS: string[] = ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS];

export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000;
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** How much of a server's stderr is kept (the end of it), for error messages. */
const STDERR_KEEP = 2000;

/**
 * The transport for a configured server. stdio: the command as a child process with the SDK's safe default
 * environment (HOME, PATH, ...) plus the entry's `env`, its stderr piped (kept by `onStderr`, never mixed with the
 * protocol on stdout). http: streamable HTTP to the URL with the entry's headers on every request.
 */
export function transportFor(config: McpServerConfig, onStderr: (text: string) => void = () => {}): Transport {
  if (config.type === 'http') {
    return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
  }
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: { ...getDefaultEnvironment(), ...config.env },
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString('utf8')));
  return transport;
}

/**
 * - `new`: not started yet; `running`: connected; `stopped`: it died or failed to start (the next call may restart
 *   it, once); `closed`: the agent closed it (for good).
 */
export type ConnectionState = 'new' | 'running' | 'stopped' | 'closed';

export class McpConnection {
  readonly name: string;
  readonly startupTimeoutMs: number;
  readonly callTimeoutMs: number;
  state: ConnectionState = 'new';
  /** How many times the server was started again after it stopped (at most once). */
  restarts = 0;
  /** Set when the server sends notifications/tools/list_changed; whoever refreshes the tools clears it. */
  toolsChanged = false;
  /** The end of what the server wrote to stderr. */
  stderr = '';
  /** Asks the person a server's question (McpConnectionOptions.ask). */
  readonly ask: AskPermission | undefined;
  private readonly makeTransport: TransportFactory;
  private client: Client | undefined;
  private transport: Transport | undefined;
  /** The calls running now (callTool keeps each here until it ends): an elicitation belongs to the only one. */
  private readonly running = new Set<RunningCall>();

  /** `server` is a configured server (config.ts) or a factory of transports (a server handed in by code, a test). */
  constructor(name: string, server: McpServerConfig | TransportFactory, options: McpConnectionOptions = {}) {
    if (!SERVER_NAME.test(name))
      throw new Error(
        `MCP server name "${name}" must be 1-40 letters, digits, "-" or "_", without "__" or a final "_"`,
      );
    this.name = name;
    this.makeTransport =
      typeof server === 'function' ? server : () => transportFor(server, (text) => this.keepStderr(text));
    this.startupTimeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.ask = options.ask;
  }

  /** The server's process id while a stdio server runs (undefined otherwise). */
  get pid(): number | undefined {
    return this.transport instanceof StdioClientTransport ? (this.transport.pid ?? undefined) : undefined;
  }

  /** The SDK client while the server runs: for the chapter's own calls (listTools) and for tests. */
  get sdkClient(): Client | undefined {
    return this.client;
  }

  /** The revision the start agreed on with the server (`2026-07-28`, `2025-11-25`, ...); undefined before a start. */
  get protocolVersion(): string | undefined {
    return this.client?.getNegotiatedProtocolVersion();
  }

  /**
   * The call a server's question belongs to (the only call running; none when there are none or several) and the
   * signal that withdraws the question: the request's own (the server cancelled it) or that call's (the run stopped).
   */
  private questionScope(request: AbortSignal): { running?: RunningCall; signal: AbortSignal } {
    const running = this.running.size === 1 ? [...this.running][0] : undefined;
    return { running, signal: running?.signal ? AbortSignal.any([request, running.signal]) : request };
  }

  private keepStderr(text: string): void {
    this.stderr = (this.stderr + text).slice(-STDERR_KEEP);
  }

  /** `: <the last line of stderr>` when the server wrote any, for error messages. */
  stderrNote(): string {
    const last = this.stderr.trim().split('\n').at(-1);
    return last ? ` (its stderr: ${last})` : '';
  }

  /**
   * Starts the server and agrees on a protocol revision, the newest both sides speak, as Claude Code does: the client
   * offers PROTOCOL_VERSIONS (given) with the SDK's `auto` negotiation, which asks `server/discover` first (a
   * 2026-07-28 server answers it; that revision has no handshake) and falls back to `initialize` with 2025-11-25
   * (accepting an older revision the server answers with) when the server does not know that method. Each step gives
   * up after startupTimeoutMs. Afterwards the state is `running`. Offering only the 2025 family, pinning 2026-07-28 or
   * offering it alone all lose servers: the whole list is offered, the fallback included.
   *
   * - While it runs: when the server exits, the state becomes `stopped`, but not when close() ended it, nor for the
   *   late close of an earlier start's client (a stdio server's pipe may close long after); a
   *   notifications/tools/list_changed sets `toolsChanged`; an elicitation/create is answered by answerElicitation,
   *   for the call and with the signal questionScope (given) finds. On 2026-07-28 a server cannot send that request:
   *   it answers the call with `input_required`, and the SDK hands each question in it to the same handler and calls
   *   again with the answers, so one handler serves both revisions.
   * - close() must reach a server that is still starting, so keep what it needs on the connection from the start.
   * - A start that fails (the transport, the handshake, the time limit) throws an Error that starts with
   *   `MCP server "<name>" did not start:` and gives the failure's text and stderrNote(); the half-started server is
   *   closed (no child process is left) and the state is `stopped`.
   * - Throws `MCP server "<name>" is closed` when close() ran before or during the start: a closed connection never
   *   comes back running.
   */
  async connect(): Promise<void> {
    // #region chapter 11: McpConnection.connect
    // Write it from the contract above. Step by step instead: npm run reset -- chapter11 --guided
    throw new TodoError(11, 'McpConnection.connect');
    // #endregion
  }

  /**
   * Every tool the server offers: the SDK follows `nextCursor` through all pages, at most MAX_TOOL_PAGES of them
   * (CLIENT_OPTIONS), so a server that never stops paginating cannot hang start-up. The server must be running.
   * Throws when it offers more pages than that or more than MAX_TOOLS tools.
   */
  async listTools(): Promise<McpToolInfo[]> {
    if (!this.client || this.state !== 'running') throw new Error(`MCP server "${this.name}" is not running`);
    let tools: McpToolInfo[];
    try {
      ({ tools } = await this.client.listTools(undefined, { timeout: this.callTimeoutMs, cacheMode: 'refresh' }));
    } catch (error) {
      if (error instanceof SdkError && error.code === SdkErrorCode.ListPaginationExceeded) {
        throw new Error(
          `MCP server "${this.name}" lists its tools on more than ${MAX_TOOL_PAGES} pages: stopped there`,
        );
      }
      throw error;
    }
    if (tools.length > MAX_TOOLS)
      throw new Error(`MCP server "${this.name}" offers more than ${MAX_TOOLS} tools: stopped there`);
    return tools;
  }

  /**
   * Calls the server's tool `tool` (its own name) with `args`, and returns the server's result as it is (a result
   * that is an error is for the adapter to report). Every error names the server, as `MCP server "<name>"`.
   *
   * - A closed connection throws `MCP server "<name>" is closed`. One that is not running (never started, or
   *   stopped) is started first, once in the connection's life: after that it throws `MCP server "<name>" has
   *   stopped and was already restarted once; its tools are unavailable`, and a start that fails throws
   *   `MCP server "<name>" has stopped and could not be restarted: <why>`.
   * - It never hangs: a cancel through `options.signal` throws the signal's reason (the SDK tells the server the
   *   request is cancelled); a server that dies during the call gives
   *   `MCP server "<name>" stopped while running <tool>` (and stderrNote()); one that takes longer than
   *   callTimeoutMs gives `MCP server "<name>" did not answer <tool> within <ms> ms`; one that still asks for input
   *   after MAX_INPUT_ROUNDS answers (the SDK's SdkErrorCode.InputRequiredRoundsExceeded) gives
   *   `MCP server "<name>" still asked for input after <n> answers to <tool>: stopped there`; any other failure is
   *   `MCP server "<name>": <its text>`.
   * - While the call runs it is among the running calls (a question the server asks belongs to it), until it ends,
   *   however it ends; and each progress notification the server sends about it goes to `options.onProgress`.
   */
  async callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions = {}): Promise<CallToolResult> {
    // #region chapter 11: McpConnection.callTool
    // Write it from the contract above. Step by step instead: npm run reset -- chapter11 --guided
    throw new TodoError(11, 'McpConnection.callTool');
    // #endregion
  }

  /**
   * Ends the connection for good: it is `closed` at once, so that from then on a call fails and is never a
   * restart, and the server's process ending is not taken for a crash. Then the SDK's side is shut, which for a
   * stdio server ends its child process, and so is the line to the server itself: a start still asking
   * `server/discover` has not handed that line to the SDK yet, and shutting the SDK's side alone would leave it
   * waiting. Safe to call twice, and before the server was ever started.
   */
  async close(): Promise<void> {
    // #region chapter 11: McpConnection.close
    // Write it from the contract above. Step by step instead: npm run reset -- chapter11 --guided
    throw new TodoError(11, 'McpConnection.close');
    // #endregion
  }
}
