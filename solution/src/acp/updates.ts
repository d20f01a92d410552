/**
 * Chapter 14: the run's events, told to an editor.
 *
 * The ACP server is one more consumer of chapter 7's events. While a prompt runs, every event that a person would
 * want to see becomes a `session/update` notification: the answer and the thinking as chunks, each tool call as a
 * card that goes pending → in_progress → completed or failed, the task list as a plan, a mode switch, the tokens
 * and cost so far. The translator keeps what it needs between events (each call's name and arguments, the usage of
 * the session) and nothing else; it never changes the run.
 */
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
 * the tokens the session has used so far (ACP v1 has no field for them, so a client that wants them reads `_meta`):
 * every column of the kit's Usage, each present (a missing cache column is 0), and `totalTokens`, the sum of all
 * four. `_meta.costUsd`, what the session has cost so far (chapter 12's reckoning), only when a price is given.
 */
export function sessionInfo(usage: Usage, title: string | undefined, price?: ModelPrice): SessionUpdate {
  // #region chapter 14: sessionInfo
  // 1. usage figures: { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens (0 when absent), totalTokens:
  //    input + output + cache read + cache write }.
  // 2. Return { sessionUpdate: 'session_info_update', title: title ?? null, _meta: { usage: figures } }, with
  //    costUsd: costOf(usage, price) added to _meta when a price is given.
  const cacheReadTokens = usage.cacheReadTokens ?? 0;
  const cacheWriteTokens = usage.cacheWriteTokens ?? 0;
  const figures = {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    totalTokens: usage.inputTokens + usage.outputTokens + cacheReadTokens + cacheWriteTokens,
  };
  return {
    sessionUpdate: 'session_info_update',
    title: title ?? null,
    _meta: { usage: figures, ...(price ? { costUsd: costOf(usage, price) } : {}) },
  };
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
   * The session updates one of chapter 7's agent events becomes, in order ([] for the events a client does not
   * show). ACP's SessionUpdate (the SDK's schema) lists the updates by their `sessionUpdate` names, with the fields
   * of a tool call card (ToolCall, ToolCallUpdate, ToolCallStatus); the translator keeps only what later events
   * need (what each call is and its latest input, the cards shown early, the session's usage) and never changes the
   * run. `prefix` goes before every call's identifier, so a sub-agent's can never clash with the parent's.
   *
   * - The answer and the reasoning stream as the agent's message and thought chunks.
   * - Each tool call is ONE card, from its first update to its last. It is made as soon as the model begins to write
   *   the call (labelled with the tool alone, no input yet, nothing to show; a call the model has not given an
   *   identifier yet gets no early card), or when the whole call comes if it was not shown early: the whole call
   *   then fills that card in rather than adding a second. The card shows what tool-info.ts makes of the call (its
   *   title, kind and places, and for an edit or write its diff) and the raw input, all made again from the new
   *   input when a hook changed it. It follows the call: waiting, permitted and running, then finished, or in error
   *   when the result is an error. A refused call gets nothing until its result, an error. The result is shown in
   *   the card (textContent, given), after the diff for an edit or write that worked.
   * - The tests compare the cards whole: the early card and the whole call's update carry an empty list when
   *   there is nothing to show, and a permitted call's update is its id and its new status, nothing more.
   * - The task list becomes the agent's plan (medium when an entry has no priority of its own); a switch of mode,
   *   the current one.
   * - Usage, at the top level only (a sub-agent's reaches the parent as one usage event of its task call: counting
   *   its own too would count it twice), adds to the session's usage and is told with this turn's context
   *   (contextUsed) against the context window, and what the session has spent so far in USD (costOf) when the
   *   options know the price.
   * - A sub-agent's events give only their tool-call updates, under `<its task call's identifier>/` added to the
   *   prefix: the rest is its own business.
   * - The end of a run first closes, as failed, every card of this prefix that was shown early and whose call never
   *   came whole (the stream broke or was cancelled mid-call: no card may wait for ever), with UNFINISHED_CALL as what
   *   it shows, then gives sessionInfo with the title and the session's usage so far. A sub-agent's end closes only
   *   its own cards.
   */
  updates(event: AgentEvent, prefix = ''): SessionUpdate[] {
    // #region chapter 14: UpdateTranslator.updates
    // 1. text_delta / thinking_delta: one agent_message_chunk / agent_thought_chunk with { type: 'text', text } as
    //    content.
    // 2. tool_call_start: a call the model has begun writing. Its ACP id is prefix + callId; a call with no id yet
    //    ('') gets no early card. Otherwise add the id to this.writing and send a tool_call with toolCallId, title
    //    (the tool's name: there are no arguments yet), kind (toolKind), status 'pending' and content [].
    //    tool_call_requested: the ACP id is prefix + callId. Remember the call (name, arguments) under that id. Send
    //    toolCallId, title (toolTitle), kind (toolKind), status 'pending', locations (toolLocations), rawInput (the
    //    arguments), and content: [the toolDiff] when there is one, else []: as a tool_call_update when the id was in
    //    this.writing (take it out: the card exists), else as a tool_call.
    // 3. tool_call_decided: allow → a tool_call_update with the id and status 'in_progress'. change → remember the new
    //    arguments, and send the update with title, locations and rawInput made from them too (and content [diff]
    //    when there is one). block → nothing.
    // 4. tool_result: a tool_call_update with the id, status 'failed' when isError else 'completed', and content
    //    [textContent(result)], preceded by the remembered call's diff when it succeeded and has one.
    // 5. todo_list → { sessionUpdate: 'plan', entries } with content, status and priority ('medium' when absent);
    //    mode_changed → { sessionUpdate: 'current_mode_update', currentModeId: mode }.
    // 6. usage, at the top level only (prefix ''; a sub-agent's usage reaches the parent as one usage event of the
    //    task call, so counting the child's own would count it twice): add it to the session's usage; send usage_update with used = contextUsed(this
    //    turn's usage), size = the context window, and, when a price was given, cost { amount, currency: 'USD' }
    //    with amount = costOf(session usage, price).
    // 7. subagent: return this.updates(event.event, prefix + event.callId + '/'), keeping only tool_call and
    //    tool_call_update updates (a sub-agent's text, plan and mode are its own business).
    // 8. done: for each id in this.writing that starts with prefix (a call begun but never whole: the stream broke or
    //    was cancelled), take it out and send a tool_call_update with status 'failed' and content
    //    [textContent(UNFINISHED_CALL)] (given); then sessionInfo(the session's usage, options.title, options.price).
    //    Every other event: [].
    switch (event.type) {
      case 'text_delta':
        return [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } }];
      case 'thinking_delta':
        return [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.thinking } }];
      case 'tool_call_start': {
        if (event.callId === '') return [];
        const toolCallId = prefix + event.callId;
        this.writing.add(toolCallId);
        return [
          {
            sessionUpdate: 'tool_call',
            toolCallId,
            title: event.name,
            kind: toolKind(event.name),
            status: 'pending',
            content: [],
          },
        ];
      }
      case 'tool_call_requested': {
        const toolCallId = prefix + event.callId;
        const call = { name: event.name, arguments: event.arguments };
        this.calls.set(toolCallId, call);
        const diff = toolDiff(call, this.options.cwd);
        return [
          {
            sessionUpdate: this.writing.delete(toolCallId) ? 'tool_call_update' : 'tool_call',
            toolCallId,
            title: toolTitle(call, this.options.cwd),
            kind: toolKind(event.name),
            status: 'pending',
            locations: toolLocations(call, this.options.cwd),
            rawInput: event.arguments,
            content: diff ? [diff] : [],
          },
        ];
      }
      case 'tool_call_decided': {
        const toolCallId = prefix + event.callId;
        const decision = event.decision;
        if (decision.type === 'block') return [];
        if (decision.type === 'allow')
          return [{ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' }];
        const call = { name: event.name, arguments: decision.arguments };
        this.calls.set(toolCallId, call);
        const diff = toolDiff(call, this.options.cwd);
        return [
          {
            sessionUpdate: 'tool_call_update',
            toolCallId,
            status: 'in_progress',
            title: toolTitle(call, this.options.cwd),
            locations: toolLocations(call, this.options.cwd),
            rawInput: decision.arguments,
            ...(diff ? { content: [diff] } : {}),
          },
        ];
      }
      case 'tool_result': {
        const toolCallId = prefix + event.callId;
        const call = this.calls.get(toolCallId);
        const diff = call && !event.isError ? toolDiff(call, this.options.cwd) : undefined;
        const content = [...(diff ? [diff] : []), textContent(event.content)];
        return [
          { sessionUpdate: 'tool_call_update', toolCallId, status: event.isError ? 'failed' : 'completed', content },
        ];
      }
      case 'todo_list':
        return [
          {
            sessionUpdate: 'plan',
            entries: event.todos.map((todo) => ({
              content: todo.content,
              status: todo.status,
              priority: todo.priority ?? 'medium',
            })),
          },
        ];
      case 'mode_changed':
        return [{ sessionUpdate: 'current_mode_update', currentModeId: event.mode }];
      case 'usage': {
        if (prefix !== '') return [];
        this.usage = addUsage(this.usage, event.usage);
        const amount = this.options.price && costOf(this.usage, this.options.price);
        return [
          {
            sessionUpdate: 'usage_update',
            used: contextUsed(event.usage),
            size: this.options.contextWindow,
            ...(amount !== undefined ? { cost: { amount, currency: 'USD' } } : {}),
          },
        ];
      }
      case 'subagent':
        return this.updates(event.event, `${prefix}${event.callId}/`).filter(
          (update) => update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update',
        );
      case 'done': {
        const unfinished = [...this.writing].filter((id) => id.startsWith(prefix));
        const closed = unfinished.map((toolCallId): SessionUpdate => {
          this.writing.delete(toolCallId);
          return {
            sessionUpdate: 'tool_call_update',
            toolCallId,
            status: 'failed',
            content: [textContent(UNFINISHED_CALL)],
          };
        });
        return [...closed, sessionInfo(this.usage, this.options.title, this.options.price)];
      }
      default:
        return [];
    }
    // #endregion
  }
}

/**
 * The stop reason of session/prompt's response for how a run ended: of ACP's StopReason (the SDK's schema), the one
 * that says what chapter 7's DoneEvent says: a cancel, the turn limit, a normal end. A normal end whose last
 * assistant turn in the history was cut at the output limit, or was a refusal, says that instead.
 *
 * A run that failed, or paused for a client-side tool (ACP has none), has no stop reason: it is a
 * RequestError.internalError whose message is the done event's message (its reason when it has none), so the client
 * shows why.
 */
export function stopReasonOf(done: DoneEvent, history: readonly Message[]): StopReason {
  // #region chapter 14: stopReasonOf
  // 1. cancelled → 'cancelled'; turn_limit → 'max_turn_requests'.
  // 2. end_turn: look at the last message of the history. An assistant turn that stopped for 'max_tokens' →
  //    'max_tokens', for 'refusal' → 'refusal'; otherwise 'end_turn'.
  // 3. error and paused_for_client_tool: throw RequestError.internalError(undefined, text) where text is the done
  //    event's message (or its reason when it has none).
  if (done.reason === 'cancelled') return 'cancelled';
  if (done.reason === 'turn_limit') return 'max_turn_requests';
  if (done.reason === 'end_turn') {
    const last = history.at(-1);
    if (last?.role === 'assistant' && (last.stopReason === 'max_tokens' || last.stopReason === 'refusal'))
      return last.stopReason;
    return 'end_turn';
  }
  throw RequestError.internalError(undefined, done.message ?? done.reason);
  // #endregion
}

/**
 * What a client that loads the session is sent to show the saved conversation (ACP's SessionUpdate), in order, as it
 * was shown live:
 *
 * - a user turn (a compaction summary too: it is what the model reads) as a chunk of the user's text, then one more
 *   for each of its pictures, in order, as ACP image content;
 * - an assistant turn's thinking and text as thought and answer chunks (empty ones left out), and each of its calls
 *   as ONE card, already finished: what tool-info.ts makes of the call and its raw input, failed or completed as
 *   its outcome says, with the output (textContent) after the diff for an edit or write that worked. A call the
 *   conversation left without an outcome is shown waiting, and empty;
 * - an output nothing of its own: its call's card shows it.
 */
export function historyUpdates(messages: readonly Message[], cwd: string): SessionUpdate[] {
  // #region chapter 14: historyUpdates
  // 1. First index the results: tool messages by toolCallId.
  // 2. Then walk the messages in order. user → user_message_chunk with its text, then one user_message_chunk per image
  //    of message.images, in order, as { type: 'image', mimeType, data }. tool → nothing (shown with its
  //    call). assistant → for each block in order: thinking → agent_thought_chunk, text → agent_message_chunk (skip
  //    empty ones), tool_call → a tool_call with id, title, kind, locations, rawInput, and from its result: status
  //    failed (isError) or completed; content [textContent(result)], after the toolDiff when it completed and has
  //    one (as it was shown live); no result: status pending, content [].
  const results = new Map(
    messages.flatMap((message) => (message.role === 'tool' ? [[message.toolCallId, message] as const] : [])),
  );
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: message.content } });
      for (const { mimeType, data } of message.images ?? [])
        updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'image', mimeType, data } });
    }
    if (message.role !== 'assistant') continue;
    for (const block of message.content) {
      if (block.type === 'thinking' && block.thinking)
        updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: block.thinking } });
      if (block.type === 'text' && block.text)
        updates.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: block.text } });
      if (block.type !== 'tool_call') continue;
      const result = results.get(block.id);
      const diff = result && !result.isError ? toolDiff(block, cwd) : undefined;
      updates.push({
        sessionUpdate: 'tool_call',
        toolCallId: block.id,
        title: toolTitle(block, cwd),
        kind: toolKind(block.name),
        status: result ? (result.isError ? 'failed' : 'completed') : 'pending',
        locations: toolLocations(block, cwd),
        rawInput: block.arguments,
        content: result ? [...(diff ? [diff] : []), textContent(result.content)] : [],
      });
    }
  }
  return updates;
  // #endregion
}
