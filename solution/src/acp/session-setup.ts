/**
 * Chapter 14: what a client asks for when it opens a session, in the kit's own terms.
 *
 * session/new carries the folder to work in, the MCP servers the editor wants the agent to use (Zed passes the
 * context servers the person configured), and `_meta`, where a client may put things the protocol does not define
 * yet: here, `systemPrompt`, to replace the agent's system prompt (a string) or add to it (`{ append }`). Both are
 * turned into chapter 11's server configuration and chapter 12's prompt choice before the agent is built.
 */
import { RequestError, type McpServer, type SessionMode } from '@agentclientprotocol/sdk';
import { z } from 'zod';
import type { McpServerConfig } from '../mcp/config.js';
import { SERVER_NAME } from '../mcp/config.js';
import { PERMISSION_MODES, type PermissionMode } from '../permissions/evaluate.js';
import { SESSION_ID } from './saved-sessions.js';

/** How a client's `_meta.systemPrompt` changes the agent's system prompt. */
export type SystemPromptChoice = { replace: string } | { append: string };

/** The session modes a client can switch between: chapter 8's permission modes, named for people. */
export const SESSION_MODES: SessionMode[] = [
  { id: 'default', name: 'Default', description: 'Ask before edits and commands' },
  { id: 'acceptEdits', name: 'Accept edits', description: 'Edit files without asking; ask before commands' },
  { id: 'plan', name: 'Plan', description: 'Read and plan; change nothing until the plan is approved' },
  { id: 'bypassPermissions', name: 'Bypass permissions', description: 'Run everything without asking' },
];

/** True when `mode` is one of chapter 8's modes. */
export function isPermissionMode(mode: string): mode is PermissionMode {
  return (PERMISSION_MODES as readonly string[]).includes(mode);
}

/**
 * The client's MCP servers (ACP's McpServer) as chapter 11's configuration (McpServerConfig), keyed by name, in the
 * order given. A stdio one (the member of the union with no tag) keeps how it is started (command and arguments),
 * and its list of environment variables becomes an object of name to value; an http one keeps its URL, and its
 * header list becomes an object the same way.
 *
 * Refused, with a RequestError of invalid params whose message names it and says why, so that a session is never
 * opened without a server the person asked for: SSE (an older transport chapter 11 does not speak: use streamable
 * HTTP or stdio), a name chapter 11 would refuse (SERVER_NAME, given), and a name given twice.
 */
export function mcpServersFromAcp(servers: readonly McpServer[]): Record<string, McpServerConfig> {
  // #region chapter 14: mcpServersFromAcp
  // 1. For each server: a name SERVER_NAME refuses, or one already seen → throw RequestError.invalidParams(undefined,
  //    message) that names it and says why.
  // 2. type 'http' → { type: 'http', url, headers } with headers made a record (name → value).
  //    type 'sse' → throw invalidParams naming the server: SSE is not supported, use streamable HTTP or stdio.
  //    no type (stdio) → { type: 'stdio', command, args, env } with env made a record (name → value).
  // 3. Return them as a record by name, in the order given.
  const configs: Record<string, McpServerConfig> = {};
  const record = (pairs: readonly { name: string; value: string }[]) =>
    Object.fromEntries(pairs.map((pair) => [pair.name, pair.value]));
  for (const server of servers) {
    if (!SERVER_NAME.test(server.name)) {
      throw RequestError.invalidParams(
        undefined,
        `MCP server name ${JSON.stringify(server.name)}: use 1-40 letters, digits, "-" or "_" (no "__")`,
      );
    }
    if (server.name in configs)
      throw RequestError.invalidParams(undefined, `MCP server "${server.name}" is given twice`);
    if ('type' in server && server.type === 'sse') {
      throw RequestError.invalidParams(
        undefined,
        `MCP server "${server.name}" uses SSE, which this agent does not support: use streamable HTTP or stdio`,
      );
    }
    configs[server.name] =
      'type' in server && server.type === 'http'
        ? { type: 'http', url: server.url, headers: record(server.headers) }
        : {
            type: 'stdio',
            command: (server as { command: string }).command,
            args: (server as { args: string[] }).args,
            env: record((server as { env: { name: string; value: string }[] }).env),
          };
  }
  return configs;
  // #endregion
}

/**
 * `_meta.systemPrompt` of session/new (or load), as chapter 12's prompt choice: a string or `{ replace: string }`
 * replaces the system prompt, `{ append: string }` adds to it, and when both are given, replace wins. Absent or null
 * (or no meta at all): undefined, the agent's own prompt.
 *
 * Any other shape (a number, an array, a record with neither key, or with either of the wrong type) is a
 * RequestError of invalid params whose message shows the shapes accepted (the tests look for `replace` and `append`):
 * a client that meant to change the prompt must hear that it did not.
 */
export function systemPromptFromMeta(meta: Record<string, unknown> | null | undefined): SystemPromptChoice | undefined {
  // #region chapter 14: systemPromptFromMeta
  // 1. No meta, or no systemPrompt key in it (or null): undefined.
  // 2. A string: { replace: it }.
  // 3. A plain object (not an array): its `replace` and `append`, each either absent or a string (any other type is
  //    refused as in step 4). A replace → { replace } (it wins over an append given with it); else an append →
  //    { append }; neither → refused.
  // 4. Anything else: throw RequestError.invalidParams(undefined, message) saying _meta.systemPrompt must be a
  //    string, { replace: string } or { append: string }.
  const value = meta?.systemPrompt;
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return { replace: value };
  if (typeof value === 'object' && !Array.isArray(value)) {
    const { replace, append } = value as { replace?: unknown; append?: unknown };
    const fits = (part: unknown) => part === undefined || typeof part === 'string';
    if (fits(replace) && fits(append)) {
      if (typeof replace === 'string') return { replace };
      if (typeof append === 'string') return { append };
    }
  }
  throw RequestError.invalidParams(
    undefined,
    '_meta.systemPrompt must be a string or { "replace": string } (to replace the system prompt), or { "append": string } (to add to it); with both, replace wins',
  );
  // #endregion
}

/**
 * `_meta.claudeCode.options.resume` of session/new: the id of a saved session to continue instead of starting a new
 * one (the way Claude Code's own ACP adapter takes it). Undefined when any step of that path is absent, null or not
 * a record; the keys beside them belong to other agents and are left alone. An id that is not a session id
 * (SESSION_ID, given) is a RequestError of invalid params whose message says it must be a `session id`: it comes
 * from the client, and it names a file.
 */
export function resumeFromMeta(meta: Record<string, unknown> | null | undefined): string | undefined {
  // #region chapter 14: resumeFromMeta
  // 1. Walk meta → claudeCode → options → resume; stop with undefined at the first step that is not an object (or
  //    at a resume that is undefined or null). Other keys beside them belong to other agents: leave them alone.
  // 2. A string that matches SESSION_ID: return it.
  // 3. Anything else: throw RequestError.invalidParams(undefined, message) that says it must be a session id.
  const object = (value: unknown) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  const options = object(object(meta?.claudeCode)?.options);
  const resume = options?.resume;
  if (resume === undefined || resume === null) return undefined;
  if (typeof resume === 'string' && SESSION_ID.test(resume)) return resume;
  throw RequestError.invalidParams(
    undefined,
    `_meta.claudeCode.options.resume must be a session id (letters, digits, "-" and "_"), not ${JSON.stringify(resume)}`,
  );
  // #endregion
}

const namedValue = z.object({ name: z.string(), value: z.string() });
const remoteServer = { name: z.string(), url: z.string(), headers: z.array(namedValue) };
const forkSessionSchema = z.object({
  sessionId: z.string(),
  cwd: z.string(),
  mcpServers: z
    .array(
      z.union([
        z.object({ type: z.literal('http'), ...remoteServer }),
        z.object({ type: z.literal('sse'), ...remoteServer }),
        z.object({ name: z.string(), command: z.string(), args: z.array(z.string()), env: z.array(namedValue) }),
      ]),
    )
    .optional(),
  _meta: z.record(z.string(), z.unknown()).nullish(),
});

/** session/fork's params: the fields of ACP's (unstable) ForkSessionRequest the server reads. */
export type ForkSessionParams = z.infer<typeof forkSessionSchema>;

/**
 * session/fork's params, checked as the SDK checks a stable method's: anything else is invalid params (-32602) that
 * say what is wrong. The SDK's stable entry point does not route session/fork (it is in `/unstable`), so app.ts
 * registers it by name with this parser.
 */
export function parseForkParams(params: unknown): ForkSessionParams {
  const parsed = forkSessionSchema.safeParse(params);
  if (!parsed.success) throw RequestError.invalidParams(undefined, `session/fork: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
