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
import { ALLOW_TOOLS, CLAUDE_TOOLS, formatRule, PATH_RULE_TOOLS, type Behavior, type Rule } from './rules.js';

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

/** A glob as a regular expression over absolute paths: `**` any folders, `*` and `?` within one name, `\x` a plain x. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '\\' && i + 1 < glob.length) source += glob[++i]!.replace(/[.*?+^${}()|[\]\\/]/g, '\\$&');
    else if (ch === '*' && glob[i + 1] === '*') {
      source += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
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
 * The subjects of a shell command: for each simple command the walk finds, the command as written (its
 * assignments and words, joinWords) and every command innerCommands finds (the views of it stripped: true, the
 * commands it runs as they are), and, stripped, the command without its assignments; each with its safetyConcern,
 * its beyondRule, and `unknown` for a computed name. The files each of those commands reads and writes
 * (fileOperands) are `read` and `write` subjects (pathSubjects, operand: true), and each write of a redirection a
 * `write` subject (redirect: true). A command that is not understood is one subject with the whole text as its
 * command and the reason as `unknown`.
 */
export async function bashSubjects(command: string, ws: Workspace): Promise<Subject[]> {
  // #region chapter 8: bashSubjects
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'bashSubjects');
  // #endregion
}

/**
 * What `call` touches, as the tools would see it. bash: bashSubjects. Path tools: the path resolved against the
 * workspace (`src/../.env` is `.env`) and where it really leads (pathSubjects); glob and grep search it. web_fetch:
 * the URL's host. Any other tool: one subject with only the name.
 */
export async function callSubjects(call: ToolCall, ws: Workspace): Promise<Subject[]> {
  // #region chapter 8: callSubjects
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'callSubjects');
  // #endregion
}

/**
 * The absolute glob a path rule's pattern stands for: `//abs`, `~/x` (home), `/x` and `./x` or `x` (workspace). A
 * trailing `/` names the folder, which a rule covers with everything in it (`Edit(src/)` is `Edit(src)`).
 */
export function rulePathGlob(pattern: string, ws: Workspace): string {
  const glob = pattern.startsWith('//')
    ? pattern.slice(1)
    : pattern === '~' || pattern.startsWith('~/')
      ? path.posix.join(ws.home, pattern.slice(1))
      : path.posix.join(ws.root, pattern.startsWith('/') ? pattern.slice(1) : pattern);
  return glob.length > 1 ? glob.replace(/\/+$/, '') : glob;
}

/** Whether a path glob could match something inside `folder`: its fixed start (before any wildcard) lies in the folder, or leads to it and goes on with a wildcard. */
export function globReachesInto(glob: string, folder: string): boolean {
  const fixed = glob.split(/[*?\\]/)[0]!;
  const within = folder.endsWith('/') ? folder : `${folder}/`;
  return fixed.startsWith(within) || (fixed.length < glob.length && within.startsWith(fixed));
}

/**
 * A Bash rule's specifier as a RegExp over a command: a trailing `:*` or ` *` matches the prefix alone or followed
 * by a space and more (a word boundary); any other `*` matches anything; `\x` is a plain x; the rest is itself.
 */
export function commandPattern(specifier: string): RegExp {
  const prefix = /(?<!\\)(?::| )\*$/.test(specifier);
  const body = prefix ? specifier.slice(0, -2) : specifier;
  let source = '';
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\' && i + 1 < body.length) source += body[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (body[i] === '*') source += '.*';
    else source += body[i]!.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}${prefix ? '( .*)?' : ''}$`, 's');
}

/** An MCP rule's name: a whole server (`mcp__github`, `mcp__github__*`), or one tool, exactly (`mcp__github__get_issue`). */
export function mcpRuleServer(tool: string): string | undefined {
  const parts = tool.split('__');
  return parts.length === 2 || (parts.length === 3 && parts[2] === '*') ? `mcp__${parts[1]}` : undefined;
}

/**
 * Whether `rule` covers `subject`. The names: an MCP rule for a whole server (mcpRuleServer) matches every tool of
 * that server (`mcp__server__…`, not `mcp__server2__…`), an MCP tool rule only that tool; any other rule matches the
 * kit tools CLAUDE_TOOLS lists for it (an allow rule: ruleTools). A subject with `unknown` set matches every deny and
 * ask rule of its tool and no allow rule; one with `beyond` set no allow rule. No specifier matches every call of those tools. Bash: commandPattern. Path rules: the pattern
 * (rulePathGlob) matches the subject's path or a folder above it, and for a deny or ask rule and a searched path,
 * also when it reaches into it (globReachesInto). WebFetch: `domain:host` matches that host exactly, `domain:*.host`
 * any host below it.
 */
export function ruleMatches(rule: Rule, subject: Subject, ws: Workspace): boolean {
  // #region chapter 8: ruleMatches
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'ruleMatches');
  // #endregion
}

/** The kit tools a rule covers: CLAUDE_TOOLS's, narrowed for an allow rule by ALLOW_TOOLS (`Edit` allows edits, not new files). */
export const ruleTools = (rule: Rule): readonly string[] =>
  (rule.behavior === 'allow' && Object.hasOwn(ALLOW_TOOLS, rule.tool)
    ? ALLOW_TOOLS[rule.tool]
    : CLAUDE_TOOLS[rule.tool]) ?? [];

const where = (rule: Rule) => `${formatRule(rule)} (${rule.source})`;

/**
 * Allow, ask or deny for one call, in Claude Code's order:
 * 1. a deny rule that matches any subject: deny;
 * 2. plan mode, and the tool is not read-only: deny (the model is planning);
 * 3. a command not understood while a deny rule for files exists: ask (it could reach the denied file);
 * 4. a subject's safety concern (a risky command, a write to a protected path), then an ask rule that matches any
 *    subject: ask, in every mode;
 * 5. every subject that needs its own allow (not the stripped commands, not a file a command takes inside the
 *    workspace)
 *    allowed, by an allow rule or by the mode (bypassPermissions: all; any mode: read-only tools; acceptEdits: edit
 *    tools inside the workspace): allow, with the first allow rule used if any;
 * 6. otherwise: ask, saying no rule allows it in this mode, or, for a command not understood, why not.
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
