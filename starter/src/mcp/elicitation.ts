/**
 * Chapter 11: a server asks the person a question in the middle of a call (MCP's elicitation).
 *
 * On the 2025 revisions the server sends the client an elicitation/create request while the call runs. The
 * 2026-07-28 revision is stateless and has no requests from server to client: the call ends with an `input_required`
 * result that carries the question, and the client calls again with the answer. The SDK passes both forms to the
 * same elicitation/create handler, so one function answers them.
 *
 * A tool that is about to delete a branch may stop and ask "Really delete main?" before it goes on. The question
 * comes from the server, so it is untrusted input like everything else the server sends: the person sees it whole,
 * with exactly what a "yes" would send back, and nothing is ever answered for them. It goes through chapter 8's
 * AskPermission, the callback the permission gate asks through, so it is asked in the terminal (chapter 15) and in
 * the editor over ACP (chapter 14) alike, one question at a time with the others. Those questions have four answers
 * and no text field: a form that needs typed values (a name, a number) cannot be filled there, and is declined
 * without asking. With nobody to ask, every question is declined.
 */
import { TodoError } from '../todo.js';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import type { AskPermission, PermissionRequest } from '../permissions/gate.js';
import { mcpToolName } from './adapter.js';

/** What a server sends with elicitation/create: a form (message and requestedSchema) or a URL to open. */
export type ElicitationParams = ElicitRequest['params'];

/** A call of this server's that is running: the one the elicitation belongs to, when only one runs. */
export interface RunningCall {
  /** The server's own name for the tool. */
  tool: string;
  /** The model's id for the call (chapter 7's ToolContext.callId), when the loop runs it. */
  callId?: string;
  /** The call's signal: stopping the run withdraws the question too. */
  signal?: AbortSignal;
}

type Field = { type?: unknown; title?: unknown; description?: unknown };

/**
 * What a "yes" sends back for a form: `true` for every boolean field, nothing for an optional field of another type.
 * Undefined when the form cannot be answered with a yes (a required field that is not a boolean, or no form at all).
 */
export function yesContent(params: ElicitationParams): Record<string, boolean> | undefined {
  if (params.mode === 'url' || !('requestedSchema' in params)) return undefined;
  const schema = params.requestedSchema as { properties?: Record<string, Field>; required?: unknown };
  const properties = schema.properties ?? {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const content: Record<string, boolean> = {};
  for (const [name, field] of Object.entries(properties)) {
    if (field?.type === 'boolean') content[name] = true;
    else if (required.includes(name)) return undefined;
  }
  for (const name of required) if (!(name in properties)) return undefined;
  return content;
}

let asked = 0;

/**
 * The question the person is asked: as a permission question about the running call (its id and `mcp__server__tool`
 * name, so an editor shows it on that call's card; `mcp__<server>` with an id of its own when no single call runs),
 * whose "arguments" are the server's whole question, what each field means, and what a yes sends (`content`). The
 * reason says which server asks. No rule is suggested: an answer is for this question only.
 */
export function elicitationQuestion(
  server: string,
  params: ElicitationParams,
  content: Record<string, boolean>,
  running?: RunningCall,
): PermissionRequest {
  const properties =
    ('requestedSchema' in params
      ? (params.requestedSchema as { properties?: Record<string, Field> }).properties
      : undefined) ?? {};
  const fields = Object.fromEntries(
    Object.entries(properties).map(([name, field]) => [
      name,
      [field?.title, field?.description].filter((part) => typeof part === 'string').join(': '),
    ]),
  );
  return {
    call: {
      type: 'tool_call',
      id: running?.callId ?? `elicitation-${++asked}`,
      name: running ? mcpToolName(server, running.tool) : `mcp__${server}`,
      arguments: { question: params.message, fields, yes_sends: content },
    },
    reason: `MCP server "${server}" asks a question`,
    suggestedRules: [],
  };
}

/**
 * The answer to one question (an elicitation/create request, or one inside a 2026-07-28 `input_required` result: the
 * SDK passes both here, and sends the answer back in the retried call). Never accepts for the person: with nobody to ask (no `ask`), for a URL
 * request, and for a form a yes cannot fill (yesContent, given), it declines without asking. Otherwise it asks the
 * question elicitationQuestion (given) makes, with `signal`: an allow (once or always: always is a yes to this
 * question only) accepts with exactly what the question showed a yes sends, nothing else; a reject, or no reply
 * (nobody could answer), declines; a question that fails or is withdrawn (the signal aborted: the server withdrew it
 * or the run stopped) is cancelled, and always settles.
 */
export async function answerElicitation(
  server: string,
  params: ElicitationParams,
  ask: AskPermission | undefined,
  running: RunningCall | undefined,
  signal: AbortSignal,
): Promise<ElicitResult> {
  // #region chapter 11: answerElicitation
  // Write it from the contract above. Step by step instead: npm run reset -- chapter11 --guided
  throw new TodoError(11, 'answerElicitation');
  // #endregion
}
