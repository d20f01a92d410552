/**
 * Chapter 11: all of an agent's MCP servers together.
 *
 * `McpServers.start` connects every configured server at once (a server that fails is noted, not fatal: the agent
 * runs without it), `tools()` gives every server's tools as kit Tools, `hooks()` keeps them current when a server
 * says its list changed, and `close()` ends them all.
 */
import { errorText } from '../safe-call.js';
import type { HookContext, Hooks } from '../hooks.js';
import type { ModelRequest } from '../provider.js';
import { toolDefinition, type Tool } from '../tool.js';
import { mcpTool } from './adapter.js';
import { McpConnection, type McpConnectionOptions, type TransportFactory } from './client.js';
import type { McpServerConfig } from './config.js';

/** A server that could not be used, and why. */
export interface McpFailure {
  name: string;
  error: string;
}

/** The largest input schema a server's tool may have (as JSON): it is sent with every request. */
export const MAX_SCHEMA_CHARS = 64 * 1024;

/**
 * The kit Tools of a running server, in the server's order; a second tool with the same kit name is left out, and
 * so is a tool whose input schema is bigger than MAX_SCHEMA_CHARS (noted in `skipped`, for the person).
 */
export async function toolsOf(connection: McpConnection, skipped: string[] = []): Promise<Tool[]> {
  const tools = new Map<string, Tool>();
  for (const info of await connection.listTools()) {
    const size = JSON.stringify(info.inputSchema ?? {}).length;
    if (size > MAX_SCHEMA_CHARS) {
      skipped.push(
        `MCP server "${connection.name}": tool "${info.name}" left out: its input schema is ${size} characters, more than ${MAX_SCHEMA_CHARS}`,
      );
      continue;
    }
    const tool = mcpTool(connection, info);
    if (!tools.has(tool.name)) tools.set(tool.name, tool);
  }
  return [...tools.values()];
}

/** The prefix every tool name of that server starts with: `mcp__<server>__`. */
export const toolPrefix = (server: string) => `mcp__${server}__`;

export class McpServers {
  /** The servers that started, in the order they were given. */
  readonly connections: McpConnection[] = [];
  /** The servers that could not start or list their tools. */
  readonly failures: McpFailure[] = [];

  /** Starts every server at once and waits for all of them; the ones that fail are in `failures`. */
  static async start(
    servers: Record<string, McpServerConfig | TransportFactory>,
    options: McpConnectionOptions = {},
  ): Promise<McpServers> {
    const hub = new McpServers();
    const started = await Promise.all(
      Object.entries(servers).map(async ([name, server]) => {
        try {
          const connection = new McpConnection(name, server, options);
          hub.connections.push(connection); // closed by close() even if it fails to start
          await connection.connect();
          return connection;
        } catch (error) {
          hub.failures.push({ name, error: errorText(error) });
          return undefined;
        }
      }),
    );
    hub.connections.splice(0, hub.connections.length, ...started.filter((c): c is McpConnection => c !== undefined));
    return hub;
  }

  /** Every running server's tools. A server whose listing fails is moved to `failures`. */
  async tools(): Promise<Tool[]> {
    const lists = await Promise.all(
      this.connections.map(async (connection) => {
        try {
          const skipped: string[] = [];
          const tools = await toolsOf(connection, skipped);
          for (const note of skipped) this.failures.push({ name: connection.name, error: note });
          return tools;
        } catch (error) {
          this.failures.push({
            name: connection.name,
            error: `MCP server "${connection.name}" could not list its tools: ${errorText(error)}`,
          });
          return [];
        }
      }),
    );
    return lists.flat();
  }

  /** The hooks that keep the run's tools current (see refreshTools). */
  hooks(): Hooks {
    return { beforeModelCall: (request, ctx) => this.refreshTools(request, ctx) };
  }

  /**
   * Before a model call: for every server that runs and whose list is new (`toolsChanged`), swap its tools in the
   * run's ToolSet (ctx.tools) and in the request for the ones it offers now (toolsOf), so the model is shown exactly
   * what can run, and what was removed is gone. A server's tools are those whose names start with its toolPrefix.
   *
   * - Returns the new request, or undefined when nothing was swapped; then it lists nothing (nor without ctx.tools).
   * - A change that arrives while the list is being read must not be lost: it is seen at the next model call.
   * - A server whose new list cannot be read offers nothing until it changes again; the others keep theirs.
   * - A stopped server's tools stay as they were (a call may restart it), and it is not listed.
   */
  async refreshTools(request: ModelRequest, ctx: HookContext): Promise<ModelRequest | undefined> {
    // #region chapter 11: McpServers.refreshTools
    // 1. Without ctx.tools there is nothing to refresh: return undefined.
    // 2. For each connection of this.connections whose toolsChanged is set and whose state is `running`: clear the
    //    flag first (a change that arrives while listing sets it again), then list its tools now with toolsOf (if
    //    that throws, the server offers nothing until its next change).
    // 3. Take out of ctx.tools every tool whose name starts with toolPrefix(connection.name) (ToolSet.remove), then
    //    add the new ones; in the request's tools, drop the definitions with that prefix and append the new
    //    ones' toolDefinition.
    // 4. Return { ...request, tools } when a server was refreshed, else undefined.
    const tools = ctx.tools;
    if (!tools) return undefined;
    let definitions = request.tools;
    let changed = false;
    for (const connection of this.connections) {
      if (!connection.toolsChanged || connection.state !== 'running') continue;
      connection.toolsChanged = false;
      const fresh = await toolsOf(connection).catch(() => []);
      const prefix = toolPrefix(connection.name);
      for (const name of tools.names()) if (name.startsWith(prefix)) tools.remove(name);
      for (const tool of fresh) tools.add(tool);
      definitions = [
        ...definitions.filter((definition) => !definition.name.startsWith(prefix)),
        ...fresh.map(toolDefinition),
      ];
      changed = true;
    }
    return changed ? { ...request, tools: definitions } : undefined;
    // #endregion
  }

  /** Closes every server (each child process ends); errors are ignored, so one bad server cannot keep others open. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close().catch(() => {})));
  }
}
