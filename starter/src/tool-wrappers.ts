/**
 * Chapter 9: wrappers, tools made out of tools.
 *
 * A wrapper takes a tool and returns a tool with the same name, description, schema and readOnly flag, whose
 * `execute` adds one behaviour around the original. Nothing else in the kit needs to know: the tool set, the
 * executors and the providers see a tool like any other.
 *
 * - withTimeout: a limit for any tool (not only bash). At the limit the tool's signal fires and the call ends with
 *   an error result that says so; whatever the tool returns later is dropped.
 * - catchErrors: a failure that is an answer (a test runner whose tests fail) becomes the tool's output text.
 * - endRunOnError: the opposite, for a tool whose failure must end the run (a deploy step, a migration): the run
 *   ends with reason error instead of letting the model try something else.
 * - returnDirect: the tool's output is the run's final answer; the loop ends without another model call.
 */
import { TodoError } from './todo.js';
import { ABORTED, errorText, untilAborted } from './safe-call.js';
import type { Hooks } from './hooks.js';
import type { ToolResultMessage } from './messages.js';
import type { Tool, ToolSet } from './tool.js';

/** What a tool that timed out throws; executeToolCall makes it an error result. */
export class ToolTimeoutError extends Error {
  override name = 'ToolTimeoutError';
  constructor(
    readonly toolName: string,
    readonly ms: number,
  ) {
    super(`${toolName} timed out after ${ms} ms and was stopped. Try a smaller job, or another way to get the answer.`);
  }
}

/**
 * `tool` with a time limit. Throws a RangeError (at set-up) unless `ms` is a positive finite number.
 *
 * - The tool runs with a signal of its own. It fires after `ms` milliseconds with a ToolTimeoutError(tool.name, ms)
 *   as its reason, and it fires when the run's signal (`ctx.signal`) does: at once when that has already fired.
 * - At the limit the call fails with that ToolTimeoutError at once, whether or not the tool stops: a tool may ignore
 *   its signal, so the call must not wait for it (untilAborted, chapter 3, races a call against a signal). A result
 *   the tool gives later is dropped: it never lands in the history.
 * - A run cancelled during the call fails it with the run's own reason, not a timeout. A tool that throws in time
 *   fails with its own error; a tool that answers in time gives its output as it is.
 * - However the call ends (output, error, timeout, cancel), it leaves nothing behind: no timer that fires later, no
 *   listener on the run's signal (one per call would pile up over a long run).
 */
export function withTimeout<Input>(tool: Tool<Input>, ms: number): Tool<Input> {
  if (!Number.isFinite(ms) || ms <= 0)
    throw new RangeError(
      `withTimeout: the limit for ${tool.name} must be a positive number of milliseconds, got ${ms}`,
    );
  return {
    ...tool,
    async execute(input, ctx) {
      // #region chapter 9: withTimeout
      // Write it from the contract above. Step by step instead: npm run reset -- chapter9 --guided
      throw new TodoError(9, 'withTimeout');
      // #endregion
    },
  };
}

/**
 * `tool` whose failures are answers: an error it throws becomes its output, `format(error)` (by default the tool's
 * name and the error's message), and the result is not marked as an error. That holds for a tool whose `execute`
 * throws at once, before it returns a promise, as well. A tool that works gives its output as it is.
 */
export function catchErrors<Input>(
  tool: Tool<Input>,
  format: (error: unknown) => string = (error) => `${tool.name} failed: ${errorText(error)}`,
): Tool<Input> {
  return {
    ...tool,
    async execute(input, ctx) {
      // #region chapter 9: catchErrors
      // Write it from the contract above. Step by step instead: npm run reset -- chapter9 --guided
      throw new TodoError(9, 'catchErrors');
      // #endregion
    },
  };
}

/** What the run ends with when a tool wrapped by endRunOnError fails. */
export class ToolFailedRunError extends Error {
  override name = 'ToolFailedRunError';
  constructor(
    readonly toolName: string,
    readonly failure: unknown,
  ) {
    super(`${toolName} failed, and its failures end the run: ${errorText(failure)}`);
  }
}

/**
 * `tool` whose failure ends the run: returns the wrapped tool and the hooks to give the agent. When the tool throws,
 * the call's result is the usual error result, and then the after-tool-call hook throws a ToolFailedRunError (the
 * tool's name and what it threw), so the run ends with reason error and that message, and the model is not asked
 * again.
 *
 * The wrapped `execute` (given) keeps each error the tool threw in `failures`; the hook looks there, because an error
 * result alone does not say the tool ran. So a call the model got wrong (arguments that fail the schema) ends
 * nothing: the tool never ran. Neither does another tool's error, nor a result that is not an error. Each failure
 * ends the run once: used, it is gone.
 */
export function endRunOnError<Input>(tool: Tool<Input>): { tool: Tool<Input>; hooks: Hooks } {
  const failures: unknown[] = [];
  return {
    tool: {
      ...tool,
      async execute(input, ctx) {
        try {
          return await tool.execute(input, ctx);
        } catch (error) {
          failures.push(error);
          throw error;
        }
      },
    },
    hooks: {
      afterToolCall(call, result) {
        // #region chapter 9: endRunOnError.afterToolCall
        // Write it from the contract above. Step by step instead: npm run reset -- chapter9 --guided
        throw new TodoError(9, 'endRunOnError.afterToolCall');
        // #endregion
      },
    },
  };
}

const DIRECT = Symbol('returnDirect');

/** `tool`, marked so that its output ends the run as the final answer (give the agent returnDirectHooks too). */
export function returnDirect<Input>(tool: Tool<Input>): Tool<Input> {
  return Object.assign({ ...tool }, { [DIRECT]: true });
}

/** Whether a tool was marked with returnDirect. */
export function isReturnDirect(tool: Tool | undefined): boolean {
  return tool !== undefined && (tool as { [DIRECT]?: boolean })[DIRECT] === true;
}

/** The tool results at the end of `messages`, after the last assistant turn (none if a user message ends it). */
export function trailingResults(messages: readonly { role: string }[]): ToolResultMessage[] {
  let start = messages.length;
  while (start > 0 && messages[start - 1]!.role === 'tool') start--;
  return messages.slice(start) as ToolResultMessage[];
}

/**
 * The hook that makes returnDirect work: before a model call, when the results the last turn produced include a
 * result of a returnDirect tool of `tools` that is not an error, the run stops there with that output as its
 * answer (end_turn, no model call), and a stop message that names the tools. Several such results: their outputs,
 * in call order, joined by a blank line; ordinary results beside them are left out.
 *
 * - A failed call of such a tool is not an answer: the model should see the error and try again.
 * - Only the results at the very end of the request's messages count (trailingResults, given): an answer from an
 *   earlier turn must not end a new run, and a history that ends with the user's message changes nothing.
 */
export function returnDirectHooks(tools: ToolSet): Hooks {
  return {
    beforeModelCall(request) {
      // #region chapter 9: returnDirectHooks.beforeModelCall
      // Write it from the contract above. Step by step instead: npm run reset -- chapter9 --guided
      throw new TodoError(9, 'returnDirectHooks.beforeModelCall');
      // #endregion
    },
  };
}
