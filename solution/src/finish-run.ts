/**
 * Chapter 7: how every run ends, whatever ended it.
 *
 * This is the loop's contract with its consumers, kept in one place: a run ends with exactly one `done` event, and
 * the history it leaves can be sent to a model again. A run can stop anywhere (an abort in the middle of a turn's
 * calls, a hook that throws after two of three calls ran, the turn limit), so before `done`, every call the run left
 * without a result gets one, and a tool_result event says so. The one exception is the pause for a client-side
 * tool: its calls stay open on purpose, and `done` lists them.
 *
 * A consumer may also stop reading before `done` (a `break` out of its `for await`, or `return()` on the iterator).
 * The generator then runs its `finally` and nothing else: `interruptRun` stops what still runs and closes the open
 * calls there, so the history is just as valid for the next run.
 */
import { noUsage, type AgentEvent, type DoneReason } from './agent-events.js';
import { closeOpenCalls } from './client-tools.js';
import { CANCELLED_RESULT, errorText } from './safe-call.js';
import { RunStop, type ComposedHooks, type StopRun } from './hooks.js';
import type { Message, Usage } from './messages.js';
import { resultEvent, type RunContext } from './hooked-call.js';
import type { ToolSet } from './tool.js';

/** A run in progress: what the loop, the executor and the hooks share, plus what `done` reports. */
export interface RunState extends RunContext {
  /** Model calls made so far in this run. */
  modelCalls: number;
  /** The text of the last whole turn of this run. */
  text: string;
  /** The usage of this run's turns, added up. */
  usage: Usage;
  /** Set by finishRun as it yields `done`: from then on the run has ended and nothing is left to close. */
  ended?: boolean;
  /** Aborts the run's own signal (run.signal) with `reason`; the caller's signal is left alone. */
  abort(reason: unknown): void;
  /** Any hook's way to end the run cleanly (HookContext.stop): aborts the run's own signal with a RunStop. */
  stop(stop: StopRun): void;
}

/**
 * The run's own signal: it aborts when the caller's does (with the caller's reason), when `abort` is called from
 * inside the run (a consumer that stopped reading), and when a hook calls `stop` (with a RunStop as the reason).
 */
export function runSignal(caller?: AbortSignal): {
  signal: AbortSignal;
  abort(reason: unknown): void;
  stop(stop: StopRun): void;
} {
  const own = new AbortController();
  return {
    signal: caller ? AbortSignal.any([caller, own.signal]) : own.signal,
    abort: (reason) => own.abort(reason),
    stop: (stop) => own.abort(new RunStop(stop)),
  };
}

/** What a run is started with; the rest of its state starts empty. */
export interface RunStart {
  history: Message[];
  tools: ToolSet;
  hooks: ComposedHooks;
  cwd: string;
  /** The caller's signal, when there is one (runSignal combines it with the run's own). */
  signal?: AbortSignal;
}

/**
 * A new run's state: its own signal (runSignal), turn 0, no calls waiting for the client, no emitted events and an
 * emit that adds one to them, no model calls yet, no text and no usage.
 */
export function startRun(start: RunStart): RunState {
  const { signal, ...parts } = start;
  const run: RunState = {
    ...runSignal(signal),
    ...parts,
    turn: 0,
    pending: [],
    emitted: [],
    emit: (event) => void run.emitted.push(event),
    modelCalls: 0,
    text: '',
    usage: noUsage(),
  };
  return run;
}

/** How a run ends: finishRun's reason and message, and the answer that becomes the run's text when there is one. */
export interface Ending {
  reason: DoneReason;
  message: string;
  answer?: string;
}

/**
 * How a run that threw ends (it changes nothing). After a hook's stop (the signal's reason is a RunStop): end_turn
 * with the stop's answer when it carries one, else cancelled, with the stop as the message. After another abort:
 * cancelled, with the reason's text. Anything else: error, with the error's text.
 */
export function endingOf(signal: AbortSignal, error: unknown): Ending {
  if (!signal.aborted) return { reason: 'error', message: errorText(error) };
  const reason: unknown = signal.reason;
  if (reason instanceof RunStop && reason.request.answer !== undefined) {
    return { reason: 'end_turn', message: reason.message, answer: reason.request.answer };
  }
  return { reason: 'cancelled', message: errorText(reason) };
}

/**
 * Ends a run, whatever ended it, so that what it leaves can be sent to a model again: gives every call left open
 * an error result (closeOpenCalls, given) and yields a `tool_result` event for each (resultEvent, given), then
 * marks the run as over and yields the one `done` event (DoneEvent), in that order: a consumer may stop reading at
 * `done`, and interruptRun, which runs then, must already find the run over and leave it alone.
 *
 * - A pause is the exception: its calls stay open for the client, and its `done` lists them.
 * - After a cancel a closed call reads CANCELLED_RESULT. After anything else it reads as a sentence saying the
 *   run stopped before the call's result was recorded, so it may or may not have run (the model must not assume
 *   either), with the reason and the message.
 * - `done` carries what the RunState gathered (the model calls made, the words of the last complete model reply,
 *   what was used), and the message only when there is one (no field set to undefined).
 */
export async function* finishRun(
  run: RunState,
  reason: DoneReason,
  message?: string,
): AsyncGenerator<AgentEvent, void, undefined> {
  // #region chapter 7: finishRun
  // 1. Unless the reason is paused_for_client_tool, close the open calls with closeOpenCalls(run.history, text)
  //    (given). After a cancel the text is CANCELLED_RESULT; after anything else, a sentence saying that the run
  //    stopped before the call's result was recorded (so it may or may not have run), with the reason and message.
  //    Yield a tool_result event for each result it added (resultEvent, given).
  // 2. Mark the run ended (run.ended = true: interruptRun then leaves it alone), then yield the done event: reason,
  //    turns (run.modelCalls), text, usage, the message when there is one, and `pending: run.pending` when the run
  //    is paused.
  if (reason !== 'paused_for_client_tool') {
    const text =
      reason === 'cancelled'
        ? CANCELLED_RESULT
        : `Not recorded: the run stopped (${reason}) before this call's result was recorded; it may not have run, or only in part. ${message}`;
    for (const result of closeOpenCalls(run.history, text)) yield resultEvent(run.turn, result);
  }
  run.ended = true;
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

/** Why a run that nobody reads any more was stopped: the abort reason its tools and hooks see. */
export const STOPPED_READING = 'the consumer stopped reading the run before its done event';

/**
 * Called from the loop's `finally`, however the run finished. After `done` it does nothing (a paused run keeps
 * its calls open for the client). Before `done` (the consumer broke out, or called return() on the iterator) it aborts
 * the run's own signal with an Error whose message is STOPPED_READING, so a tool, a hook or a sub-agent still at work stops (the caller's
 * signal is left alone), and gives every open call a cancelled result, all of them, not only the one the consumer
 * last saw, so the next run sends a valid conversation. Yields nothing: nobody reads any more.
 */
export function interruptRun(run: RunState): void {
  // #region chapter 7: interruptRun
  // 1. If run.ended, return: a finished run has nothing open, and a paused run keeps its calls open for the client.
  // 2. Otherwise abort the run with run.abort(new Error(STOPPED_READING)): a tool still running (a sub-agent, a
  //    command) gets the signal and stops.
  // 3. Close every open call of the history with closeOpenCalls(run.history, CANCELLED_RESULT) (given), all of
  //    them, not only the one the consumer last saw. Yield nothing: this is not a generator, and nobody reads.
  if (run.ended) return;
  run.abort(new Error(STOPPED_READING));
  closeOpenCalls(run.history, CANCELLED_RESULT);
  // #endregion
}
