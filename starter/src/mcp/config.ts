/**
 * Chapter 11: which MCP servers to start, from a `.mcp.json` file in Claude Code's format.
 *
 * ```json
 * { "mcpServers": {
 *     "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything", "stdio"] },
 *     "docs": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer ${DOCS_TOKEN}" } } } }
 * ```
 *
 * A stdio server is a command the agent starts (`command`, `args`, `env`, optional `cwd`); an HTTP server is a URL
 * the agent posts to (`type: "http"`, `url`, `headers`). Every string may use `${VAR}` or `${VAR:-default}` to take a
 * value from the environment, so secrets stay out of the file. A bad entry is an error that names the server and
 * the field, because the person fixing the file needs to know exactly where to look.
 */
import { TodoError } from '../todo.js';

/** A server the agent starts as a child process and talks to over its stdin and stdout. */
export interface StdioServerConfig {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** A server the agent reaches over streamable HTTP. */
export interface HttpServerConfig {
  type: 'http';
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = StdioServerConfig | HttpServerConfig;

/**
 * Server names: 1-40 letters, digits, `-` and `_`, without `__` and not ending in `_`. Two underscores end the
 * server's part of a tool's name (`mcp__<server>__<tool>`): with these rules the first `__` after `mcp__` always
 * does, so two servers' tools can never get the same name (`a__b` + `c` and `a` + `b__c` would).
 */
export const SERVER_NAME = /^(?!.*__)(?!.*_$)[a-zA-Z0-9_-]{1,40}$/;

/** An error in an MCP configuration; the message names the server and the field. */
export class McpConfigError extends Error {
  override name = 'McpConfigError';
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `text` with every `${VAR}` replaced by env.VAR and every `${VAR:-default}` by env.VAR, or by the default when VAR
 * is unset or empty (an empty default gives ""). Only that form is a reference (letters, digits and `_`, not
 * starting with a digit): `$VAR` and `{VAR}` are plain text, and text without a reference comes back unchanged.
 * A variable unset or empty with no default throws a McpConfigError that says `where`, then the variable.
 */
export function expandVars(text: string, env: Record<string, string | undefined>, where: string): string {
  // #region chapter 11: expandVars
  // Write it from the contract above. Step by step instead: npm run reset -- chapter11 --guided
  throw new TodoError(11, 'expandVars');
  // #endregion
}

/**
 * The servers of a parsed `.mcp.json` (`{ mcpServers: { name: entry } }`), by name, as McpServerConfig values (the
 * types above say what each kind holds: absent args, env and headers are empty; cwd only when given), with every
 * string expanded (expandVars).
 *
 * Throws a McpConfigError for: a file without an `mcpServers` object (an array is not one); a server name that is
 * not SERVER_NAME; an entry that is not an object; a `type` other than "stdio" (the default) or "http"; a stdio
 * entry without a non-empty `command` string; `args` that is not an array of strings; `env` or `headers` that is
 * not an object of strings; an http entry without a `url` that parses as an http(s) URL; a variable with no value.
 * The person fixing the file must know where to look: every message starts with `source` (the file's path), then
 * names the server and the field as `server "fs": cwd`, the field of an object's key as `headers.Authorization`.
 */
export function parseMcpConfig(
  json: unknown,
  env: Record<string, string | undefined> = process.env,
  source = '.mcp.json',
): Record<string, McpServerConfig> {
  // #region chapter 11: parseMcpConfig
  // Write it from the contract above. Step by step instead: npm run reset -- chapter11 --guided
  throw new TodoError(11, 'parseMcpConfig');
  // #endregion
}
