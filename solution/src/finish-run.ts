/**
 * Chapter 7: how every run ends, whatever ended it.
 *
 * This is the loop's contract with its consumers, kept in one place: a run ends with exactly one `done` event, and
 * the history it leaves can be sent to a model again. A run can stop anywhere (an abort in the middle of a turn's
 * calls, a hook that throws after two of three calls ran, the turn limit), so before `done`, every call the run left
 * without a result gets one, and a tool_result event says so. The one exception is the pause for a client-side
 * tool: its calls stay open on purpose, and `done` lists them.
 */
import { type AgentEvent, type DoneReason } from './agent-events.js';
import { closeOpenCalls } from './client-tools.js';
import { CANCELLED_RESULT } from './execute-tool.js';
import type { Usage } from './messages.js';
import { resultEvent, type RunContext } from './run-tool-call.js';

/** A run in progress: what the loop, the executor and the hooks share, plus what `done` reports. */
export interface RunState extends RunContext {
  /** Model calls made so far in this run. */
  modelCalls: number;
  /** The text of the last whole turn of this run. */
  text: string;
  /** The usage of this run's turns, added up. */
  usage: Usage;
}

/**
 * Ends a run: closes the calls the history left open (but not those a pause waits for) with an error result and
 * yields a tool_result event for each, then yields the one `done` event.
 */
export async function* finishRun(run: RunState, reason: DoneReason, message?: string): AsyncGenerator<AgentEvent, void, undefined> {
  // #region chapter 7: finishRun
  // 1. Unless the reason is paused_for_client_tool, close the open calls with closeOpenCalls(run.history, text)
  //    (given). After a cancel the text is CANCELLED_RESULT; after anything else, a sentence saying that the run
  //    stopped before the call's result was recorded (so it may or may not have run), with the reason and message.
  //    Yield a tool_result event for each result it added (resultEvent, given).
  // 2. Then yield the done event: reason, turns (run.modelCalls), text, usage, the message when there is one, and
  //    `pending: run.pending` when the run is paused.
  if (reason !== 'paused_for_client_tool') {
    const text =
      reason === 'cancelled'
        ? CANCELLED_RESULT
        : `Not recorded: the run stopped (${reason}) before this call's result was recorded; it may not have run, or only in part. ${message}`;
    for (const result of closeOpenCalls(run.history, text)) yield resultEvent(run.turn, result);
  }
  yield {
    type: 'done',
    reason,
    turns: run.modelCalls,
    text: run.text,
    usage: run.usage,
    ...(message !== undefined ? { message } : {}),
    ...(reason === 'paused_for_client_tool' ? { pending: run.pending } : {}),
  };
  // #endregion
}
