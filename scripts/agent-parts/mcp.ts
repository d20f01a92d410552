/**
 * `npm run agent`: the part of chapter 11, MCP servers.
 *
 * Reads `.mcp.json` from the workspace (Claude Code's format) and every `--mcp-config FILE`, starts the servers they
 * name (all at once), and adds their tools as `mcp__<server>__<tool>`. A server that fails to start is noted and
 * left out: the agent runs without it. The hooks refresh a server's tools when it says its list changed; close()
 * ends every server's process. A server's question to the person (elicitation) is asked at the terminal, a yes or a
 * no (with nobody there, -p, it is declined); a server's progress on a running call is shown as a dim line.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentPart, PartContext } from './part.js';
import type { AskPermission } from '../../solution/src/permissions/gate.js';

/** The question's text, every control character escaped (JSON does C0; C1 and bidirectional ones too). */
const shown = (value: unknown) =>
  JSON.stringify(value).replace(
    /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** Chapter 11's ask for a server's question, at the terminal: y or n, asked again until it is one of them. */
function terminalAsk(ctx: PartContext): AskPermission {
  return async (request, signal) => {
    let line = await ctx.ask(
      `  ${ctx.paint.yellow(`${request.reason} (${request.call.name}):`)}\n    ${shown(request.call.arguments)}\n  [y]es / [n]o`,
      signal,
    );
    for (;;) {
      if (line === undefined) return undefined;
      const key = line.trim().toLowerCase();
      if (key === 'y' || key === 'yes') return 'allow_once';
      if (key === 'n' || key === 'no') return 'reject_once';
      line = await ctx.ask(`  ${ctx.paint.yellow('Answer with one key:')} [y]es / [n]o`, signal);
    }
  };
}

/** The servers of one file, or the text of what is wrong with it. */
function readConfig(
  file: string,
  parse: (json: unknown, env: NodeJS.ProcessEnv, source: string) => Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  shown: string,
) {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${shown}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parse(json, env, shown);
}

export const part: AgentPart = {
  name: 'mcp',
  chapter: 11,
  options: [
    {
      name: 'mcp-config',
      value: true,
      repeat: true,
      help: "FILE  MCP servers to start, in .mcp.json format (besides the workspace's .mcp.json)",
    },
  ],
  async setup(ctx) {
    const given = ctx.options['mcp-config'];
    const extra = Array.isArray(given) ? given : typeof given === 'string' ? [given] : [];
    const local = path.join(ctx.cwd, '.mcp.json');
    // An untrusted folder's servers are programs and URLs its author chose: not started (scripts/lib/workspace-trust.ts).
    if (existsSync(local) && !ctx.trusted)
      ctx.note('(this folder is not trusted: its .mcp.json servers are not started; --trust-workspace trusts it)');
    const files = [...(existsSync(local) && ctx.trusted ? [{ file: local, shown: '.mcp.json', required: false }] : [])];
    const base = ctx.env.INIT_CWD ?? process.cwd();
    for (const file of extra) files.push({ file: path.resolve(base, file), shown: file, required: true });
    if (files.length === 0) return undefined;

    const servers: Record<string, import('../../solution/src/mcp/config.js').McpServerConfig> = {};
    for (const { file, shown, required } of files) {
      if (required && !existsSync(file)) throw new Error(`--mcp-config ${shown}: no such file`);
      try {
        Object.assign(servers, readConfig(file, ctx.kit.parseMcpConfig, ctx.env, shown));
      } catch (error) {
        if (error instanceof Error && error.name === 'TodoError') throw error;
        // A bad file is the person's to fix; the agent still runs, without those servers.
        ctx.note(`mcp: ${error instanceof Error ? error.message : String(error)} (its servers are not started)`);
      }
    }
    if (Object.keys(servers).length === 0) return undefined;

    const hub = await ctx.kit.McpServers.start(servers, { ask: terminalAsk(ctx) });
    const tools = await hub.tools();
    const counts = hub.connections.map(
      (c) => `${c.name} (${tools.filter((t) => t.name.startsWith(`mcp__${c.name}__`)).length} tools)`,
    );
    for (const failure of hub.failures) ctx.note(`mcp: ${failure.name} failed: ${failure.error}`);
    return {
      tools,
      hooks: hub.hooks(),
      banner: counts.length > 0 ? `mcp: ${counts.join(', ')}` : 'mcp: no server started',
      render: (event) =>
        event.type === 'tool_progress'
          ? ctx.paint.dim(
              `  ⋯ ${ctx.kit.progressText(event).replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '?')}`,
            )
          : undefined,
      close: () => hub.close(),
    };
  },
};
