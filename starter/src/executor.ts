/**
 * Chapter 7: the executor, the seam that decides how one turn's calls run.
 *
 * The loop hands the executor the calls of a finished turn and a function that runs one of them (runToolCall,
 * with the run's hooks and history). This chapter's executor runs them one after another, in the order the model
 * wrote them. Chapter 9 passes a different executor, one that runs read-only calls side by side, and the loop does
 * not change.
 */
import { TodoError } from './todo.js';
import type { AgentEvent } from './agent-events.js';
import type { ToolCall } from './messages.js';

/** Runs one call: yields its events and records its result (runToolCall, bound to the run). */
export type CallRunner = (call: ToolCall) => AsyncGenerator<AgentEvent, void, undefined>;

/**
 * Runs the calls of one turn with `runCall` and yields their events as they happen. Starts no call once `signal`
 * has aborted (the loop gives the calls that did not run their cancelled result). Throws only what runCall throws
 * (a hook that failed).
 */
export type Executor = (calls: readonly ToolCall[], runCall: CallRunner, signal: AbortSignal) => AsyncGenerator<AgentEvent, void, undefined>;

/** The executor of chapter 7: one call at a time, in call order. */
export async function* runSerially(calls: readonly ToolCall[], runCall: CallRunner, signal: AbortSignal): AsyncGenerator<AgentEvent, void, undefined> {
  // #region chapter 7: runSerially
  // 1. Take the calls in order. Before each one, look at the signal: once it has aborted, start no more calls
  //    (return; the loop closes the calls that did not run).
  // 2. Otherwise run it with runCall and pass on every event it yields (yield*), before starting the next call.
  throw new TodoError(7, 'runSerially');
  // #endregion
}
