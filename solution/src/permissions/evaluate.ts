/**
 * Chapter 8: the decision, as a function of data.
 *
 * `evaluate(rules, mode, call, workspace)` answers allow, ask or deny for one tool call, with the rule (or the
 * mode, or the safety check) that decided it. It runs nothing and changes nothing; it only looks at the disk to
 * find where a path really leads. The order is Claude Code's: a deny rule anywhere wins, then plan mode, then the
 * checks that always ask, then ask rules, then allow rules, then the mode's default.
 *
 * A call is judged through its *subjects*: each simple command of a shell command (as written, and without the
 * `VAR=value` and `env` in front), each place a path leads (as written, resolved, and where its symlinks lead).
 * A deny or ask rule that matches any subject applies; the call is allowed only if every subject is.
 */
import path from 'node:path';
import type { ToolCall } from '../messages.js';
import { isInside, realLocation } from '../workspace.js';
import { commandWords, safetyConcern, splitCommand, touchesGit, words, type Workspace } from './command.js';
import { CLAUDE_TOOLS, formatRule, type Behavior, type Rule } from './rules.js';

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
  /** bash: one simple command, its words joined by single spaces. */
  command?: string;
  /** bash: true for the command without the assignments and wrappers in front: rules deny or ask by it, but only
   *  the command as written can be allowed. */
  stripped?: boolean;
  /** Path tools: an absolute path the call reaches. */
  path?: string;
  /** Path tools: whether that path lies inside the workspace. */
  inside?: boolean;
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

/** A glob as a regular expression over absolute paths: `**` any folders, `*` and `?` within one name. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*' && glob[i + 1] === '*') {
      source += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/**
 * What `call` touches, as the tools would see it. bash: one subject per simple command (splitCommand), and a
 * second one without the assignments and wrappers in front when that differs. Path tools: the path resolved against
 * the workspace (`src/../.env` is `.env`) and, when a symlink leads elsewhere, where it really leads, each with
 * whether it is inside the workspace. web_fetch: the URL's host. Any other tool: one subject with only the name.
 */
export async function callSubjects(call: ToolCall, ws: Workspace): Promise<Subject[]> {
  // #region chapter 8: callSubjects
  // 1. The arguments may be anything the model sent: read them as a record, and a field as text only when it is
  //    a string.
  // 2. bash: for each part of splitCommand(command), a subject with command = words(part).join(' '), and another
  //    with commandWords(part).join(' ') and stripped: true when that is different.
  // 3. A PATH_TOOLS tool: resolve the path (default '.') against ws.root with path.resolve, and find where it
  //    really leads with realLocation (given, chapter 2). One subject per distinct path, each with `inside`:
  //    the resolved one inside ws.root, the real one inside realLocation(ws.root).
  // 4. web_fetch: a subject with the URL's hostname (URL.canParse, then new URL(...)); an invalid URL gives no host.
  // 5. Anything else: [{ tool: call.name }].
  const args = (typeof call.arguments === 'object' && call.arguments !== null ? call.arguments : {}) as Record<string, unknown>;
  const text = (key: string) => (typeof args[key] === 'string' ? (args[key] as string) : undefined);
  if (call.name === 'bash') {
    return splitCommand(text('command') ?? '').flatMap((part) => {
      const written = words(part).join(' ');
      const bare = commandWords(part).join(' ');
      const subjects: Subject[] = [{ tool: call.name, command: written }];
      if (bare !== written) subjects.push({ tool: call.name, command: bare, stripped: true });
      return subjects;
    });
  }
  if (PATH_TOOLS.has(call.name)) {
    const absolute = path.resolve(ws.root, text('path') ?? '.');
    const [realRoot, real] = await Promise.all([realLocation(path.resolve(ws.root)), realLocation(absolute)]);
    const subjects: Subject[] = [{ tool: call.name, path: absolute, inside: isInside(path.resolve(ws.root), absolute) }];
    if (real !== absolute) subjects.push({ tool: call.name, path: real, inside: isInside(realRoot, real) });
    return subjects;
  }
  if (call.name === 'web_fetch') {
    const url = text('url') ?? '';
    return [{ tool: call.name, host: URL.canParse(url) ? new URL(url).hostname : undefined }];
  }
  return [{ tool: call.name }];
  // #endregion
}

/** The absolute glob a path rule's pattern stands for: `//abs`, `~/x` (home), `/x` and `./x` or `x` (workspace). */
export function rulePathGlob(pattern: string, ws: Workspace): string {
  if (pattern.startsWith('//')) return pattern.slice(1);
  if (pattern === '~' || pattern.startsWith('~/')) return path.posix.join(ws.home, pattern.slice(1));
  return path.posix.join(ws.root, pattern.startsWith('/') ? pattern.slice(1) : pattern);
}

/**
 * Whether `rule` covers `subject`. The names: an MCP rule matches its own name or, for `mcp__server`, every tool of
 * that server (`mcp__server__…`, not `mcp__server2__…`); any other rule matches the kit tools CLAUDE_TOOLS lists
 * for it. No specifier matches every call of those tools. Bash: `prefix:*` or `prefix *` matches the prefix alone
 * or followed by a space (word boundary); other `*` match anything; else the command exactly. Path rules: the
 * pattern (rulePathGlob) matches the subject's path or a folder above it. WebFetch: `domain:host` matches that
 * host exactly, `domain:*.host` any host below it.
 */
export function ruleMatches(rule: Rule, subject: Subject, ws: Workspace): boolean {
  // #region chapter 8: ruleMatches
  // 1. The name: for a rule starting with `mcp__`, the subject's tool is the rule's name or starts with it plus
  //    `__`; otherwise CLAUDE_TOOLS[rule.tool] includes the subject's tool. No match: false.
  // 2. No specifier: true.
  // 3. A command subject: turn the specifier into a RegExp: a trailing `:*` or ` *` becomes `( .*)?` (the prefix
  //    alone, or a space and more), any other `*` becomes `.*`, everything else is escaped; anchor it (^...$).
  // 4. A path subject: globToRegExp(rulePathGlob(specifier)) must match the path or one of its parent folders.
  // 5. A host subject: the specifier after `domain:` equals the host, or starts with `*.` and the host ends with
  //    the rest (with the dot). Anything else: false.
  const name = rule.tool.startsWith('mcp__')
    ? subject.tool === rule.tool || subject.tool.startsWith(`${rule.tool}__`)
    : (CLAUDE_TOOLS[rule.tool] ?? []).includes(subject.tool);
  if (!name) return false;
  const spec = rule.specifier;
  if (spec === undefined) return true;
  if (subject.command !== undefined) {
    const prefix = /(?::| )\*$/.test(spec);
    const body = prefix ? spec.slice(0, -2) : spec;
    const source = body.split('*').map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
    return new RegExp(`^${source}${prefix ? '( .*)?' : ''}$`, 's').test(subject.command);
  }
  if (subject.path !== undefined) {
    const glob = globToRegExp(rulePathGlob(spec, ws));
    for (let at = subject.path; ; at = path.dirname(at)) {
      if (glob.test(at)) return true;
      if (path.dirname(at) === at) return false;
    }
  }
  if (subject.host !== undefined && spec.startsWith('domain:')) {
    const domain = spec.slice('domain:'.length);
    return subject.host === domain || (domain.startsWith('*.') && subject.host.endsWith(domain.slice(1)));
  }
  return false;
  // #endregion
}

const where = (rule: Rule) => `${formatRule(rule)} (${rule.source})`;

/**
 * Allow, ask or deny for one call, in Claude Code's order:
 * 1. a deny rule that matches any subject: deny;
 * 2. plan mode, and the tool is not read-only: deny (the model is planning);
 * 3. unless in bypassPermissions: a safety concern (safetyConcern for each command; an edit inside .git/ or
 *    .claude/): ask;
 * 4. unless in bypassPermissions: an ask rule that matches any subject: ask;
 * 5. every subject (but the stripped forms of commands) allowed, by an allow rule or by the mode (bypassPermissions: all; any mode: read-only tools;
 *    acceptEdits: edit tools inside the workspace): allow, with the first allow rule used if any;
 * 6. otherwise: ask, saying no rule allows it in this mode.
 * `readOnly` says whether the tool only looks: by default, whether it is one of READ_ONLY_TOOLS; the gate also
 * counts a tool that declares itself read-only (Tool.readOnly, an MCP server's readOnlyHint).
 */
export async function evaluate(rules: readonly Rule[], mode: PermissionMode, call: ToolCall, ws: Workspace, readOnly = READ_ONLY_TOOLS.has(call.name)): Promise<Decision> {
  // #region chapter 8: evaluate
  // 1. Find the subjects (callSubjects). A helper `first(behavior)` finds the first rule of that behaviour that
  //    matches any subject (ruleMatches).
  // 2. Deny rule: { behavior: 'deny', reason naming the rule and its source, rule }.
  // 3. Plan mode and a tool that is not readOnly: deny, with a reason that says the agent is planning and
  //    may only read.
  // 4. Unless the mode is bypassPermissions: the first safety concern (safetyConcern of each command subject; an
  //    EDIT_TOOLS path that touchesGit or has a `.claude` folder in it) is an ask with that reason; then an ask
  //    rule is an ask naming it.
  // 5. Each subject but the stripped ones is allowed by the first allow rule that matches it, or by the mode: bypassPermissions,
  //    a readOnly tool, or acceptEdits for EDIT_TOOLS with `inside`. All allowed (and at least one subject):
  //    allow, with the first rule used (if any) in the decision and the reason.
  // 6. Otherwise ask, with a reason that names the tool and the mode.
  const subjects = await callSubjects(call, ws);
  const first = (behavior: Behavior) => rules.find((rule) => rule.behavior === behavior && subjects.some((s) => ruleMatches(rule, s, ws)));
  const deny = first('deny');
  if (deny) return { behavior: 'deny', reason: `denied by the rule ${where(deny)}`, rule: deny };
  if (mode === 'plan' && !readOnly) {
    return { behavior: 'deny', reason: `plan mode: the agent is planning and may only read; ${call.name} is not run while planning` };
  }
  if (mode !== 'bypassPermissions') {
    for (const subject of subjects) {
      const concern =
        subject.command !== undefined
          ? safetyConcern(subject.command, ws)
          : subject.path !== undefined && EDIT_TOOLS.has(subject.tool) && (touchesGit(subject.path) || subject.path.split('/').includes('.claude'))
            ? `${subject.tool} changes ${subject.path}, inside a protected folder (.git or .claude)`
            : undefined;
      if (concern) return { behavior: 'ask', reason: `${concern} (always asked)` };
    }
    const ask = first('ask');
    if (ask) return { behavior: 'ask', reason: `the rule ${where(ask)} asks first`, rule: ask };
  }
  let used: Rule | undefined;
  const allowed = subjects.filter((subject) => !subject.stripped).every((subject) => {
    const rule = rules.find((r) => r.behavior === 'allow' && ruleMatches(r, subject, ws));
    used ??= rule;
    return rule !== undefined || mode === 'bypassPermissions' || readOnly || (mode === 'acceptEdits' && EDIT_TOOLS.has(subject.tool) && subject.inside === true);
  });
  if (allowed && subjects.length > 0) {
    return { behavior: 'allow', reason: used ? `allowed by the rule ${where(used)}` : `allowed in ${mode} mode`, rule: used };
  }
  return { behavior: 'ask', reason: `no rule allows ${call.name} here, and ${mode} mode asks` };
  // #endregion
}
