/**
 * Chapter 3 (given, not a stub): the rules a model turn must keep before it enters the history.
 *
 * A provider hands back whatever the model wrote, and a model is an untrusted writer. Left as it is, a turn can
 * break the history the loop keeps: two calls with the same id, an id used in an earlier turn, an empty id or name,
 * a 'tool_use' turn with no call in it (the loop would ask again and again until the turn limit), a turn cut off in
 * the middle of a call, or a turn with no content at all (a provider dropped a block of a kind it does not know).
 * Providers reject such a history, so the next request of the conversation would fail.
 *
 * `normalizeTurn` is the one place these rules live. Every loop calls it on each turn before it reads the stop
 * reason, SimpleAgent (chapter 3), StreamingAgent (chapter 6) and Agent (chapter 7) alike, so no loop carries its
 * own copy of the edge cases. Exported names (stable, later chapters use them): normalizeTurn, NO_CONTENT_TEXT,
 * MISSING_TOOL_NAME.
 */
import type { AssistantMessage, ContentBlock, Message, ToolCall } from './messages.js';

/** The text recorded for a turn that came back with no content at all (providers refuse an empty assistant turn). */
export const NO_CONTENT_TEXT = '(no content)';

/**
 * The name given to a call whose name is empty. No tool has it, so the call gets chapter 3's "unknown tool" error
 * result, which lists the real tools, and the model can call again.
 */
export const MISSING_TOOL_NAME = 'missing_tool_name';

/**
 * The turn as it may enter the history after `history`. Returns the same object when it already keeps every rule;
 * otherwise a new turn (the provider's turn is never changed in place). The rules, in order:
 *
 * 1. Only a 'tool_use' turn asks for tools. A turn that stopped for any other reason (`max_tokens` in the middle of
 *    a call, `end_turn`, `refusal`, ...) loses its tool calls: they are never run, and none is left unanswered. Its
 *    stop reason is kept, so the caller can see that the turn was cut (`history.at(-1).stopReason`).
 * 2. A 'tool_use' turn with no call in it is an answer: its stop reason becomes 'end_turn'.
 * 3. Every call id is non-empty and unique in the whole history: an empty id, or one already used by an earlier
 *    turn or by an earlier call of this turn, is replaced by a fresh one (`<id>_2`, `<id>_3`, ... or `call_1`, ...).
 * 4. Every call has a name: an empty one becomes MISSING_TOOL_NAME.
 * 5. A turn left with no content holds one text block, NO_CONTENT_TEXT.
 */
export function normalizeTurn(turn: AssistantMessage, history: readonly Message[]): AssistantMessage {
  const asksForTools = turn.stopReason === 'tool_use';
  const used = new Set<string>();
  for (const message of history) {
    if (message.role !== 'assistant') continue;
    for (const block of message.content) if (block.type === 'tool_call') used.add(block.id);
  }

  let changed = false;
  const content: ContentBlock[] = [];
  for (const block of turn.content) {
    if (block.type !== 'tool_call') {
      content.push(block);
      continue;
    }
    if (!asksForTools) {
      changed = true;
      continue;
    }
    const fixed = fixCall(block, used);
    if (fixed !== block) changed = true;
    used.add(fixed.id);
    content.push(fixed);
  }

  let stopReason = turn.stopReason;
  if (asksForTools && !content.some((block) => block.type === 'tool_call')) {
    stopReason = 'end_turn';
    changed = true;
  }
  if (content.length === 0) {
    content.push({ type: 'text', text: NO_CONTENT_TEXT });
    changed = true;
  }
  return changed ? { ...turn, content, stopReason } : turn;
}

/** The call with a usable name and an id not in `used`; the same object when it already has both. */
function fixCall(call: ToolCall, used: ReadonlySet<string>): ToolCall {
  let id = call.id;
  if (!id || used.has(id)) {
    const base = id || 'call';
    let n = id ? 2 : 1;
    while (used.has(`${base}_${n}`)) n++;
    id = `${base}_${n}`;
  }
  const name = call.name || MISSING_TOOL_NAME;
  return id === call.id && name === call.name ? call : { ...call, id, name };
}
