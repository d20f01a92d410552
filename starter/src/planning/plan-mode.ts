/**
 * Chapter 13: plan mode, look before you leap.
 *
 * In plan mode the agent may read and search but not change anything, and it ends the plan by calling
 * `exit_plan_mode` with the plan. The person reads it and decides: go ahead (in `default` mode, asking before edits,
 * or in `acceptEdits`), or keep planning, with feedback the model reads. Chapter 8's gate already refuses writing
 * tools in `plan` mode; the hooks here make plan mode complete on their own (an agent with no rules at all still
 * plans safely): they tell the model it is planning, offer `exit_plan_mode` only while it is, and refuse every tool
 * that is not read-only. The mode lives in one place, the gate (or anything with `mode` and `setMode`).
 */
import { TodoError } from '../todo.js';
import { z } from 'zod';
import type { ApprovePlan, ToolDecision } from '../agent-events.js';
import type { Hooks } from '../hooks.js';
import type { ToolCall } from '../messages.js';
import type { PermissionMode } from '../permissions/evaluate.js';
import type { ModelRequest } from '../provider.js';
import { defineTool, type Tool, type ToolSet } from '../tool.js';

export type { ApprovePlan, PlanDecision } from '../agent-events.js';

export const EXIT_PLAN_MODE = 'exit_plan_mode';

/** Where the permission mode lives: chapter 8's PermissionGate is one. */
export interface ModeControl {
  readonly mode: PermissionMode;
  setMode(mode: PermissionMode): void;
}

/** What the model is told while it plans, after the system prompt. */
export const PLAN_MODE_NOTE =
  'You are in plan mode. Read and search as much as you need, but change nothing: tools that write, edit or run ' +
  'commands are refused while you plan. When you know what to do, call exit_plan_mode with your plan (the steps, ' +
  'the files, how you will check the result). The person approves it or asks you to keep planning.';

/**
 * The request as plan mode wants it, made before every model call (planModeHooks' beforeModelCall), in every mode.
 *
 * - While planning (mode `plan`) the model is told so: PLAN_MODE_NOTE follows the system prompt after a blank line,
 *   or stands alone when there is no system prompt. Everything else stays as it is.
 * - In any other mode, exit_plan_mode is not offered (there is no plan mode to leave); nothing else changes.
 * - Never changes the request it is given (its messages are the run's history): the result is a new request.
 */
export function planRequest(request: ModelRequest, mode: PermissionMode): ModelRequest {
  // #region chapter 13: planRequest
  // Write it from the contract above. Step by step instead: npm run reset -- chapter13 --guided
  throw new TodoError(13, 'planRequest');
  // #endregion
}

/**
 * What plan mode says about a call before it runs (planModeHooks' beforeToolCall): a chapter 7 ToolDecision, or
 * undefined for no opinion (the other hooks and the gate decide).
 *
 * - When the agent is not planning: no opinion, whatever the call.
 * - While planning, a call of any tool of the set that is not read-only is blocked, with words the model reads
 *   instead of a result: they say which tool was called, say the agent is planning and may only read and search, and
 *   tell it to call exit_plan_mode with the plan when it is ready (the tests look for the tool, `plan` and
 *   `exit_plan_mode`).
 * - No opinion about a read-only tool (exit_plan_mode and todo_write are read-only too, so they run while planning),
 *   nor about one the set does not have, or when there is no set: the loop reports an unknown tool itself.
 */
export function planDecision(
  call: ToolCall,
  tools: ToolSet | undefined,
  mode: PermissionMode,
): ToolDecision | undefined {
  // #region chapter 13: planDecision
  // Write it from the contract above. Step by step instead: npm run reset -- chapter13 --guided
  throw new TodoError(13, 'planDecision');
  // #endregion
}

/** Plan mode as hooks, reading the mode from `control` at every call (it changes when a plan is approved). */
export function planModeHooks(control: ModeControl): Hooks {
  return {
    beforeModelCall: (request) => planRequest(request, control.mode),
    beforeToolCall: (call, ctx) => planDecision(call, ctx.tools, control.mode),
  };
}

/**
 * The `exit_plan_mode` tool: the model hands in its plan, the person decides through `approve`. Read-only in the
 * permission sense (it changes no file; what it changes, the mode, the person approves), so the gate lets it run in
 * plan mode.
 */
export function exitPlanModeTool(control: ModeControl, approve: ApprovePlan): Tool<{ plan: string }> {
  return defineTool({
    name: EXIT_PLAN_MODE,
    description:
      'Call this in plan mode when your plan is ready: the person reads it and either approves it (you then carry it out) ' +
      'or asks you to keep planning. Write the plan in Markdown: the steps, the files you will change, how you will check the result.',
    input: z.object({ plan: z.string().describe('The plan, in Markdown') }),
    readOnly: true,
    /**
     * Hands the plan to the person and does what they chose; the result is what the model reads next.
     *
     * - Refused with an error result the model reads, before anyone is asked or told anything: when the agent is not
     *   planning, with words that name the mode it is in (there is nothing to leave); and a plan that is blank, with
     *   words that say the plan is `empty`.
     * - The run's consumers get the trimmed plan as a `plan_proposed` event while the person is still being asked
     *   (an editor shows it beside the question), and the answer as `plan_decided` (the shapes: agent-events.ts),
     *   with the turn and the call id of ctx (0 and '' when it has none; a ctx that cannot tell anyone is fine).
     * - The question is `approve` (given), passed ctx's cancellation or one that never fires. A cancel while the
     *   person is asked rejects: let it, the mode stays as it was and the loop ends the run cancelled.
     * - Approved: the mode becomes the one the person chose (through the ModeControl given, which may be chapter 8's
     *   gate itself), told after plan_decided as `mode_changed` with the mode before. The result says the plan was
     *   `approved`, names the new mode and tells the model to carry the plan out.
     * - Not approved: the mode stays plan and no mode_changed is sent; plan_decided carries the person's trimmed
     *   feedback only when there is some. The result tells the model to `keep planning`, and with feedback it is that
     *   same sentence followed by the feedback.
     */
    async execute({ plan }, ctx) {
      // #region chapter 13: exit_plan_mode
      // Write it from the contract above. Step by step instead: npm run reset -- chapter13 --guided
      throw new TodoError(13, 'exit_plan_mode');
      // #endregion
    },
  });
}
