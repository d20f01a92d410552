/**
 * Chapter 15: the run for a program to read (`-p --output-format stream-json`, `--output-format json`).
 *
 * A script that drives an agent cannot read the terminal's text: it wants data. Claude Code answers with JSON Lines,
 * one object per line, in an order a script can rely on:
 *
 *   {"type":"system","subtype":"init","session_id":…,"cwd":…,"model":…,"tools":[…],"mcp_servers":[…],…}
 *   {"type":"assistant","message":{"role":"assistant","content":[…text, thinking, tool_use…],…},…}
 *   {"type":"user","message":{"role":"user","content":[…tool_result…]},…}
 *   …one line for every message the run adds to the history…
 *   {"type":"result","subtype":"success","is_error":false,"result":"the answer","num_turns":2,"stop_reason":…,
 *    "total_cost_usd":…,"usage":{…},"modelUsage":{…},"permission_denials":[…],"uuid":…,…}
 *
 * `--output-format json` prints the last of them only. The content blocks are the Anthropic Messages API's
 * (`tool_use` with `id`, `name`, `input`; `tool_result` with `tool_use_id`, `content`, `is_error`), so a reader pairs
 * each result with its call by id, never by position.
 *
 * The fields scripts read are Claude Code's: init has `mcp_servers` ([{ name, status }]), `slash_commands` and
 * `claude_code_version` (the kit's own version: there is no Claude Code here to name); the result has
 * `permission_denials` ([{ tool_name, tool_use_id, tool_input }], every call a hook or the gate blocked),
 * `modelUsage` (per model, Claude Code's names), `stop_reason` (the last turn's) and `uuid`.
 *
 * Where the kit differs from Claude Code (its lines carry more: `uuid` on every line, where the kit has it on init
 * and the result only; `apiKeySource`, `output_style`, `agents` and more in init; `duration_api_ms` in the result, and
 * `contextWindow` and `maxOutputTokens` in modelUsage, which the kit does not know):
 * - `total_cost_usd` is null when the kit has no price for the model (an offline or unknown one). Claude Code always
 *   knows its own prices and writes a number; writing 0 for a cost nobody knows would be a lie a script adds up.
 * - `result` is the run's last text in every result, errors included; Claude Code's error results carry `errors`
 *   (which the kit writes too) and no `result`.
 * - A cancelled run, a provider failure and a pause for a client-side tool are all `error_during_execution` with
 *   `is_error: true`. Claude Code also counts an interrupted run as error_during_execution, has no client-side tools,
 *   and is reported to write a failed API call as `success` with `is_error: true`; the kit keeps one rule: a
 *   subtype other than success whenever the run did not answer.
 * - `parent_tool_use_id` is always null: a sub-agent's turns live in the child's own history, not in the one this
 *   writer reads (Claude Code streams them too, each with the id of its Task call).
 * - The results of one turn's calls are one `user` line, as the Messages API wants them sent back.
 * - The user's prompt is not echoed (Claude Code echoes it only with --replay-user-messages).
 */

import { randomUUID } from 'node:crypto';
import { addUsage, noUsage, type AgentEvent, type DoneEvent } from '../agent-events.js';
import {
  toolCallsOf,
  type AssistantMessage,
  type Message,
  type StopReason,
  type ToolResultMessage,
  type Usage,
} from '../messages.js';
import { costOf, priceFor } from '../session/cost.js';
import { claudeCodeName } from './hook-settings.js';
import { apiUsage, modelUsageOf } from './stream-json-usage.js';
import {
  type ApiContentBlock,
  type ApiToolResultBlock,
  type AssistantLine,
  type InitLine,
  type McpServerStatus,
  type PermissionDenial,
  type ResultLine,
  type ResultSubtype,
  type StreamJsonLine,
  type UserLine,
} from './stream-json-lines.js';

export * from './stream-json-lines.js';
export * from './stream-json-usage.js';

export interface InitInfo {
  sessionId: string;
  cwd: string;
  /** The model id, or a label for a provider without one ('offline'). */
  model: string;
  /** The names of the tools the model is offered. */
  tools: readonly string[];
  permissionMode: string;
  /** The MCP servers and whether they started (default: none). */
  mcpServers?: readonly McpServerStatus[];
  /** The slash commands, without the `/` (default: none). */
  slashCommands?: readonly string[];
  /** The kit's version, written as claude_code_version (default: 'unknown'). */
  version?: string;
}

export function initLine(info: InitInfo, uuid: string = randomUUID()): InitLine {
  return {
    type: 'system',
    subtype: 'init',
    session_id: info.sessionId,
    cwd: info.cwd,
    model: info.model,
    tools: [...info.tools],
    mcp_servers: (info.mcpServers ?? []).map((server) => ({ name: server.name, status: server.status })),
    permissionMode: info.permissionMode,
    slash_commands: [...(info.slashCommands ?? [])],
    claude_code_version: info.version ?? 'unknown',
    uuid,
  };
}

/**
 * One assistant turn as Claude Code's stream-json writes it (AssistantLine): the message as the Messages API sends
 * it, its blocks in the API's shape (ApiContentBlock: a call is a `tool_use` block whose input is the arguments; a
 * thought keeps its signature when it has one) in the turn's order, its stop reason, and its usage in the API's names
 * (apiUsage, given) only when the turn has usage. Not inside a sub-agent's call: no parent tool use.
 */
export function assistantLine(message: AssistantMessage, sessionId: string): AssistantLine {
  // #region chapter 15: assistantLine
  // 1. Each block, in order: text → { type: 'text', text }; thinking → { type: 'thinking', thinking } with its
  //    signature when it has one; tool_call → { type: 'tool_use', id, name, input: its arguments }.
  // 2. The message: role 'assistant', that content, stop_reason (the turn's stopReason), and usage in the API's
  //    names (apiUsage, given) only when the turn has usage.
  // 3. The line: type 'assistant', the message, parent_tool_use_id null, session_id.
  const content = message.content.map((block): ApiContentBlock => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'thinking')
      return {
        type: 'thinking',
        thinking: block.thinking,
        ...(block.signature !== undefined ? { signature: block.signature } : {}),
      };
    return { type: 'tool_use', id: block.id, name: block.name, input: block.arguments };
  });
  return {
    type: 'assistant',
    message: {
      role: 'assistant',
      content,
      stop_reason: message.stopReason,
      ...(message.usage ? { usage: apiUsage(message.usage) } : {}),
    },
    parent_tool_use_id: null,
    session_id: sessionId,
  };
  // #endregion
}

/**
 * A user line as Claude Code's stream-json writes it (UserLine): a user message's text as it is, or the results of
 * one turn's calls as `tool_result` blocks, in the order given, each answering the call whose
 * id the result carries. Not inside a sub-agent's call: no parent tool use.
 */
export function userLine(content: string | readonly ToolResultMessage[], sessionId: string): UserLine {
  // #region chapter 15: userLine
  // 1. A string is the content as it is.
  // 2. Results: one { type: 'tool_result', tool_use_id, content, is_error } block for each, in the order given;
  //    tool_use_id is the result's own toolCallId (the id of the call it answers).
  // 3. The line: type 'user', message { role: 'user', content }, parent_tool_use_id null, session_id.
  const blocks =
    typeof content === 'string'
      ? content
      : content.map(
          (result): ApiToolResultBlock => ({
            type: 'tool_result',
            tool_use_id: result.toolCallId,
            content: result.content,
            is_error: result.isError,
          }),
        );
  return { type: 'user', message: { role: 'user', content: blocks }, parent_tool_use_id: null, session_id: sessionId };
  // #endregion
}

export interface ResultInfo {
  sessionId: string;
  /** How long the run took, in milliseconds. */
  durationMs: number;
  /** The model, to price the usage (null cost when it has no price). */
  model?: string;
  /** The usage to report, when the caller added it up from usage events (sub-agents included); else done.usage. */
  usage?: Usage;
  /** Why the run's last model turn stopped (null or absent: it made none). */
  stopReason?: StopReason | null;
  /** The calls a hook or the gate blocked (absent: none). */
  permissionDenials?: readonly PermissionDenial[];
  /** The result line's uuid (absent: a new random one). */
  uuid?: string;
}

/**
 * The last line, Claude Code's `result` line (ResultLine lists its fields, as scripts written for Claude Code read
 * them), from the run's done event and what the writer knows (`info`).
 *
 * - The subtype (ResultSubtype): success for an end_turn, error_max_turns for the turn limit, error_during_execution
 *   for any other end. Every subtype but success is an error, with its errors: the done's message, else its reason.
 * - The usage is info's when given (it counts sub-agents) else the done's, in the API's names (apiUsage, given);
 *   modelUsageOf (given) makes the per-model figures from it.
 * - The cost comes from chapter 12 (costOf at priceFor of the model), and is null for a model without a price: an
 *   unknown cost, never a cost of 0.
 * - The duration is whole milliseconds; a missing stop reason is null, missing denials `[]` (a copy, not info's
 *   array), a missing uuid a new random one.
 */
export function resultLine(done: DoneEvent, info: ResultInfo): ResultLine {
  // #region chapter 15: resultLine
  // 1. The subtype from done.reason: end_turn → success; turn_limit → error_max_turns; cancelled, error and
  //    paused_for_client_tool → error_during_execution. is_error: true for every subtype but success.
  // 2. result: done.text; num_turns: done.turns; duration_ms: info.durationMs rounded to a whole number;
  //    session_id: info.sessionId.
  // 3. The usage: info.usage when given, else done.usage; written in the API's names (apiUsage, given).
  // 4. total_cost_usd: costOf(that usage, priceFor(info.model)) (chapter 12), or null when it is undefined: a
  //    model without a price has an unknown cost, not a cost of 0.
  // 5. What scripts read beside: stop_reason (info.stopReason, null when absent), modelUsage (modelUsageOf(that
  //    usage, info.model), given), permission_denials (a copy of info.permissionDenials, [] when absent) and uuid
  //    (info.uuid, else randomUUID()).
  // 6. Every subtype but success also has errors: [done.message, or the reason when there is no message].
  const subtype: ResultSubtype =
    done.reason === 'end_turn'
      ? 'success'
      : done.reason === 'turn_limit'
        ? 'error_max_turns'
        : 'error_during_execution';
  const usage = info.usage ?? done.usage;
  const line: ResultLine = {
    type: 'result',
    subtype,
    is_error: subtype !== 'success',
    result: done.text,
    num_turns: done.turns,
    duration_ms: Math.round(info.durationMs),
    stop_reason: info.stopReason ?? null,
    total_cost_usd: costOf(usage, priceFor(info.model)) ?? null,
    usage: apiUsage(usage),
    modelUsage: modelUsageOf(usage, info.model),
    permission_denials: [...(info.permissionDenials ?? [])],
    session_id: info.sessionId,
    uuid: info.uuid ?? randomUUID(),
  };
  if (subtype !== 'success') line.errors = [done.message ?? done.reason];
  return line;
  // #endregion
}

export interface StreamJsonOptions extends InitInfo {
  /** 'stream-json' (the default): every line; 'json': only the result, at the end. */
  format?: 'stream-json' | 'json';
  /** The history index of the first message to write (default: the history's length now, so the prompt is not echoed). */
  from?: number;
  /** Milliseconds now, for duration_ms (Date.now by default; tests pass a fake clock). */
  clock?: () => number;
  /** Makes the uuids of the init and result lines (randomUUID by default; tests pass their own). */
  newId?: () => string;
}

/**
 * Writes a run as Claude Code's stream-json: the consumer hands it every event of the run (done included) and
 * writes what it returns. The messages themselves are read from the history the agent appends to, so each line
 * holds a whole message; the events say when to look and how the run ended.
 */
export class StreamJsonWriter {
  readonly format: 'stream-json' | 'json';
  private readonly info: InitInfo;
  private readonly clock: () => number;
  private readonly startedAt: number;
  /** The index of the first history message not written yet. */
  private next: number;
  /** Whether the init line has been written. */
  private started = false;
  /** The run's usage events added up (sub-agents included), for the result. */
  private usage: Usage | undefined;
  /** Makes the init and result lines' uuids. */
  private readonly newId: () => string;
  /** The arguments of the run's calls, by id (tool_call_requested), for permission_denials. */
  private readonly inputs = new Map<string, unknown>();
  /** The calls a hook or the gate blocked, in the order they were decided. */
  private readonly denials: PermissionDenial[] = [];

  constructor(
    readonly history: readonly Message[],
    options: StreamJsonOptions,
  ) {
    this.format = options.format ?? 'stream-json';
    this.info = {
      sessionId: options.sessionId,
      cwd: options.cwd,
      model: options.model,
      tools: options.tools,
      permissionMode: options.permissionMode,
      mcpServers: options.mcpServers,
      slashCommands: options.slashCommands,
      version: options.version,
    };
    this.clock = options.clock ?? Date.now;
    this.newId = options.newId ?? randomUUID;
    this.startedAt = this.clock();
    this.next = options.from ?? history.length;
  }

  /**
   * Given: keeps what the result needs to know of `event`: each call's arguments (tool_call_requested), and each
   * call whose decision was a block (tool_call_decided), as a permission denial with those arguments and the
   * tool's Claude Code name (`Bash`, `Write`: what scripts written for Claude Code look for).
   */
  private track(event: AgentEvent): void {
    if (event.type === 'tool_call_requested') this.inputs.set(event.callId, event.arguments);
    if (event.type === 'tool_call_decided' && event.decision.type === 'block')
      this.denials.push({
        tool_name: claudeCodeName(event.name),
        tool_use_id: event.callId,
        tool_input: this.inputs.get(event.callId) ?? {},
      });
  }

  /**
   * Given: why the run's last model turn stopped: the stop reason of the last assistant message of the history, if
   * no user message (the prompt) comes after it; null when the run has made no turn.
   */
  private stopReason(): StopReason | null {
    for (let i = this.history.length - 1; i >= 0; i--) {
      const message = this.history[i]!;
      if (message.role === 'assistant') return message.stopReason;
      if (message.role === 'user') return null;
    }
    return null;
  }

  /**
   * The text to write for `event`: zero or more lines, each a JSON object followed by "\n", as Claude Code's
   * `--output-format json` (only the result line, at the end) and `stream-json` (every line as it happens) write
   * them (StreamJsonLine lists them).
   *
   * - Every event goes through this.track first (given: the calls' inputs and the blocked calls, for the result), and
   *   usage events are added up (addUsage): only the top agent's come here, and they count what sub-agents spent.
   * - stream-json: the first line of all is initLine (given). After that, the run's messages are written in order, each
   *   message once (this.next is how far it has been written): an assistant message as assistantLine, a user message
   *   as userLine of its text, and the tool results after a turn as one userLine, only once all of that turn's calls
   *   have a result (toolCallsOf), because a tool_result event comes before the executor records the result; at done,
   *   whatever is left is written, incomplete results too.
   * - A compaction replaced messages by one summary: when they had all been written, what was
   *   written shrinks the same way, and a `compact_boundary` system line says so (its trigger `manual` or `auto`, its
   *   pre_tokens the tokens before).
   * - done, in both formats: last of all the resultLine, with the usage added up, the duration since the writer was
   *   made, the given stopReason, the denials and a new uuid.
   */
  write(event: AgentEvent): string {
    // #region chapter 15: StreamJsonWriter.write
    // 1. Collect line objects; return each as JSON.stringify(line) + "\n", joined ('' for none).
    // 2. Every event goes to this.track(event) first (given: it keeps the calls' arguments and the blocked calls
    //    for the result). A usage event: add it to this.usage (addUsage, from noUsage()). Only the top agent's
    //    usage events come here, and they count what sub-agents spent.
    // 3. json format: nothing else until done, and then only the result line (step 7).
    // 4. stream-json: the first call starts with initLine(this.info, this.newId()) (given).
    // 5. compaction: history.splice(from, count, summary) replaced `count` messages by one. When those were all
    //    written already (from + count <= this.next), this.next moves back by count - 1. Then a compact_boundary
    //    line: { type: 'system', subtype: 'compact_boundary', session_id, compact_metadata: { trigger: 'manual' or
    //    'auto' (event.manual), pre_tokens: event.tokensBefore } }.
    // 6. Write the messages from this.next on, moving this.next past each one written:
    //    - an assistant message: assistantLine;
    //    - a user message: userLine of its text;
    //    - the tool results that follow an assistant turn: one userLine for all of them, but only once they are all
    //      there (as many as the turn's calls, toolCallsOf) or at done. Until then stop: a tool_result event comes
    //      before the executor records its result in the history.
    // 7. done: write whatever is left (step 6, incomplete results included), then resultLine(event, { sessionId,
    //    durationMs: this.clock() minus the start, model, usage: this.usage, stopReason: this.stopReason() (given),
    //    permissionDenials: this.denials, uuid: this.newId() }).
    const lines: StreamJsonLine[] = [];
    const sessionId = this.info.sessionId;
    this.track(event);
    if (event.type === 'usage') this.usage = addUsage(this.usage ?? noUsage(), event.usage);
    if (this.format === 'stream-json') {
      if (!this.started) {
        this.started = true;
        lines.push(initLine(this.info, this.newId()));
      }
      if (event.type === 'compaction') {
        if (event.from + event.count <= this.next) this.next -= event.count - 1;
        lines.push({
          type: 'system',
          subtype: 'compact_boundary',
          session_id: sessionId,
          compact_metadata: { trigger: event.manual ? 'manual' : 'auto', pre_tokens: event.tokensBefore },
        });
      }
      const final = event.type === 'done';
      while (this.next < this.history.length) {
        const message = this.history[this.next]!;
        if (message.role === 'assistant') {
          lines.push(assistantLine(message, sessionId));
          this.next++;
        } else if (message.role === 'user') {
          lines.push(userLine(message.content, sessionId));
          this.next++;
        } else {
          let end = this.next;
          while (end < this.history.length && this.history[end]!.role === 'tool') end++;
          const turn = this.history[this.next - 1];
          const calls = turn?.role === 'assistant' ? toolCallsOf(turn).length : 0;
          if (end - this.next < calls && !final) break;
          lines.push(userLine(this.history.slice(this.next, end) as ToolResultMessage[], sessionId));
          this.next = end;
        }
      }
    }
    if (event.type === 'done') {
      lines.push(
        resultLine(event, {
          sessionId,
          durationMs: this.clock() - this.startedAt,
          model: this.info.model,
          usage: this.usage,
          stopReason: this.stopReason(),
          permissionDenials: this.denials,
          uuid: this.newId(),
        }),
      );
    }
    return lines.map((line) => `${JSON.stringify(line)}\n`).join('');
    // #endregion
  }
}
