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
  // 1. Look the call's tool up in `tools`. Only a tool that exists and is marked readOnly may run beside others:
  //    a writing tool, and a name the set does not know (it might be anything), run alone.
  return tools.get(call.name)?.readOnly === true;
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
  // 1. Keep, per call index: its generator while it runs, the promise of its next step, whether it has finished,
  //    and its result. Keep the index of the next call to start, the next to record, and the index of the call
  //    being decided (one at a time: its first tool_call_decided event has not come yet).
  // 2. A call may start when: nothing is being decided, the signal has not aborted, and either nothing runs, or it
  //    runs in parallel (runsInParallel), no running call writes, and fewer than `concurrency` run.
  //    Starting it: make its generator with runCall and ask for its first step (gen.next()), tagged with the index.
  // 3. Loop: start every call that may start; stop when nothing runs. Otherwise wait for the first step of any
  //    running call (Promise.race). An event: if it is the tool_call_decided of the call being decided, the next
  //    call may be decided; ask for that call's next step, then yield the event. A return: the call has finished;
  //    keep its result and record every finished result from the next index to record on, in order, stopping at
  //    the first call still running (a call left for the client returns none: nothing to record).
  // 4. finally (a hook threw, or the consumer stopped): return() every generator still running, without waiting
  //    for it, and without leaving a rejection unhandled.
  const running = new Map<
    number,
    { gen: AsyncGenerator<AgentEvent, ToolResultMessage | undefined, undefined>; next: Promise<Step> }
  >();
  const finished: boolean[] = [];
  const results: Array<ToolResultMessage | undefined> = [];
  let toStart = 0;
  let toRecord = 0;
  let deciding: number | undefined;
  const pull = (index: number, gen: AsyncGenerator<AgentEvent, ToolResultMessage | undefined, undefined>) => {
    const next = gen.next().then((step) => ({ index, step }));
    next.catch(() => {});
    running.set(index, { gen, next });
  };
  const mayStart = (call: ToolCall) => {
    if (deciding !== undefined || turn.signal.aborted) return false;
    if (running.size === 0) return true;
    if (!runsInParallel(call, turn.tools)) return false;
    for (const index of running.keys()) if (!runsInParallel(calls[index]!, turn.tools)) return false;
    return running.size < concurrency;
  };
  try {
    for (;;) {
      while (toStart < calls.length && mayStart(calls[toStart]!)) {
        deciding = toStart;
        pull(toStart, runCall(calls[toStart]!));
        toStart++;
      }
      if (running.size === 0) return;
      const { index, step } = await Promise.race([...running.values()].map((r) => r.next));
      const { gen } = running.get(index)!;
      if (step.done) {
        running.delete(index);
        if (deciding === index) deciding = undefined;
        finished[index] = true;
        results[index] = step.value;
        for (; toRecord < calls.length && finished[toRecord]; toRecord++) {
          const result = results[toRecord];
          if (result) turn.record(result);
        }
      } else {
        if (deciding === index && step.value.type === 'tool_call_decided') deciding = undefined;
        pull(index, gen);
        yield step.value;
      }
    }
  } finally {
    for (const { gen } of running.values()) gen.return(undefined).catch(() => {});
  }
  // #endregion
}
