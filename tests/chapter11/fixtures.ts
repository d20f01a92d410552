/**
 * Helpers for the chapter 11 tests: MCP servers that live in the test process (the v2 server package's low-level
 * `Server` over an `InMemoryTransport`), so a test decides exactly what a server offers, answers, and when it dies;
 * servers on each protocol revision (revisionServer: 2026-07-28, 2025-11-25, or both); the v2 fixture server as a child process (v2-server.mjs); and an agent on a scripted model that uses their tools.
 */
import path from 'node:path';
import {
  InMemoryTransport,
  McpServer,
  Server,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type ServerContext,
  type ElicitRequestFormParams,
  type ElicitResult,
  type Tool as McpToolInfo,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { afterAll } from 'vitest';
import * as z from 'zod';
import type { McpServerConfig, StdioServerConfig } from 'kit/mcp/config';
import type { AgentEvent, DoneEvent } from 'kit/agent-events';
import type { Hooks } from 'kit/hooks';
import { Agent } from 'kit/agent';
import { McpServers } from 'kit/mcp/servers';
import { assistantText, assistantToolCalls, type Message, type ToolResultMessage } from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import { ToolSet, type Tool } from 'kit/tool';
import { REAL_SERVER_MS } from '../helpers/limits.js';
import { HANG_MS } from '../helpers/wait.js';

export interface ReceivedCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Aborted when the client cancels the request (notifications/cancelled). */
  signal: AbortSignal;
  /** Asks the client's person a form question (elicitation/create) in the middle of this call. */
  elicit(params: ElicitRequestFormParams): Promise<ElicitResult>;
  /** Sends notifications/progress about this call (nothing when the client asked for none). */
  progress(progress: number, total?: number, message?: string): Promise<void>;
}

type Handler = (args: Record<string, unknown>, call: ReceivedCall) => CallToolResult | Promise<CallToolResult>;

export interface FakeTool {
  info: McpToolInfo;
  handler?: Handler;
}

/** A tool description with a schema of string fields (all required). */
export function toolInfo(name: string, fields: string[] = [], extra: Partial<McpToolInfo> = {}): McpToolInfo {
  return {
    name,
    description: `${name} tool`,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [f, { type: 'string' }])),
      required: fields,
    },
    ...extra,
  };
}

export const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/**
 * A server in this process. `factory` makes a fresh connection to it (a new `Server` on a new linked pair), as a
 * restart would; `kill()` closes the current one from the server's side, as a crash does. `calls` records every
 * tools/call it received, `connections` how many times a client connected.
 */
export function fakeServer(tools: FakeTool[], options: { silent?: boolean } = {}) {
  const state = {
    tools: [...tools],
    calls: [] as ReceivedCall[],
    connections: 0,
    current: undefined as { server: Server; transport: InMemoryTransport } | undefined,
    /** Who connected last (the client's name and version, from initialize). */
    client: undefined as { name: string; version: string } | undefined,
    /** What that client said it can do (initialize's capabilities). */
    capabilities: undefined as Record<string, unknown> | undefined,
    /** When set, tools/list fails with this message. */
    listFails: undefined as string | undefined,
  };
  const factory = () => {
    const [client, side] = InMemoryTransport.createLinkedPair();
    if (options.silent) return client; // nobody answers: initialize never returns
    const server = new Server({ name: 'fake', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler('tools/list', () => {
      if (state.listFails) throw new Error(state.listFails);
      return { tools: state.tools.map((t) => t.info) };
    });
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      const call: ReceivedCall = {
        name: request.params.name,
        arguments: request.params.arguments ?? {},
        signal: ctx.mcpReq.signal,
        elicit: (params) => ctx.mcpReq.elicitInput(params),
        progress: async (progress, total, message) => {
          if (token !== undefined)
            await ctx.mcpReq.notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress, total, message },
            });
        },
      };
      state.calls.push(call);
      const tool = state.tools.find((t) => t.info.name === call.name);
      if (!tool) return { content: [{ type: 'text', text: `no tool ${call.name}` }], isError: true };
      return tool.handler ? tool.handler(call.arguments, call) : text(`${call.name} ran`);
    });
    server.oninitialized = () => {
      state.client = server.getClientVersion();
      state.capabilities = server.getClientCapabilities();
    };
    state.connections++;
    state.current = { server, transport: side };
    void server.connect(side);
    return client;
  };
  return {
    state,
    factory,
    /** The server side closes, as when its process dies. */
    kill: async () => {
      await state.current?.transport.close();
    },
    /** Changes the offered tools and tells the client (notifications/tools/list_changed). */
    changeTools: async (next: FakeTool[]) => {
      state.tools = [...next];
      await state.current?.server.sendToolListChanged();
    },
  };
}

/**
 * The v2 fixture server (v2-server.mjs, on @modelcontextprotocol/server 2.4.0) as a stdio server entry: it speaks
 * 2026-07-28 and the 2025 revisions, or with `legacy` 2025-11-25 alone.
 */
export const v2ServerConfig = (options: { legacy?: boolean } = {}): StdioServerConfig => ({
  type: 'stdio',
  command: process.execPath,
  args: [path.join(import.meta.dirname, 'v2-server.mjs'), ...(options.legacy ? ['--legacy'] : [])],
  env: {},
});

/** A tool call turn for the scripted model. */
export const callTurn = (...calls: Array<[id: string, name: string, args: unknown]>) =>
  assistantToolCalls(calls.map(([id, name, args]) => ({ id, name, arguments: args })));

/** Runs `steps` of a scripted model with these tools and hooks; returns the events, history, provider and done. */
export async function runAgent(
  tools: ToolSet | Tool[],
  steps: ReturnType<typeof assistantText>[],
  hooks?: Hooks | Hooks[],
) {
  const provider = new MockProvider([...steps, assistantText('done')]);
  const toolSet = tools instanceof ToolSet ? tools : new ToolSet(tools);
  const agent = new Agent({ provider, tools: toolSet, cwd: process.cwd(), hooks });
  const history: Message[] = [{ role: 'user', content: 'go' }];
  const events: AgentEvent[] = [];
  for await (const event of agent.run(history)) events.push(event);
  const done = events.find((e): e is DoneEvent => e.type === 'done')!;
  return { events, history, provider, done, toolSet };
}

/** The result message of call `id` in a history. */
export function resultOf(history: readonly Message[], id: string): ToolResultMessage {
  const found = history.find((m): m is ToolResultMessage => m.role === 'tool' && m.toolCallId === id);
  if (!found) throw new Error(`no result for call ${id} in the history (the run ended before it?)`);
  return found;
}

/** Whether a process with that id is still alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `pid` has exited, for as long as only a hang takes (HANG_MS); returns whether it did. */
export async function gone(pid: number): Promise<boolean> {
  const until = Date.now() + HANG_MS;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return !alive(pid);
}

/**
 * What `promise` settles with, or a failure with `message` when it has not settled after HANG_MS (so a call that
 * hangs fails the test with a message that says where to look, long before the test's own timeout). The limits a
 * wrong solution would wait out instead (the SDK's 60 s) are longer than that.
 */
export { within } from '../helpers/wait.js';

/**
 * Real servers shared by every test of a file: started on first use (each test that needs them awaits the getter),
 * closed once after the file. A start that fails (a stub not written yet) fails each test that needs the servers,
 * with the same error.
 */
export function sharedServers(
  servers: Record<string, McpServerConfig>,
  options: Parameters<typeof McpServers.start>[1] = {},
) {
  let ready: Promise<{ hub: McpServers; tools: Tool[] }> | undefined;
  afterAll(async () => {
    const started = await ready?.catch(() => undefined);
    await started?.hub.close();
  });
  return () =>
    (ready ??= (async () => {
      const hub = await McpServers.start(servers, {
        startupTimeoutMs: REAL_SERVER_MS,
        callTimeoutMs: REAL_SERVER_MS,
        ...options,
      });
      if (hub.failures.length > 0) throw new Error(hub.failures.map((f) => f.error).join('; '));
      return { hub, tools: await hub.tools() };
    })());
}

/** What a revision server speaks: both eras (the SDK's serveStdio), 2026-07-28 alone, or 2025-11-25 alone. */
export type Speaks = 'both' | '2026-07-28' | '2025-11-25';

/** One tools/call a revision server received, with the answers a retried call brought back. */
export interface RevisionCall {
  name: string;
  arguments: Record<string, unknown>;
  /** The `inputResponses` of a retried call (2026-07-28), or what the SDK's legacy shim collected (2025). */
  inputResponses: Record<string, unknown> | undefined;
  /** Whether the call came on a 2026-07-28 request (it carries the per-request `_meta` envelope). */
  modern: boolean;
}

const confirmSchema = {
  type: 'object' as const,
  properties: { confirm: { type: 'boolean' as const, title: 'Confirm' } },
  required: ['confirm'],
};

/**
 * A server in this process built on the v2 server package's McpServer, speaking `speaks`: 'both' and '2026-07-28' are
 * served by the SDK's serveStdio over an in-memory pair ('2026-07-28' rejects `initialize`), '2025-11-25' is a plain
 * `connect`, where `server/discover` is an unknown method. Its tools ask the person the stateless way (an
 * `input_required` result; on a 2025 connection the SDK's shim sends it as elicitation/create):
 * - deploy {env}: "Really deploy to <env>?" (one boolean `confirm`), then `deploy: <action> <content as JSON>`;
 * - ask_name {}: a required text field `name`, then `name: <action> <content as JSON>`;
 * - nag {}: asks again whatever the answer (a server that never stops asking);
 * - echo {message}: `echo: <message>`.
 * `seen` lists the methods the client sent, in order (`initialize <version>` with the version it offered).
 */
export function revisionServer(speaks: Speaks) {
  const state = { calls: [] as RevisionCall[], seen: [] as string[], connections: 0 };
  const make = () => {
    const server = new McpServer({ name: `speaks-${speaks}`, version: '1.0.0' }, { capabilities: { tools: {} } });
    const record = (name: string, args: Record<string, unknown>, ctx: ServerContext) => {
      state.calls.push({
        name,
        arguments: args,
        inputResponses: ctx.mcpReq.inputResponses as Record<string, unknown> | undefined,
        modern: ctx.mcpReq.envelope !== undefined,
      });
    };
    const ask = (
      ctx: ServerContext,
      key: string,
      params: Parameters<typeof inputRequired.elicit>[0],
      label: string,
    ) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, key);
      if (answer.kind !== 'elicit')
        return inputRequired({ inputRequests: { [key]: inputRequired.elicit(params) } }) as never;
      return text(`${label}: ${answer.action} ${JSON.stringify(answer.content ?? null)}`);
    };
    server.registerTool('deploy', { inputSchema: z.object({ env: z.string() }) }, async (args, ctx) => {
      record('deploy', args, ctx);
      return ask(
        ctx,
        'confirm',
        { message: `Really deploy to ${args.env}?`, requestedSchema: confirmSchema },
        'deploy',
      );
    });
    server.registerTool('ask_name', { inputSchema: z.object({}) }, async (args, ctx) => {
      record('ask_name', args, ctx);
      const schema = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };
      return ask(ctx, 'name', { message: 'Your name?', requestedSchema: schema }, 'name');
    });
    server.registerTool('nag', { inputSchema: z.object({}) }, async (args, ctx) => {
      record('nag', args, ctx);
      const round = state.calls.filter((c) => c.name === 'nag').length;
      return inputRequired({
        inputRequests: {
          [`again${round}`]: inputRequired.elicit({ message: `Sure? (${round})`, requestedSchema: confirmSchema }),
        },
      }) as never;
    });
    server.registerTool('echo', { inputSchema: z.object({ message: z.string() }) }, async (args, ctx) => {
      record('echo', args, ctx);
      return text(`echo: ${args.message}`);
    });
    return server;
  };
  const factory = () => {
    const [client, side] = InMemoryTransport.createLinkedPair();
    state.connections++;
    const send = client.send.bind(client);
    client.send = (message, options) => {
      if ('method' in message) {
        const offered = (message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
        state.seen.push(message.method === 'initialize' ? `initialize ${String(offered)}` : message.method);
      }
      return send(message, options);
    };
    if (speaks === '2025-11-25') void make().connect(side);
    else serveStdio(make, { transport: side, legacy: speaks === 'both' ? 'serve' : 'reject' });
    return client;
  };
  return { state, factory };
}
