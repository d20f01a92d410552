/**
 * Chapter 7: one tool call, from the model's request to its result in the history.
 *
 * Chapter 3's executeToolCall still does the running (unknown tools, bad arguments, failures and a cancel all
 * become results the model can read). Around it, this file adds what the loop of chapter 7 promises: the hooks
 * decide first, a blocked call never runs, a changed call runs with the new arguments, a client-side call waits for
 * the caller, the after hooks may change the result, and every step is told as an event.
 */
import { TodoError } from './todo.js';
import type { AgentEvent } from './agent-events.js';
import { isClientTool } from './client-tools.js';
import { executeToolCall } from './safe-call.js';
import { toolResult, type Message, type ToolCall, type ToolResultMessage } from './messages.js';
import type { ComposedHooks, HookContext } from './hooks.js';
import type { ToolSet } from './tool.js';

/** What one run shares between the loop, the executor and each call. Hooks get it as their HookContext. */
export interface RunContext extends HookContext {
  history: Message[];
  tools: ToolSet;
  hooks: ComposedHooks;
  cwd: string;
  /** Client-side calls of this turn, waiting for the caller (as the hooks left them). */
  pending: ToolCall[];
  /** Events the hooks emitted (ctx.emit) that the loop has not yielded yet. */
  emitted: AgentEvent[];
}

/** The events the hooks emitted since the last time, taken out of run.emitted (to yield them). */
export function takeEmitted(run: RunContext): AgentEvent[] {
  return run.emitted.splice(0);
}

/** The tool_result event for a result. */
export function resultEvent(turn: number, result: ToolResultMessage): AgentEvent {
  return {
    type: 'tool_result',
    turn,
    callId: result.toolCallId,
    name: result.toolName,
    content: result.content,
    isError: result.isError,
  };
}

/**
 * Runs a call's tool with executeToolCall (chapter 3) and returns its result. The tool's context carries the run's
 * cwd and signal, the call's id and turn, and an `emit`: every event the tool emits is yielded as soon as it is
 * emitted, while the tool is still running (a sub-agent's work reaches the consumer live), and all of them before
 * this returns. An event emitted after the tool settled is dropped.
 */
export async function* runTool(
  call: ToolCall,
  run: RunContext,
): AsyncGenerator<AgentEvent, ToolResultMessage, undefined> {
  const queue: AgentEvent[] = [];
  let wake = () => {};
  let settled = false;
  const emit = (event: AgentEvent) => {
    if (settled) return;
    queue.push(event);
    wake();
  };
  const work = executeToolCall(run.tools, call, {
    cwd: run.cwd,
    signal: run.signal,
    callId: call.id,
    turn: run.turn,
    emit,
  });
  void work
    .finally(() => {
      settled = true;
      wake();
    })
    .catch(() => {});
  for (;;) {
    const next = new Promise<void>((resolve) => (wake = resolve));
    if (queue.length > 0) {
      yield* queue.splice(0);
      continue;
    }
    if (settled) return await work;
    await next;
  }
}

/**
 * Runs one call of the current round as the beforeToolCall hook decides (ToolDecision), and tells each step as an
 * event: returns what answers it (the executor records that, in call order: this never touches the history), or
 * puts the call in `run.pending` and returns undefined when a client answers it. Never throws, except what a hook
 * throws.
 *
 * - The verdict comes first, and a `tool_call_decided` event carrying it is yielded before anything runs; the
 *   events the hook emitted (takeEmitted, given) come just before it, and those emitted later just before the
 *   call's `tool_result` event (resultEvent, given).
 * - A blocked call never runs: its outcome is an error result holding the words the hook gave, and afterToolCall
 *   is not asked (nothing ran).
 * - A changed call runs as the hook rewrote it, still the same call; the model's call in the history stays as it
 *   wrote it.
 * - A client-side tool (isClientTool) is not run here: the call waits in `run.pending`, with no outcome and no
 *   event.
 * - Otherwise runTool (given) runs it, passing on the events the tool emits while it runs, and what afterToolCall
 *   makes of that is the outcome.
 */
export async function* runToolCall(
  call: ToolCall,
  run: RunContext,
): AsyncGenerator<AgentEvent, ToolResultMessage | undefined, undefined> {
  // #region chapter 7: runToolCall
  // Write it from the contract above. Step by step instead: npm run reset -- chapter7 --guided
  throw new TodoError(7, 'runToolCall');
  // #endregion
}
