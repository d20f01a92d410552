/**
 * Chapter 11: an MCP server's tool as a kit `Tool`.
 *
 * The server describes each tool with a name, a description, a JSON Schema for its input and maybe annotations
 * (`readOnlyHint`). The adapter gives it a name that cannot collide with any other tool (`mcp__<server>__<tool>`,
 * Claude Code's naming), offers the model the server's schema as it is, checks the model's arguments against that
 * schema before anything is sent, and turns the server's result (a list of content blocks) into the text the model
 * reads. A server's error result stays an error result. Annotations are the server's claims about itself, wherever
 * the server was configured (a project's .mcp.json, --mcp-config, an editor): a tool is never read-only because its
 * server says so, so no claim lets a call run unasked, in plan mode or beside other calls.
 */
import { TodoError } from '../todo.js';
import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';
import { z } from 'zod';
import type { CallToolResult, Progress, Tool as McpToolInfo } from '@modelcontextprotocol/client';
import type { ToolProgressEvent } from '../agent-events.js';
import type { JsonSchema } from '../provider.js';
import type { Tool, ToolContext } from '../tool.js';
import { errorText } from '../safe-call.js';

export type { CallToolResult, McpToolInfo };

/** The longest tool name both providers accept, and the characters they allow. */
export const MAX_TOOL_NAME = 64;
const VALID_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The kit's name for `tool` of `server`: `mcp__<server>__<tool>` when that is a valid name (1-64 letters, digits,
 * `_`, `-`). Otherwise every other character becomes `_`, the name is cut to 55 characters, and `_` plus the first 8
 * hex digits of the SHA-256 of `server + "\0" + tool` are added: 64 at most, and two different tools (of one server
 * or of two) still get different names. Server names are at most 40 characters (config.ts), so the
 * `mcp__<server>__` prefix a permission rule matches is never cut.
 */
export function mcpToolName(server: string, tool: string): string {
  // #region chapter 11: mcpToolName
  // Write it from the contract above. Step by step instead: npm run reset -- chapter11 --guided
  throw new TodoError(11, 'mcpToolName');
  // #endregion
}

/** The schema as the model is shown it: without `$schema`, and always `type: "object"` (the providers require it). */
export function offeredSchema(schema: McpToolInfo['inputSchema']): JsonSchema {
  const { $schema: _drop, ...rest } = schema as JsonSchema;
  return { ...rest, type: 'object' };
}

/**
 * A zod type that accepts exactly the arguments `schema` (a JSON Schema from a server) accepts, so chapter 3's
 * executeToolCall checks them before the call as it checks any tool's, and reports what is wrong in the same way.
 *
 * - The schema is compiled once, when the type is made, with Ajv (given). Keywords and formats Ajv does not know
 *   are ignored, as JSON Schema says, and so is a `$schema` key (a draft Ajv does not know must not stop it).
 * - Arguments must be an object (not null, not an array), whatever the schema says; the issue says `object`.
 * - Every error the schema finds becomes an issue of its own, at the path of the value it is about, so the model
 *   learns each field that is wrong at once.
 * - A schema that does not compile is the server's fault: making the type never throws, and every call is refused
 *   with an issue that says the server's input `schema is invalid:` and gives Ajv's reason.
 */
export function jsonSchemaInput(schema: JsonSchema): z.ZodType<Record<string, unknown>> {
  // #region chapter 11: jsonSchemaInput
  // Write it from the contract above. Step by step instead: npm run reset -- chapter11 --guided
  throw new TodoError(11, 'jsonSchemaInput');
  // #endregion
}

/** The size of base64 data, for descriptions: "4.2 kB". */
export function describeSize(base64: string): string {
  const bytes = Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} kB`;
}

/**
 * The text the model reads for a server's result. Each item of the result's list gives one part, joined with "\n":
 * - text: its text;
 * - image / audio: `[image: <mimeType>, <size>]` (describeSize), never the base64 itself;
 * - resource: with text, `[resource <uri>]` then a newline and the text; with a blob,
 *   `[resource <uri>: <mimeType or binary>, <size>]`;
 * - resource_link: `[resource link: <name> <uri>]`;
 * - a kind the kit does not know is named, not dropped: `[<type> content]`.
 * With no text item, a structured result is added, stringified; with nothing at all (an empty list, or none given),
 * `(no content)`. A result the server marks as failed throws with that text, so that executeToolCall reports it as
 * failed, in the server's own words.
 */
export function toolResultText(result: CallToolResult): string {
  // #region chapter 11: toolResultText
  // Write it from the contract above. Step by step instead: npm run reset -- chapter11 --guided
  throw new TodoError(11, 'toolResultText');
  // #endregion
}

/** The tool_progress event of one progress notification, for the call `ctx` runs (turn and call id 0 and '' outside a loop). */
export function progressEvent(ctx: ToolContext, progress: Progress): ToolProgressEvent {
  return {
    type: 'tool_progress',
    turn: ctx.turn ?? 0,
    callId: ctx.callId ?? '',
    progress: progress.progress,
    ...(progress.total === undefined ? {} : { total: progress.total }),
    ...(progress.message === undefined ? {} : { message: progress.message }),
  };
}

/** A progress event as a short line for a terminal: `1/2 waiting for the file`, or `3` with no total and no message. */
export function progressText(event: ToolProgressEvent): string {
  return `${event.progress}${event.total === undefined ? '' : `/${event.total}`}${event.message ? ` ${event.message}` : ''}`;
}

/** How one tool call is made: its signal, the model's id for it, and where its progress goes while it runs. */
export interface McpCallOptions {
  signal?: AbortSignal;
  callId?: string;
  /** Called for each notifications/progress the server sends about this call, until the call ends. */
  onProgress?: (progress: Progress) => void;
}

/** What mcpTool needs of a server connection: its name and a way to call a tool (client.ts's McpConnection is one). */
export interface McpToolSource {
  readonly name: string;
  callTool(tool: string, args: Record<string, unknown>, options?: McpCallOptions): Promise<CallToolResult>;
}

/**
 * The kit Tool for one tool of a connected server, made from the helpers above:
 *
 * - called so that it cannot collide with another server's (mcpToolName), and described by the server, or as
 *   `<tool> (from MCP server <server>)` when the server says nothing (or only blanks) about it;
 * - offered to the model with the server's schema as it is (offeredSchema), and checking the model's arguments
 *   against that schema before anything is sent (jsonSchemaInput);
 * - never read-only, whatever its annotations claim: the hint is the server's claim about itself, and a read-only
 *   tool runs unasked in default and plan mode, so a server that writes could claim it;
 * - its call goes to the server's tool as the server knows it (not by the namespaced one), with the call's id, and
 *   cancelled when the call is; each progress notification that arrives while it runs is emitted at
 *   once as a tool_progress event (progressEvent; the context may have no emitter); and the model reads
 *   toolResultText of the result.
 */
export function mcpTool(connection: McpToolSource, info: McpToolInfo): Tool<Record<string, unknown>> {
  // #region chapter 11: mcpTool
  // Write it from the contract above. Step by step instead: npm run reset -- chapter11 --guided
  throw new TodoError(11, 'mcpTool');
  // #endregion
}
