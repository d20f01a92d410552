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
  // 1. Build `mcp__${server}__${tool}`; if it matches /^[a-zA-Z0-9_-]{1,64}$/, return it as it is.
  // 2. Else replace every character outside [a-zA-Z0-9_-] with "_" and keep the first 55 characters.
  // 3. Add "_" and the first 8 hex digits of createHash('sha256').update(`${server}\0${tool}`).digest('hex'): the
  //    hash of the original names keeps two names that clean up the same ("a.b", "a b") apart.
  const full = `mcp__${server}__${tool}`;
  if (VALID_NAME.test(full)) return full;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${full.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 55)}_${hash}`;
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
  // 1. Compile the schema once, here, with new Ajv({ strict: false, allErrors: true, validateFormats: false,
  //    logger: false }).compile(schema without its `$schema` key). If compiling throws, keep its message instead.
  // 2. Return z.unknown().superRefine((value, ctx) => ...) that adds a custom issue (ctx.addIssue({ code: 'custom',
  //    message, path })) when: the value is not a plain object ("arguments must be an object"); the schema did not
  //    compile ("the server's input schema is invalid: ..."); or the compiled validator rejects the value, one
  //    issue per error in validate.errors, its message the error's message and its path the error's
  //    instancePath split on "/" (empty parts dropped).
  // 3. Cast the result to z.ZodType<Record<string, unknown>>.
  const { $schema: _drop, ...body } = schema;
  let validate: ReturnType<Ajv['compile']> | undefined;
  let broken: string | undefined;
  try {
    validate = new Ajv({ strict: false, allErrors: true, validateFormats: false, logger: false }).compile(body);
  } catch (error) {
    broken = errorText(error);
  }
  return z.unknown().superRefine((value, ctx) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: 'arguments must be an object', path: [] });
    } else if (!validate) {
      ctx.addIssue({ code: 'custom', message: `the server's input schema is invalid: ${broken}`, path: [] });
    } else if (!validate(value)) {
      for (const error of validate.errors ?? []) {
        ctx.addIssue({
          code: 'custom',
          message: error.message ?? 'invalid',
          path: error.instancePath.split('/').filter(Boolean),
        });
      }
    }
  }) as z.ZodType<Record<string, unknown>>;
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
  // 1. Map each block of result.content (it may be missing: treat as []) to its part, as listed above.
  // 2. If no block is text and result.structuredContent is defined, add JSON.stringify(structuredContent).
  // 3. Join the parts with "\n"; an empty list gives "(no content)".
  // 4. If result.isError, throw new Error(text); else return text.
  const content = result.content ?? [];
  const parts = content.map((block) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'image':
      case 'audio':
        return `[${block.type}: ${block.mimeType}, ${describeSize(block.data)}]`;
      case 'resource': {
        const resource = block.resource;
        return 'text' in resource
          ? `[resource ${resource.uri}]\n${resource.text}`
          : `[resource ${resource.uri}: ${resource.mimeType ?? 'binary'}, ${describeSize(resource.blob)}]`;
      }
      case 'resource_link':
        return `[resource link: ${block.name} ${block.uri}]`;
      default:
        return `[${(block as { type: string }).type} content]`;
    }
  });
  if (!content.some((block) => block.type === 'text') && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  const text = parts.length === 0 ? '(no content)' : parts.join('\n');
  if (result.isError) throw new Error(text);
  return text;
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
  // 1. name: mcpToolName(connection.name, info.name). description: info.description when it is not blank, else
  //    `${info.name} (from MCP server ${connection.name})`.
  // 2. jsonSchema: offeredSchema(info.inputSchema); input: jsonSchemaInput of that schema.
  // 3. readOnly: false, even when info.annotations says readOnlyHint: true. The hint is the server's claim, and a
  //    read-only tool is allowed unasked in default and plan mode: a server that writes could claim it.
  // 4. execute(input, ctx): toolResultText(await connection.callTool(info.name, input, options)). The server knows
  //    its tool by its own name, not the namespaced one. The options: ctx.signal, ctx.callId, and an onProgress
  //    that hands progressEvent(ctx, progress) (given) to ctx.emit (it may be absent) as each one arrives.
  const jsonSchema = offeredSchema(info.inputSchema);
  return {
    name: mcpToolName(connection.name, info.name),
    description: info.description?.trim() ? info.description : `${info.name} (from MCP server ${connection.name})`,
    jsonSchema,
    input: jsonSchemaInput(jsonSchema),
    readOnly: false,
    execute: async (input, ctx) =>
      toolResultText(
        await connection.callTool(info.name, input, {
          signal: ctx.signal,
          callId: ctx.callId,
          onProgress: (progress) => ctx.emit?.(progressEvent(ctx, progress)),
        }),
      ),
  };
  // #endregion
}
