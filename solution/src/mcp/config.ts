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
  // 1. Replace every match of /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g (the name, then maybe a default).
  // 2. The value is env[name] when it is set and not empty; else the default when the reference has one (an empty
  //    default `${X:-}` counts: it gives "").
  // 3. With neither, throw a McpConfigError naming `where` and the variable: `${where}: environment variable NAME
  //    is not set`.
  // 4. Text without a reference comes back unchanged.
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_match, name: string, fallback: string | undefined) => {
      const value = env[name];
      if (value !== undefined && value !== '') return value;
      if (fallback !== undefined) return fallback;
      throw new McpConfigError(`${where}: environment variable ${name} is not set`);
    },
  );
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
  // 1. json must be an object with an object `mcpServers`, else throw `${source}: expected an object with "mcpServers"`.
  // 2. For each [name, entry]: the name must match SERVER_NAME and the entry be an object, else throw naming the
  //    server. The field of a message is `${source}: server "name": field`.
  // 3. type is entry.type ?? 'stdio'. 'http': url (a string, expanded, that new URL() parses with protocol http:
  //    or https:) and headers (an object of strings, each value expanded; {} when absent).
  // 4. 'stdio': command (a non-empty string, expanded), args (an array of strings, each expanded; [] when absent),
  //    env (an object of strings, each value expanded; {} when absent), cwd (a string, expanded) only when given.
  // 5. Any other type: throw naming the server and "type". Return the servers by name.
  if (!isRecord(json) || !isRecord(json.mcpServers))
    throw new McpConfigError(`${source}: expected an object with "mcpServers"`);
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, entry] of Object.entries(json.mcpServers)) {
    const at = `${source}: server "${name}"`;
    if (!SERVER_NAME.test(name))
      throw new McpConfigError(`${at}: the name must be 1-40 letters, digits, "-" or "_", without "__" or a final "_"`);
    if (!isRecord(entry)) throw new McpConfigError(`${at}: expected an object`);
    const text = (field: string, value: unknown): string => {
      if (typeof value !== 'string') throw new McpConfigError(`${at}: ${field} must be a string`);
      return expandVars(value, env, `${at}: ${field}`);
    };
    const strings = (field: string, value: unknown): Record<string, string> => {
      if (value === undefined) return {};
      if (!isRecord(value)) throw new McpConfigError(`${at}: ${field} must be an object of strings`);
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, text(`${field}.${key}`, item)]));
    };
    const type = entry.type ?? 'stdio';
    if (type === 'http') {
      const url = text('url', entry.url);
      let web = false;
      try {
        web = ['http:', 'https:'].includes(new URL(url).protocol);
      } catch {}
      if (!web) throw new McpConfigError(`${at}: url must be an http(s) URL, not "${url}"`);
      servers[name] = { type: 'http', url, headers: strings('headers', entry.headers) };
    } else if (type === 'stdio') {
      const command = text('command', entry.command);
      if (command.trim() === '') throw new McpConfigError(`${at}: command must not be empty`);
      if (entry.args !== undefined && !Array.isArray(entry.args))
        throw new McpConfigError(`${at}: args must be an array of strings`);
      const args = ((entry.args ?? []) as unknown[]).map((arg, i) => text(`args[${i}]`, arg));
      const server: StdioServerConfig = { type: 'stdio', command, args, env: strings('env', entry.env) };
      if (entry.cwd !== undefined) server.cwd = text('cwd', entry.cwd);
      servers[name] = server;
    } else {
      throw new McpConfigError(`${at}: type must be "stdio" or "http", not ${JSON.stringify(type)}`);
    }
  }
  return servers;
  // #endregion
}
