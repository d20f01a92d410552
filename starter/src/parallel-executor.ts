/**
 * Chapter 9: an executor that runs a turn's calls side by side where that is safe.
 *
 * A model often asks for several tools in one turn: read three files, grep twice. Chapter 7's runSerially runs them
 * one after another, so the person waits for the sum of their times. Running everything at once is faster and
 * wrong: a write next to a read of the same file gives whichever answer won the race. The rule this file follows:
 *
 * - consecutive calls of read-only tools (`tool.readOnly`) run together, at most `concurrency` at a time;
 * - a call of any other tool (one that writes, or a name the tool set does not know) waits until everything
 *   before it has finished, and nothing after it starts until it has finished;
 * - the before-tool-call hooks (chapter 8's permission prompt) are asked in call order, one call at a time: a call
 *   is only started once the call before it has been decided;
 * - events are passed on as they happen, whichever call they come from;
 * - results are recorded in call order, whatever order the calls finished in.
 *
 * It plugs in at chapter 7's executor seam: `new Agent({ ..., executor: parallelExecutor({ concurrency: 4 }) })`.
 */
import { TodoError } from './todo.js';
import type { AgentEvent } from './agent-events.js';
import type { CallRunner, Executor, TurnContext } from './serial-executor.js';
import type { ToolCall, ToolResultMessage } from './messages.js';
import type { ToolSet } from './tool.js';

/** How many read-only calls run at once when no limit is given. */
export const DEFAULT_CONCURRENCY = 4;

export interface ParallelOptions {
  /** The most calls running (or being decided) at once; a whole number of at least 1. Default 4. */
  concurrency?: number;
}

/** Whether a call may run beside others: only when its tool is known and only reads. */
export function runsInParallel(call: ToolCall, tools: ToolSet): boolean {
  // #region chapter 9: runsInParallel
  // Write it from the contract above. Step by step instead: npm run reset -- chapter9 --guided
  throw new TodoError(9, 'runsInParallel');
  // #endregion
}

/** An executor that runs read-only calls together (see the rules at the top of this file). */
export function parallelExecutor(options: ParallelOptions = {}): Executor {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`parallelExecutor: concurrency must be a whole number of at least 1, got ${concurrency}`);
  }
  return (calls, runCall, turn) => runInParallel(calls, runCall, turn, concurrency);
}

/** One step of a running call: the event it yielded, or the result it returned. */
type Step = { index: number; step: IteratorResult<AgentEvent, ToolResultMessage | undefined> };

/**
 * Runs `calls` with `runCall` under the rules at the top of this file, at most `concurrency` at once. Each call is a
 * generator (CallRunner): it only moves on when it is asked for its next step, so the executor keeps asking every
 * running call at once and takes whichever step comes first.
 *
 * - Starting: a read-only call (runsInParallel) starts beside other reads while fewer than `concurrency` run, and a
 *   slot freed by a finished call is filled at once (a limit, not batches). Any other call starts only when nothing
 *   runs, and nothing starts while it runs.
 * - Deciding: one call at a time. After a call starts, the next may start only when that call has yielded its
 *   `tool_call_decided` event (an event its hooks emit before that does not count), or has returned without one.
 *   Otherwise two permission prompts would be open at once.
 * - Events are yielded as they come, whichever call they come from.
 * - Results are recorded (turn.record) in call order: a finished result as soon as every call before it has
 *   finished, whatever order they finished in. A call left for the client returns none: nothing to record, and
 *   recording goes on past it.
 * - turn.signal is looked at before every start: once it has aborted no call starts; the running ones end with
 *   their cancelled result and are recorded, and the executor ends when nothing runs. No calls: no events.
 * - When a call throws (a hook failed), or the consumer stops reading, every call still running is closed
 *   (return()), without waiting for it and without leaving a rejection unhandled, and the error goes on to the loop.
 */
export async function* runInParallel(
  calls: readonly ToolCall[],
  runCall: CallRunner,
  turn: TurnContext,
  concurrency: number,
): AsyncGenerator<AgentEvent, void, undefined> {
  // #region chapter 9: runInParallel
  // Write it from the contract above. Step by step instead: npm run reset -- chapter9 --guided
  throw new TodoError(9, 'runInParallel');
  // #endregion
}
