/**
 * Chapter 14: the run's events, told to an editor.
 *
 * The ACP server is one more consumer of chapter 7's events. While a prompt runs, every event that a person would
 * want to see becomes a `session/update` notification: the answer and the thinking as chunks, each tool call as a
 * card that goes pending → in_progress → completed or failed, the task list as a plan, a mode switch, the tokens
 * and cost so far. The translator keeps what it needs between events (each call's name and arguments, the usage of
 * the session) and nothing else; it never changes the run.
 */
import { TodoError } from '../todo.js';
import { RequestError, type SessionUpdate, type StopReason, type ToolCallContent } from '@agentclientprotocol/sdk';
import { addUsage, noUsage, type AgentEvent, type DoneEvent } from '../agent-events.js';
import type { Message, Usage } from '../messages.js';
import { costOf, type ModelPrice } from '../session/cost.js';
import { toolDiff, toolKind, toolLocations, toolTitle } from './tool-info.js';

export interface TranslatorOptions {
  /** The session's working folder: titles are relative to it, locations absolute. */
  cwd: string;
  /** The model's context window in tokens (usage_update's `size`). */
  contextWindow: number;
  /** The model's price (chapter 12's priceFor): usage_update carries the session's cost only when it is known. */
  price?: ModelPrice;
  /** Usage already spent in this session before the translator was made (a loaded session). */
  usage?: Usage;
  /** The session's title (sessionTitle of its history), for session_info_update. */
  title?: string;
}

/** What an early card that never got its whole call says when the run ends (updates, step 8). */
export const UNFINISHED_CALL = 'The model stopped before it finished writing this call, so it did not run.';

/** A text result as ACP tool-call content. */
export function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

/** A session's title: its first request on one line, clipped to 60 characters (as chapter 12's list shows it). */
export function sessionTitle(history: readonly Message[]): string | undefined {
  const first = history.find((message) => message.role === 'user');
  const title = first?.role === 'user' ? first.content.replace(/\s+/g, ' ').trim().slice(0, 60) : '';
  return title || undefined;
}

/**
 * The session_info_update sent after each run: the session's title (null when it has none) and, in `_meta.usage`,
 * the tokens the session has used so far (ACP v1 has no field for them), with `_meta.costUsd` when the price is known.
 */
export function sessionInfo(usage: Usage, title: string | undefined, price?: ModelPrice): SessionUpdate {
  // #region chapter 14: sessionInfo
  // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
  throw new TodoError(14, 'sessionInfo');
  // #endregion
}

/** Tokens a turn had in its context: everything it read (cached or not) and what it wrote. */
export function contextUsed(usage: Usage): number {
  return usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0) + usage.outputTokens;
}

export class UpdateTranslator {
  /** Every call seen so far, by its ACP id: its name and (latest) arguments. */
  private readonly calls = new Map<string, { name: string; arguments: unknown }>();
  /** The ACP ids of the calls shown early (tool_call_start) whose whole call (tool_call_requested) has not come. */
  private readonly writing = new Set<string>();
  /** The session's usage so far (for the cost). */
  private usage: Usage;

  constructor(private readonly options: TranslatorOptions) {
    this.usage = options.usage ?? noUsage();
  }

  /** The session's usage so far: what it had before, and every usage event translated since. */
  get sessionUsage(): Usage {
    return this.usage;
  }

  /**
   * The session updates one agent event becomes, in order ([] for the events an editor does not show). `prefix` is
   * put before every call id: a sub-agent's calls (inside `subagent` events) get `<parent call id>/`, so they can
   * never clash with the parent's own ids.
   *
   * - text_delta → agent_message_chunk, thinking_delta → agent_thought_chunk;
   * - tool_call_start (the model has begun writing a call) → an early tool_call card: id, the tool's name as title,
   *   kind, status pending, no content yet, so the editor shows the call while its arguments stream;
   * - tool_call_requested → tool_call: id, title, kind, status pending, locations, rawInput, and for an edit or
   *   write the diff as content; for a call already shown early, the same fields as a tool_call_update of that card;
   * - tool_call_decided → tool_call_update in_progress when allowed; when the hooks changed the arguments, with the
   *   new title, locations, rawInput (and diff); nothing when blocked (the failed result follows);
   * - tool_result → tool_call_update completed or failed (isError), the result's text as content (after the diff, for
   *   an edit or write that succeeded);
   * - todo_list → plan (priority medium when the item has none); mode_changed → current_mode_update;
   * - usage → usage_update: `used` is this turn's context (contextUsed), `size` the context window, and the session's
   *   cost so far in USD when the price is known;
   * - subagent → only the tool-call updates of the wrapped event, with `<callId>/` added to the prefix (a sub-agent's
   *   text is its own business: its answer reaches the parent as the task call's result);
   * - done (the run is over) → first a failed tool_call_update for every card shown early whose call never came
   *   whole (the stream broke or was cancelled mid-call: no card may stay pending forever), then session_info_update
   *   (sessionInfo) with the title and the session's usage so far.
   */
  updates(event: AgentEvent, prefix = ''): SessionUpdate[] {
    // #region chapter 14: UpdateTranslator.updates
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'UpdateTranslator.updates');
    // #endregion
  }
}

/**
 * The stop reason of session/prompt's response for a run's `done`: end_turn (or max_tokens, or refusal, when the
 * last turn of the history stopped for that reason), max_turn_requests at the turn limit, cancelled. A run that
 * failed (error) or paused for a client-side tool (ACP has none) has no stop reason: a RequestError (internal
 * error) whose message says why, so the client shows it.
 */
export function stopReasonOf(done: DoneEvent, history: readonly Message[]): StopReason {
  // #region chapter 14: stopReasonOf
  // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
  throw new TodoError(14, 'stopReasonOf');
  // #endregion
}

/**
 * The updates that show a saved history to a client that loads the session, in order: a user message as a
 * user_message_chunk (a compaction summary too: it is what the model reads), then one more for each of its images, an
 * assistant turn's thinking and text
 * as agent_thought_chunk and agent_message_chunk, each of its calls as one tool_call already finished (completed or
 * failed from its result, the result's text as content, after its diff for an edit or write that completed;
 * pending when it has no result).
 */
export function historyUpdates(messages: readonly Message[], cwd: string): SessionUpdate[] {
  // #region chapter 14: historyUpdates
  // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
  throw new TodoError(14, 'historyUpdates');
  // #endregion
}
