/**
 * Chapter 8: the decision, as a function of data.
 *
 * `evaluate(rules, mode, call, workspace)` answers allow, ask or deny for one tool call, with the rule (or the
 * mode, or the safety check) that decided it. It runs nothing and changes nothing; it only looks at the disk to
 * find where a path really leads. The order is Claude Code's: a deny rule anywhere wins, then plan mode, then the
 * checks that always ask, then ask rules, then allow rules, then the mode's default.
 *
 * A call is judged through its *subjects*: each simple command of a shell command (as written, spelled other ways,
 * and each command it runs through a wrapper), each file a command reads or writes and each path a redirection
 * writes, each place a path leads (as written, resolved, and where its symlinks lead). A deny or ask rule that
 * matches any subject applies; the call is allowed only if every subject is. A command that is not understood (or
 * whose name is computed when it runs) matches every Bash deny and ask rule and no allow rule, and a command with
 * an option that makes it run other programs matches no allow rule: when the engine is not sure, it asks.
 */
import { TodoError } from '../todo.js';
import path from 'node:path';
import type { ToolCall } from '../messages.js';
import { isInside, realLocation } from '../workspace.js';
import {
  beyondRule,
  fileOperands,
  innerCommands,
  isProtected,
  joinWords,
  NotUnderstood,
  resolveArg,
  safetyConcern,
  shellCommands,
  type Workspace,
} from './command.js';
import { CLAUDE_TOOLS, formatRule, PATH_RULE_TOOLS, type Behavior, type Rule } from './rules.js';
import {
  commandPattern,
  globReachesInto,
  globToRegExp,
  mcpRuleServer,
  rulePathGlob,
  ruleTools,
} from './rule-patterns.js';

export * from './rule-patterns.js';

export type PermissionMode = 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions';
export const PERMISSION_MODES: readonly PermissionMode[] = ['default', 'acceptEdits', 'plan', 'bypassPermissions'];

/** The kit's tools that only look: allowed in every mode unless a rule says otherwise. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(['read', 'glob', 'grep', 'web_fetch']);
/** The kit's tools that change files: allowed inside the workspace in acceptEdits mode. */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(['edit', 'write']);
/** The tools whose `path` argument names what they touch (glob and grep default to the workspace root). */
export const PATH_TOOLS: ReadonlySet<string> = new Set(['read', 'write', 'edit', 'glob', 'grep']);

/** One thing a call touches, judged on its own. */
export interface Subject {
  /** The kit tool's name. */
  tool: string;
  /** bash: one simple command, its words joined by single spaces (joinWords). */
  command?: string;
  /** bash: true for the command as written spelled another way (without the assignments in front, by its
   *  basename, git without its options): rules deny or ask by it, but only the command as written is allowed. */
  stripped?: boolean;
  /** bash: why what runs is not known before it runs (not understood, or a computed name). Every Bash deny and
   *  ask rule matches such a subject, and no allow rule does. */
  unknown?: string;
  /** bash: why an allow rule for the command does not cover it (beyondRule: `find -exec`). No allow rule matches. */
  beyond?: string;
  /** Why this subject is always asked about (a safety concern), whatever the rules say. */
  concern?: string;
  /** Path tools: an absolute path the call reaches. */
  path?: string;
  /** Path tools: whether that path lies inside the workspace. */
  inside?: boolean;
  /** bash: a path a redirection writes (tool `write`). It needs an allow of its own, as an edit does. */
  redirect?: boolean;
  /** bash: a path a command reads (tool `read`) or writes (tool `write`). Inside the workspace the command's own
   *  allow covers it; outside, it needs an allow of its own. */
  operand?: boolean;
  /** glob and grep: the path is searched, so deny and ask rules for anything inside it apply too. */
  searched?: boolean;
  /** web_fetch: the host of the URL. */
  host?: string;
}

export interface Decision {
  behavior: Behavior;
  /** One sentence for the person and the model: what decided, and why. */
  reason: string;
  /** The rule that decided, when one did. */
  rule?: Rule;
}

/**
 * One subject for each place an absolute path leads: as resolved, and (when a symlink leads elsewhere) where it
 * really leads, each with whether it is inside the workspace; a write to a protected path carries a concern. A
 * path that cannot be followed (a NUL character, a loop of symlinks, a name too long) is one subject with
 * `unknown` set: it is asked about or refused, never a crash.
 */
export async function pathSubjects(subject: Subject & { path: string }, ws: Workspace): Promise<Subject[]> {
  const root = path.resolve(ws.root);
  const [realRoot, real] = await Promise.all([realLocation(root), realLocation(subject.path)]).catch(
    (error: Error) => [undefined, error] as const,
  );
  if (realRoot === undefined) return [{ ...subject, unknown: `its path cannot be checked: ${real.message}` }];
  const subjects: Subject[] = [{ ...subject, inside: isInside(root, subject.path) }];
  if (real !== subject.path) subjects.push({ ...subject, path: real, inside: isInside(realRoot, real) });
  return subjects.map((one) =>
    EDIT_TOOLS.has(one.tool) && isProtected(one.path!)
      ? {
          ...one,
          concern: `${one.redirect ? 'a redirection' : one.operand ? 'the command' : one.tool} changes ${one.path}, a protected path (it changes what runs next time)`,
        }
      : one,
  );
}

/**
 * What a shell line runs and touches, as Subject values (its fields say what each one means), each judged on its
 * own, so that a rule that allows one part never allows another.
 *
 * - Each SimpleCommand shellCommands (given) finds, as written (assignments in front, joinWords); again without
 *   its assignments (`stripped`), when it has some; and each that innerCommands finds for it, as what it is: the
 *   same program spelled another way is `stripped`, a program it makes run is not (that needs an allow of its
 *   own).
 * - Each of those carries its safetyConcern and its beyondRule, and, when its name is only known as it runs,
 *   `unknown` saying so.
 * - What each command takes as input or output (fileOperands, given; once per command: its copy without
 *   assignments adds no operand again) and what a redirection takes as input become
 *   `read` / `write` Subjects marked as an `operand` (and `searched` when so); each place a redirection sends
 *   output to becomes a `write` Subject marked as a `redirect`; each resolved as the shell would (resolveArg) and
 *   followed to where it lands (pathSubjects, given).
 * - Fail closed: when any part is not understood (shellCommands, innerCommands and fileOperands throw
 *   NotUnderstood), the whole call is a single Subject, the whole text as its command and the reason as
 *   `unknown`: it matches every Bash deny and ask rule and no allow rule. Anything else thrown is a bug, and goes on.
 */
export async function bashSubjects(command: string, ws: Workspace): Promise<Subject[]> {
  // #region chapter 8: bashSubjects
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'bashSubjects');
  // #endregion
}

/**
 * What `call` touches, as the tools would see it (Subject). What the model sent may be anything: never assume it
 * is a record, and use a field only when it is a string (a `path` that is a number counts as none).
 * - bash: bashSubjects of its shell line (none given is the empty line).
 * - PATH_TOOLS: the path resolved against the workspace root (`src/../.env` is `.env`; none given is the root
 *   itself), with where it really leads (pathSubjects, given); glob and grep look inside it, so theirs is
 *   `searched`.
 * - web_fetch: the URL's host, and no host for a URL that does not parse.
 * - Anything else: a single Subject naming only the tool it calls.
 */
export async function callSubjects(call: ToolCall, ws: Workspace): Promise<Subject[]> {
  // #region chapter 8: callSubjects
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'callSubjects');
  // #endregion
}

/**
 * Whether `rule` covers `subject`.
 *
 * - First, what it is for. An MCP rule for a whole server (mcpRuleServer, given) matches each of that server's
 *   tools, on the whole server name (`mcp__github__…`, not `mcp__github2__…`), and a tool named exactly as the
 *   server (`mcp__github`); an MCP rule for one tool only that
 *   tool. Any other rule matches the kit tools CLAUDE_TOOLS lists for it, looked up as data (its own keys only),
 *   and an allow rule only those ruleTools (given) keeps: `Edit` allows editing, not creating files.
 * - Fail closed: a subject with `unknown` set matches every deny and ask rule of its tool, whatever is in the
 *   parentheses, and no allow rule; one with `beyond` set matches no allow rule.
 * - A rule without parentheses matches every call of those tools. Otherwise what is in them must fit the kind of
 *   subject, and one for another kind matches nothing: a shell line, through commandPattern (given); a file, when
 *   the rule's glob (rulePathGlob, then globToRegExp) matches it or a folder above it (never one whose name only
 *   starts the same), and, for a deny or ask rule on a `searched` folder, also when that glob reaches into it
 *   (globReachesInto); a host, when `domain:host` names it exactly, or `domain:*.host` names a host below it.
 */
export function ruleMatches(rule: Rule, subject: Subject, ws: Workspace): boolean {
  // #region chapter 8: ruleMatches
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'ruleMatches');
  // #endregion
}

const where = (rule: Rule) => `${formatRule(rule)} (${rule.source})`;

/**
 * Allow, ask or deny for one call (a Decision: the behaviour, one sentence saying what decided, and the rule when
 * one did), judged through its subjects (callSubjects). It fails closed: what it does not fully understand, it asks
 * about, and it allows only when every subject that needs an allow has one. Claude Code's order:
 * 1. a deny rule that matches any subject: deny, the reason naming the rule and its source;
 * 2. plan mode, and the tool is not read-only: deny, the reason saying the agent is in `plan` mode and may only read;
 * 3. then, in every mode, bypassPermissions too (the person asked to be asked, and a protected file stays
 *    protected): a bash subject not understood while any deny rule for files exists (PATH_RULE_TOOLS) asks, since
 *    it could reach the file that rule protects; then a subject's safety concern asks, with that concern; then an
 *    ask rule that matches any subject asks, naming it;
 * 4. allow, when there is a subject and each one that needs its own allow is allowed (not the stripped ones, not a
 *    file a command takes inside the workspace; a path a redirection writes always needs one), by an allow rule
 *    or by the mode: bypassPermissions allows all, any mode a read-only tool (never an `unknown` subject),
 *    acceptEdits the edit tools inside the workspace. The decision names the first allow rule used, if any;
 * 5. otherwise ask: the reason names the tool and the mode, or, when a subject is unknown, says the call is
 *    `not understood`, why, and that no rule can allow it.
 * `readOnly` says whether the tool only looks: by default, whether it is one of READ_ONLY_TOOLS; the gate also
 * counts a tool that declares itself read-only (Tool.readOnly; never an MCP tool, whose readOnlyHint is only a claim).
 */
export async function evaluate(
  rules: readonly Rule[],
  mode: PermissionMode,
  call: ToolCall,
  ws: Workspace,
  readOnly = READ_ONLY_TOOLS.has(call.name),
): Promise<Decision> {
  // #region chapter 8: evaluate
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'evaluate');
  // #endregion
}
