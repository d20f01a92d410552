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
import { TodoError } from '../todo.js';
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter16 --guided
  throw new TodoError(16, 'willSandbox');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter16 --guided
  throw new TodoError(16, 'sandboxDecision');
  // #endregion
}
