/**
 * `npm run agent`: the part of chapter 11, MCP servers.
 *
 * Reads `.mcp.json` from the workspace (Claude Code's format) and every `--mcp-config FILE`, starts the servers they
 * name (all at once), and adds their tools as `mcp__<server>__<tool>`. A server that fails to start is noted and
 * left out: the agent runs without it. The hooks refresh a server's tools when it says its list changed; close()
 * ends every server's process.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentPart } from './part.js';

/** The servers of one file, or the text of what is wrong with it. */
function readConfig(file: string, parse: (json: unknown, env: NodeJS.ProcessEnv, source: string) => Record<string, unknown>, env: NodeJS.ProcessEnv, shown: string) {
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
  options: [{ name: 'mcp-config', value: true, repeat: true, help: 'FILE  MCP servers to start, in .mcp.json format (besides the workspace\'s .mcp.json)' }],
  async setup(ctx) {
    const given = ctx.options['mcp-config'];
    const extra = Array.isArray(given) ? given : typeof given === 'string' ? [given] : [];
    const local = path.join(ctx.cwd, '.mcp.json');
    // An untrusted folder's servers are programs and URLs its author chose: not started (scripts/lib/workspace-trust.ts).
    if (existsSync(local) && !ctx.trusted) ctx.note('(this folder is not trusted: its .mcp.json servers are not started; --trust-workspace trusts it)');
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

    const hub = await ctx.kit.McpServers.start(servers);
    const tools = await hub.tools();
    const counts = hub.connections.map((c) => `${c.name} (${tools.filter((t) => t.name.startsWith(`mcp__${c.name}__`)).length} tools)`);
    for (const failure of hub.failures) ctx.note(`mcp: ${failure.name} failed: ${failure.error}`);
    return {
      tools,
      hooks: hub.hooks(),
      banner: counts.length > 0 ? `mcp: ${counts.join(', ')}` : 'mcp: no server started',
      close: () => hub.close(),
    };
  },
};
