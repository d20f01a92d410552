/**
 * Chapter 3: running one tool call, safely.
 *
 * The model can ask for a tool that does not exist, send arguments that do not fit the schema, or trigger a tool
 * that fails. None of these may crash the agent: each becomes an error result that the model reads, and it can
 * try again. This is what "failures are values" means once a run is under way.
 *
 * A run can also be cancelled while a tool runs. The tool gets the signal in its context and should stop, but a
 * tool that ignores it (or whose promise never settles) must not hold the run: executeToolCall stops waiting the
 * moment the signal aborts and returns the call's cancelled result. `untilAborted` (given) does the waiting.
 *
 * Exported names (stable, later chapters use them): executeToolCall, errorText, untilAborted, ABORTED,
 * CANCELLED_RESULT.
 */
import { z } from 'zod';
import { toolResult, type ToolCall, type ToolResultMessage } from './messages.js';
import type { ToolContext, ToolSet } from './tool.js';

/** The text of any thrown value, for a result the model reads. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The result text of a call that was stopped by a cancel: before it ran, or while it was running. */
export const CANCELLED_RESULT =
  'Cancelled: the run was stopped before this tool finished (it may not have run, or only in part).';

/** What untilAborted settles with when the signal wins. */
export const ABORTED: unique symbol = Symbol('aborted');

/**
 * Settles with what `work()` settles with, or with ABORTED as soon as `signal` aborts, whichever comes first.
 * When the signal is already aborted, `work` is not called at all. The work is not stopped (it has the signal and
 * should stop by itself); its late result or error is ignored, never left as an unhandled rejection.
 */
export function untilAborted<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T | typeof ABORTED> {
  if (signal?.aborted) return Promise.resolve(ABORTED);
  const running = new Promise<T>((resolve) => resolve(work()));
  if (!signal) return running;
  running.catch(() => {});
  return new Promise<T | typeof ABORTED>((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort(); // aborted while work() was starting: the event has already fired
    running.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Runs one tool call and returns its result message, built with toolResult so that it answers that call (the id
 * is all that ties a result to its call). Never throws: once a run is under way a failure is a result the model
 * reads and can act on, so each of these is an error result:
 * - unknown tool: the text says which tool the model asked for and lists the available ones, separated by `, `
 *   (as `read, write`), so it can pick a real one;
 * - arguments that fail the tool's zod schema (not an object at all, too): zod's own account of what is wrong
 *   (z.prettifyError), saying which tool and asking the model to call again with arguments that match. A tool
 *   never runs on what the model wrote unchecked: it gets what the schema gave back, defaults filled in, and ctx;
 * - a tool that throws: its message (errorText, given, also for a thrown value that is not an Error);
 * - a cancel (ctx.signal aborts) before the tool settles: CANCELLED_RESULT, at once, even if the tool never
 *   settles; with a signal that has already aborted, the tool is never started. untilAborted (given) does the
 *   waiting; a signal that never aborts changes nothing.
 */
export async function executeToolCall(tools: ToolSet, call: ToolCall, ctx: ToolContext): Promise<ToolResultMessage> {
  // #region chapter 3: executeToolCall
  // 1. Look the tool up by call.name. If it is missing, return an error result that names the tool the model
  //    asked for and lists the available tools (tools.names(), comma-separated), so it can pick a real one.
  // 2. Check call.arguments with tool.input.safeParse. On failure return an error result that names the tool,
  //    holds z.prettifyError(error) and asks the model to call again with arguments that match the schema.
  // 3. Run the tool with the parsed data (not the raw arguments) and ctx, inside try/catch, through
  //    untilAborted(ctx.signal, () => tool.execute(...)). If it gives ABORTED, return an error result with
  //    CANCELLED_RESULT. Otherwise a normal result with the returned text; a throw is an error result that
  //    carries the tool's message (errorText gives the message of anything thrown).
  // 4. Every result is built with toolResult(call, ...) so it carries call.id and call.name.
  const tool = tools.get(call.name);
  if (!tool) {
    return toolResult(call, `Unknown tool "${call.name}". Available tools: ${tools.names().join(', ')}.`, true);
  }
  const parsed = tool.input.safeParse(call.arguments);
  if (!parsed.success) {
    return toolResult(
      call,
      `Invalid arguments for ${call.name}:\n${z.prettifyError(parsed.error)}\nCall ${call.name} again with arguments that match its schema.`,
      true,
    );
  }
  try {
    const output = await untilAborted(ctx.signal, () => tool.execute(parsed.data, ctx));
    if (output === ABORTED) return toolResult(call, CANCELLED_RESULT, true);
    return toolResult(call, output);
  } catch (error) {
    return toolResult(call, `Error: ${errorText(error)}`, true);
  }
  // #endregion
}
