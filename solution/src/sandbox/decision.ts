/**
 * Chapter 16: what the sandbox changes about chapter 8's questions.
 *
 * Chapter 8 asks about a command because it cannot know what the command will touch. Inside the sandbox the
 * operating system knows: the command can write only where the policy lets it and reach only the hosts it names. So
 * with `autoAllowBashIfSandboxed` a command that runs inside needs no question about what it might touch, and only
 * about what the sandbox cannot judge: a deny rule still denies, an ask rule still asks, a dangerous removal of the
 * workspace (which the sandbox allows: the workspace is writable) still asks, and so does a command chapter 8 does not
 * understand, since it could hide that removal. A command that asks to leave the sandbox is always asked about, or
 * refused.
 *
 * The check that lets a command skip the question must be the very check that wraps it: one predicate, willSandbox,
 * serves the decision and the tool.
 */
import type { ToolCall } from '../messages.js';
import { NotUnderstood, shellCommands, type Workspace } from '../permissions/command.js';
import { callSubjects, type Decision, evaluate, type PermissionMode } from '../permissions/evaluate.js';
import type { Rule } from '../permissions/rules.js';
import type { SandboxPolicy } from './policy.js';

/** The sandbox as a run sees it: the policy, and whether the sandbox started (startSandbox). */
export interface SandboxState {
  policy: SandboxPolicy;
  /** The runtime started: commands can be wrapped. False when the policy is off or the sandbox could not start. */
  available: boolean;
}

/** The bash tool's input as far as the sandbox reads it. */
export interface SandboxedInput {
  command: string;
  /** The model asks for the command to run outside the sandbox. */
  dangerouslyDisableSandbox?: boolean;
}

/**
 * Whether `command` is one of `excluded` (sandbox.excludedCommands): every simple command it runs, each one the
 * grammar finds (chapter 8's shellCommands, with what wrappers run), starts with the words of an entry (`docker`
 * matches `docker ps`, `git push:*` matches `git push origin`, never `dockerd`). A command the grammar does not
 * understand, or whose name is computed, is never excluded: it stays in the sandbox.
 */
export function isExcludedCommand(command: string, excluded: readonly string[]): boolean {
  if (excluded.length === 0) return false;
  let commands: ReturnType<typeof shellCommands>['commands'];
  try {
    commands = shellCommands(command).commands;
  } catch (error) {
    if (error instanceof NotUnderstood) return false;
    throw error;
  }
  const entries = excluded.map((entry) => entry.replace(/:\*$/, '').trim().split(/\s+/));
  return (
    commands.length > 0 &&
    commands.every((one) => !one.computed && entries.some((words) => words.every((word, i) => one.words[i] === word)))
  );
}

/**
 * Whether this bash input runs inside the sandbox: the policy is on, the sandbox started, the command is not one of
 * the excluded commands (isExcludedCommand, given), and the model did not ask for it to run outside. The decision and
 * the tool both ask this, so what skips a question is exactly what is wrapped.
 */
export function willSandbox(input: SandboxedInput, sandbox: SandboxState): boolean {
  // #region chapter 16: willSandbox
  // 1. False unless the policy is enabled and the sandbox is available.
  // 2. False when the input asks to run outside (dangerouslyDisableSandbox is true) or the command is excluded
  //    (isExcludedCommand with the policy's excludedCommands). Otherwise true.
  if (!sandbox.policy.enabled || !sandbox.available) return false;
  if (input.dangerouslyDisableSandbox === true) return false;
  return !isExcludedCommand(input.command, sandbox.policy.excludedCommands);
  // #endregion
}

/** What sandboxDecision judges with: chapter 8's evaluate's arguments but the call. */
export interface DecisionContext {
  rules: readonly Rule[];
  mode: PermissionMode;
  workspace: Workspace;
  readOnly: boolean;
}

/** The reason of a command allowed because it runs inside the sandbox. */
export const SANDBOXED_REASON = 'it runs inside the sandbox, and sandbox.autoAllowBashIfSandboxed allows that';
/** The reason a command that asks to leave the sandbox is asked about. */
export const LEAVES_REASON = 'the command asks to run outside the sandbox (dangerouslyDisableSandbox)';
/** The reason it is refused when the settings do not let commands leave. */
export const NO_LEAVING_REASON =
  'the command asks to run outside the sandbox, and sandbox.allowUnsandboxedCommands is false';

/**
 * Chapter 8's decision for `call`, with the sandbox's part in it. Never looser than chapter 8 but in one way:
 * a command that runs inside the sandbox, which chapter 8 would only ask about, may be allowed.
 *
 * - Any tool but bash, and a bash command that does not run sandboxed (willSandbox) and does not ask to leave a
 *   sandbox that is running: evaluate's decision, unchanged.
 * - A bash command that asks to leave (dangerouslyDisableSandbox) while the sandbox is on and available: denied with
 *   NO_LEAVING_REASON when the policy does not allow unsandboxed commands; otherwise a deny of evaluate's stays a
 *   deny, and anything else is asked, with LEAVES_REASON, even where a rule or the mode allows it.
 * - A bash command that runs sandboxed: evaluate's decision, unless it asks and autoAllowBashIfSandboxed is on, and
 *   chapter 8 understands every part of it (no subject of callSubjects is `unknown`: what is not understood could
 *   remove the workspace, which the sandbox lets a command write). Then evaluate once more in bypassPermissions mode,
 *   which still denies by a deny rule and still asks for what no mode skips (a safety concern such as a recursive
 *   removal of the workspace, an ask rule): when that allows, allow with SANDBOXED_REASON; otherwise the first
 *   decision.
 */
export async function sandboxDecision(
  call: ToolCall,
  context: DecisionContext,
  sandbox: SandboxState,
): Promise<Decision> {
  // #region chapter 16: sandboxDecision
  // 1. d = evaluate(rules, mode, call, workspace, readOnly). Not bash: return d.
  // 2. Read the input (command, dangerouslyDisableSandbox) from call.arguments. When it asks to leave and the
  //    policy is enabled and the sandbox available: not allowUnsandboxedCommands -> deny (NO_LEAVING_REASON);
  //    d denies -> d; otherwise ask with LEAVES_REASON.
  // 3. willSandbox false, d not an ask, autoAllowBashIfSandboxed off, or any subject of the call (callSubjects) is
  //    unknown: return d.
  // 4. e = evaluate(rules, 'bypassPermissions', call, workspace, readOnly). e allows: allow with SANDBOXED_REASON.
  //    Otherwise return d.
  const { rules, mode, workspace, readOnly } = context;
  const decided = await evaluate(rules, mode, call, workspace, readOnly);
  if (call.name !== 'bash') return decided;
  const args = (typeof call.arguments === 'object' && call.arguments !== null ? call.arguments : {}) as Record<
    string,
    unknown
  >;
  const input: SandboxedInput = {
    command: typeof args.command === 'string' ? args.command : '',
    dangerouslyDisableSandbox: args.dangerouslyDisableSandbox === true,
  };
  if (input.dangerouslyDisableSandbox && sandbox.policy.enabled && sandbox.available) {
    if (!sandbox.policy.allowUnsandboxedCommands) return { behavior: 'deny', reason: NO_LEAVING_REASON };
    if (decided.behavior === 'deny') return decided;
    return { behavior: 'ask', reason: LEAVES_REASON };
  }
  if (!willSandbox(input, sandbox) || decided.behavior !== 'ask' || !sandbox.policy.autoAllowBashIfSandboxed)
    return decided;
  if ((await callSubjects(call, workspace)).some((subject) => subject.unknown !== undefined)) return decided;
  const bypassed = await evaluate(rules, 'bypassPermissions', call, workspace, readOnly);
  return bypassed.behavior === 'allow' ? { behavior: 'allow', reason: SANDBOXED_REASON } : decided;
  // #endregion
}
