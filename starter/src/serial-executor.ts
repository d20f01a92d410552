/**
 * Chapter 7: the executor, the seam that decides how one turn's calls run.
 *
 * The loop hands the executor the calls of a finished turn, a function that runs one of them (runToolCall, with
 * the run's hooks), and the turn's context: the signal, the tools, and `record`, which adds a result to the
 * history. This chapter's executor runs the calls one after another, in the order the model wrote them, and
 * records each result as it comes. Chapter 9 passes a different executor, one that runs read-only calls side by
 * side and still records their results in call order, and the loop does not change.
 */
import { TodoError } from './todo.js';
import type { AgentEvent } from './agent-events.js';
import type { ToolCall, ToolResultMessage } from './messages.js';
import type { ToolSet } from './tool.js';

/**
 * Runs one call (runToolCall, bound to the run): yields its events and returns its result, or undefined when the
 * call waits for the client. It does not record the result: the executor does, with TurnContext.record.
 */
export type CallRunner = (call: ToolCall) => AsyncGenerator<AgentEvent, ToolResultMessage | undefined, undefined>;

/** What an executor is given besides the calls. */
export interface TurnContext {
  /** The run's signal: once it has aborted, start no more calls. */
  signal: AbortSignal;
  /** The run's tools, to look a call's tool up (chapter 9 asks whether it only reads). */
  tools: ToolSet;
  /** Adds one result to the history. Results must be recorded in call order. */
  record(result: ToolResultMessage): void;
}

/**
 * Runs the calls of one turn with `runCall`, yields their events as they happen and records every result in call
 * order. Starts no call once the signal has aborted (the loop gives the calls that did not run their cancelled
 * result). Throws only what runCall throws (a hook that failed).
 */
export type Executor = (
  calls: readonly ToolCall[],
  runCall: CallRunner,
  turn: TurnContext,
) => AsyncGenerator<AgentEvent, void, undefined>;

/**
 * The Executor of chapter 7: the turn's calls one at a time with runCall, in the order the model wrote them, each
 * finished and recorded with `turn.record` before the next starts, every event runCall yields passed on as it
 * happens. One left for the client gives nothing back: nothing is recorded for it. Once `turn.signal` has fired
 * (looked at before each of the calls), no further one starts: the loop closes those that did not run. Throws
 * only what runCall throws.
 */
export async function* runSerially(
  calls: readonly ToolCall[],
  runCall: CallRunner,
  turn: TurnContext,
): AsyncGenerator<AgentEvent, void, undefined> {
  // #region chapter 7: runSerially
  // Write it from the contract above. Step by step instead: npm run reset -- chapter7 --guided
  throw new TodoError(7, 'runSerially');
  // #endregion
}
