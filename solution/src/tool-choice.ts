/**
 * Chapter 9: tool choice, per run and per turn.
 *
 * `ModelRequest.toolChoice` says whether the model may call tools (`auto`), must call one (`required`), must not
 * (`none`), or must call one named tool (`{ name }`); `ModelRequest.parallelToolCalls: false` asks for at most one
 * call per turn. Both providers map them onto their own fields (Anthropic `tool_choice` with
 * `disable_parallel_tool_use`, OpenAI `tool_choice` and `parallel_tool_calls`), sending only combinations the APIs
 * accept. This hook sets them before every model call: one choice for the first model call of each run, another
 * for the calls after it, because `required` on every turn would never let the model answer.
 */
import type { Hooks } from './hooks.js';
import type { ToolChoice } from './provider.js';

export interface ToolChoiceOptions {
  /** The choice for the first model call of each run (default: leave the request's as it is). */
  first?: ToolChoice;
  /** The choice for every later model call of the run (default: leave the request's as it is). */
  then?: ToolChoice;
  /** false: at most one tool call per turn; true: as many as the model likes (default: leave it as it is). */
  parallel?: boolean;
}

/**
 * A before-model-call hook that applies ToolChoiceOptions, each option on the model calls its comment names; the
 * turn number in the hook's context counts from 1 in every run, so each run starts over.
 *
 * - It returns a copy of the request and never changes the one it was given; everything else is kept as it was, and
 *   an option not given adds no key at all (no `toolChoice: undefined`), so the provider's default stands.
 * - A choice that names a tool must name one the request has: otherwise the hook throws an error that says that
 *   name, and after it lists the request's tools (the run ends with reason error; the API would refuse the
 *   request). Compare with the names the request lists: `toString` or `__proto__`, which every plain record
 *   inherits, is not one of them.
 */
export function toolChoice(options: ToolChoiceOptions): Hooks {
  return {
    beforeModelCall(request, ctx) {
      // #region chapter 9: toolChoice.beforeModelCall
      // 1. Pick the choice for this model call: options.first when ctx.turn is 1, options.then after that.
      // 2. A choice { name } that is not among request.tools' names: throw an Error that names the tool and lists
      //    the tools the request has.
      // 3. Return a copy of the request with toolChoice set to the picked choice (when one is given) and
      //    parallelToolCalls set to options.parallel (when it is given). Leave everything else as it was.
      const choice = ctx.turn === 1 ? options.first : options.then;
      if (typeof choice === 'object' && !request.tools.some((tool) => tool.name === choice.name)) {
        throw new Error(
          `toolChoice: the tool "${choice.name}" is not among the request's tools (${request.tools.map((tool) => tool.name).join(', ')})`,
        );
      }
      return {
        ...request,
        ...(choice === undefined ? {} : { toolChoice: choice }),
        ...(options.parallel === undefined ? {} : { parallelToolCalls: options.parallel }),
      };
      // #endregion
    },
  };
}
