/**
 * Chapter 14: the permission question, asked in the editor.
 *
 * Chapter 8's gate asks through a callback and does not care who answers. In the terminal a person types y or n;
 * over ACP the agent sends `session/request_permission` and the editor shows the call with a button per option.
 * ACP's four option kinds are chapter 8's four answers, so the bridge is short: describe the call as a tool call
 * the editor can draw, offer the four options, and turn the client's choice back into an answer. A cancelled
 * question (the person closed it, or the prompt was cancelled) is a rejection. Chapter 13's plan approval goes
 * through the same request, with three options of its own.
 */
import { TodoError } from '../todo.js';
import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ApprovePlan, PermissionAnswer, PlanDecision } from '../agent-events.js';
import { PERMISSION_ANSWERS, type AskPermission, type PermissionRequest } from '../permissions/gate.js';
import { argsOf, toolDiff, toolKind, toolLocations, toolTitle } from './tool-info.js';
import { textContent } from './updates.js';

/** Sends session/request_permission and resolves with the client's response (the server passes the connection's). */
export type RequestPermission = (
  params: RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<RequestPermissionResponse>;

/**
 * The four options of a permission question, in this order, each with its kind as its id: allow_once
 * ("Allow once"), allow_always ("Always allow <the rules it adds>", or "Always allow" when there are none),
 * reject_once ("Reject"), reject_always ("Always reject").
 */
export function permissionOptions(request: Pick<PermissionRequest, 'suggestedRules'>): PermissionOption[] {
  const rules = request.suggestedRules.length > 0 ? ` ${request.suggestedRules.join(', ')}` : '';
  return [
    { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
    { optionId: 'allow_always', name: `Always allow${rules}`, kind: 'allow_always' },
    { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
    { optionId: 'reject_always', name: 'Always reject', kind: 'reject_always' },
  ];
}

/**
 * `text` as a Markdown code block, so an editor shows it as it is: a fence one backtick longer than the longest run of
 * backticks in it (at least three), so nothing inside can close the block early and have the rest read as Markdown
 * (an HTML comment there would hide the end of a command).
 */
export function codeBlock(text: string, language = ''): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

/**
 * Chapter 8's AskPermission for one ACP session: each question becomes a session/request_permission request
 * (requestPermission, with the run's signal, so a cancelled prompt withdraws it) for this session, about the call
 * drawn as a waiting tool call card, with permissionOptions' four choices; the client's choice becomes the answer.
 *
 * - The card is the call as the updates show it (its id, what tool-info.ts makes of it, its raw input), and it shows
 *   what the person approves, in full (the short heading is clipped): the diff of an edit or write; for bash with a
 *   string command, that command alone, as the textContent (given) of a codeBlock (given) marked `sh`; for anything
 *   else (another tool with a command argument too, a command that is not a string, an edit without its texts, so
 *   without a diff) all its input as JSON indented by two spaces, the same way but marked `json`.
 * - The answer is the option the client picked when it is one of chapter 8's (PERMISSION_ANSWERS). Anything else, a
 *   cancelled question or an option never offered, is `reject_once`: never allow by default.
 */
export function askThroughClient(sessionId: string, cwd: string, requestPermission: RequestPermission): AskPermission {
  return async (request, signal) => {
    // #region chapter 14: askThroughClient
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'askThroughClient');
    // #endregion
  };
}

/** The three answers to a plan, as ACP options: their ids are what planAnswer reads back. */
export const PLAN_OPTIONS: PermissionOption[] = [
  { optionId: 'acceptEdits', name: 'Yes, and accept edits', kind: 'allow_always' },
  { optionId: 'default', name: 'Yes, and ask before edits', kind: 'allow_once' },
  { optionId: 'plan', name: 'No, keep planning', kind: 'reject_once' },
];

/**
 * Chapter 13's ApprovePlan for one ACP session: the plan is shown as a switch_mode tool call (its text as content)
 * with PLAN_OPTIONS; `toolCallId` gives the id of the exit_plan_mode call being answered (the server knows it from
 * the run's events), or undefined to make one up.
 */
export function approvePlanThroughClient(
  sessionId: string,
  requestPermission: RequestPermission,
  toolCallId: () => string | undefined,
): ApprovePlan {
  let asked = 0;
  return async (plan, signal): Promise<PlanDecision> => {
    const toolCall = {
      toolCallId: toolCallId() ?? `plan-${++asked}`,
      title: 'Ready to code?',
      kind: 'switch_mode' as const,
      status: 'pending' as const,
      content: [textContent(plan)],
    };
    const { outcome } = await requestPermission({ sessionId, toolCall, options: PLAN_OPTIONS }, signal);
    if (outcome.outcome === 'selected' && (outcome.optionId === 'default' || outcome.optionId === 'acceptEdits'))
      return { approved: true, mode: outcome.optionId };
    return { approved: false };
  };
}
