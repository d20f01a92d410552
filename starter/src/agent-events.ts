/**
 * Chapter 7: helpers over the agent events (their types are in agent-event-types.ts, re-exported here): the events of
 * one streamed turn, usage sums, and draining a run for a consumer that wants only its end or its answer.
 */
import { TodoError } from './todo.js';
import { TurnLimitError } from './simple-agent.js';
import type { AgentEvent, DoneEvent } from './agent-event-types.js';
import type { Usage } from './messages.js';
import type { StreamEvent } from './stream-events.js';

export type * from './agent-event-types.js';

/**
 * The agent events of one streamed turn, one stream event at a time: make one per turn (it remembers each call's
 * id from its start, since the stream names a call only there and its argument pieces carry just the block's index).
 * Text and thinking pieces, a call's start and the pieces of its arguments (empty pieces left out) and a retry
 * notice become events, with the turn number; the rest (a signature, a call's end, the finish) only builds the turn,
 * and gives undefined.
 */
export function streamedTurnEvents(): (event: StreamEvent, turn: number) => AgentEvent | undefined {
  const callIds = new Map<number, string>();
  return (event, turn) => {
    switch (event.type) {
      case 'text_delta':
        return event.text ? { type: 'text_delta', turn, text: event.text } : undefined;
      case 'thinking_delta':
        return event.thinking ? { type: 'thinking_delta', turn, thinking: event.thinking } : undefined;
      case 'tool_call_start':
        callIds.set(event.index, event.id);
        return { type: 'tool_call_start', turn, callId: event.id, name: event.name };
      case 'tool_call_delta': {
        const callId = callIds.get(event.index);
        return callId !== undefined && event.argumentsDelta
          ? { type: 'tool_call_delta', turn, callId, argumentsDelta: event.argumentsDelta }
          : undefined;
      }
      case 'retry':
        return { ...event, turn };
      default:
        return undefined;
    }
  };
}

/** Usage with nothing counted yet. */
export function noUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0 };
}

/** `total` plus `more`, field by field; the cache counts only when either side has them. */
export function addUsage(total: Usage, more: Usage | undefined): Usage {
  if (!more) return total;
  const sum: Usage = {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
  };
  if (total.cacheReadTokens !== undefined || more.cacheReadTokens !== undefined) {
    sum.cacheReadTokens = (total.cacheReadTokens ?? 0) + (more.cacheReadTokens ?? 0);
  }
  if (total.cacheWriteTokens !== undefined || more.cacheWriteTokens !== undefined) {
    sum.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + (more.cacheWriteTokens ?? 0);
  }
  return sum;
}

/**
 * Reads a run to its end and returns its `done` event, handing every event (done included) to `onEvent` first,
 * in order. Throws when the events end without a `done`, or when anything follows it (a second `done` too):
 * either is a broken loop, and the message names the kind of event that came after it.
 */
export async function drain(
  events: AsyncIterable<AgentEvent>,
  onEvent?: (event: AgentEvent) => void,
): Promise<DoneEvent> {
  // #region chapter 7: drain
  // Write it from the contract above. Step by step instead: npm run reset -- chapter7 --guided
  throw new TodoError(7, 'drain');
  // #endregion
}

/** Thrown by finalAnswer when a run ends without an answer, other than at the turn limit. */
export class RunStoppedError extends Error {
  override name = 'RunStoppedError';
  constructor(readonly done: DoneEvent) {
    super(`the run ended with reason ${done.reason}${done.message ? `: ${done.message}` : ''}`);
  }
}

/**
 * The answer of a run, for a consumer that wants only that. Rejects with TurnLimitError (chapter 3's error) at
 * the turn limit, and with RunStoppedError for any other reason than end_turn.
 */
export async function finalAnswer(events: AsyncIterable<AgentEvent>): Promise<string> {
  const done = await drain(events);
  if (done.reason === 'end_turn') return done.text;
  if (done.reason === 'turn_limit') throw new TurnLimitError(done.turns);
  throw new RunStoppedError(done);
}
