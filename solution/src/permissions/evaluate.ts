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
  // 1. shellCommands(command) (given) gives the commands, the writes and the reads. For each command, its inner
  //    commands (innerCommands(words, 0)) add more of all three, and fileOperands (given) of each command the files
  //    it takes; a read of a redirection is a file read too. All three throw NotUnderstood: catch it and return [{ tool: 'bash', command, unknown: the
  //    error's message }]. Anything else is a bug: rethrow it.
  // 2. For each command: a subject { tool: 'bash', command: joinWords(assignments and words) }, then one with the
  //    words alone (stripped: true) when there are assignments, and one for each inner command: stripped when it
  //    is a view, not stripped when it is another command it runs (that one needs an allow of its own).
  // 3. Every command subject carries concern: safetyConcern(its words) and beyond: beyondRule(its words) when
  //    there is one, and unknown (saying its name is only known when it runs) when it is computed.
  // 4. Each file: await pathSubjects({ tool: 'read' or 'write' as its access says, path: resolveArg(path, ws),
  //    operand: true, searched when it is }). Each redirect write: pathSubjects({ tool: 'write', path, redirect: true }).
  const subjects: Subject[] = [];
  const writes: string[] = [];
  const files: Array<{ path: string; access: 'read' | 'write'; searched?: boolean }> = [];
  const add = (words: readonly string[], computed: boolean, extra: Partial<Subject>) => {
    const concern = safetyConcern(words, ws);
    const beyond = beyondRule(words);
    subjects.push({
      tool: 'bash',
      command: joinWords(words),
      ...extra,
      ...(concern && { concern }),
      ...(beyond && { beyond }),
      ...(computed && { unknown: `its name ${words[0]} is only known when it runs` }),
    });
  };
  try {
    const found = shellCommands(command);
    writes.push(...found.writes);
    files.push(...found.reads.map((read) => ({ path: read, access: 'read' as const })));
    for (const simple of found.commands) {
      add([...simple.assignments, ...simple.words], simple.computed, {});
      if (simple.assignments.length > 0) add(simple.words, simple.computed, { stripped: true });
      files.push(...fileOperands(simple.words));
      const inner = innerCommands(simple.words, 0);
      for (const one of inner.commands) {
        add(one.words, one.computed, one.view ? { stripped: true } : {});
        files.push(...fileOperands(one.words));
      }
      writes.push(...inner.writes);
      files.push(...inner.reads.map((read) => ({ path: read, access: 'read' as const })));
    }
  } catch (error) {
    if (error instanceof NotUnderstood) return [{ tool: 'bash', command, unknown: error.message }];
    throw error;
  }
  for (const file of files) {
    const subject: Subject & { path: string } = {
      tool: file.access,
      path: resolveArg(file.path, ws),
      operand: true,
      ...(file.searched && { searched: true }),
    };
    subjects.push(...(await pathSubjects(subject, ws)));
  }
  for (const target of writes)
    subjects.push(...(await pathSubjects({ tool: 'write', path: resolveArg(target, ws), redirect: true }, ws)));
  return subjects;
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
  // 1. The arguments may be anything the model sent: read them as a record, and a field as text only when it is
  //    a string.
  // 2. bash: bashSubjects of the command ('' when there is none).
  // 3. A PATH_TOOLS tool: resolve the path (default '.') against ws.root with path.resolve, and return its
  //    pathSubjects (given); for glob and grep mark it searched: true (they read what is inside).
  // 4. web_fetch: a subject with the URL's hostname (URL.canParse, then new URL(...)); an invalid URL gives no host.
  // 5. Anything else: [{ tool: call.name }].
  const args = (typeof call.arguments === 'object' && call.arguments !== null ? call.arguments : {}) as Record<
    string,
    unknown
  >;
  const text = (key: string) => (typeof args[key] === 'string' ? (args[key] as string) : undefined);
  if (call.name === 'bash') return bashSubjects(text('command') ?? '', ws);
  if (PATH_TOOLS.has(call.name)) {
    const searched = call.name === 'glob' || call.name === 'grep';
    return pathSubjects(
      { tool: call.name, path: path.resolve(ws.root, text('path') ?? '.'), ...(searched && { searched }) },
      ws,
    );
  }
  if (call.name === 'web_fetch') {
    const url = text('url') ?? '';
    return [{ tool: call.name, host: URL.canParse(url) ? new URL(url).hostname : undefined }];
  }
  return [{ tool: call.name }];
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
  // 1. The name: for a rule starting with `mcp__`, the subject's tool equals the rule's name or, when the rule
  //    names a whole server (mcpRuleServer, given), starts with that server plus `__`. Otherwise CLAUDE_TOOLS
  //    lists the subject's tool for the rule's name (only its own keys: Object.hasOwn; ruleTools, given, narrows
  //    what an allow rule covers). No match: false.
  // 2. A subject with `unknown`: true for a deny or ask rule, false for an allow rule (whatever the specifier).
  //    A subject with `beyond`: false for an allow rule.
  // 3. No specifier: true.
  // 4. A command subject: commandPattern(specifier) (given) tests the command.
  // 5. A path subject: globToRegExp(rulePathGlob(specifier)) matches the path or one of its parent folders; or
  //    the rule is not an allow rule, the subject is searched, and globReachesInto(glob, path).
  // 6. A host subject: the specifier after `domain:` equals the host, or starts with `*.` and the host ends with
  //    the rest (with the dot). Anything else: false.
  const server = mcpRuleServer(rule.tool);
  const name = rule.tool.startsWith('mcp__')
    ? subject.tool === rule.tool || (server !== undefined && subject.tool.startsWith(`${server}__`))
    : Object.hasOwn(CLAUDE_TOOLS, rule.tool) && ruleTools(rule).includes(subject.tool);
  if (!name) return false;
  if (subject.unknown !== undefined) return rule.behavior !== 'allow';
  if (subject.beyond !== undefined && rule.behavior === 'allow') return false;
  const spec = rule.specifier;
  if (spec === undefined) return true;
  if (subject.command !== undefined) return commandPattern(spec).test(subject.command);
  if (subject.path !== undefined) {
    const pattern = rulePathGlob(spec, ws);
    const glob = globToRegExp(pattern);
    if (rule.behavior !== 'allow' && subject.searched && globReachesInto(pattern, subject.path)) return true;
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
  // 1. Find the subjects (callSubjects). A helper `first(behavior)` finds the first rule of that behaviour that
  //    matches any subject (ruleMatches).
  // 2. Deny rule: { behavior: 'deny', reason naming the rule and its source, rule }.
  // 3. Plan mode and a tool that is not readOnly: deny, with a reason that says the agent is planning and
  //    may only read.
  // 4. In every mode (bypassPermissions too: the person asked to be asked, and a protected file stays protected):
  //    a bash subject that is unknown while any deny rule for files exists (PATH_RULE_TOOLS: Read, Edit, ...) is
  //    an ask saying it could reach a file a deny rule protects; then the first subject's concern is an ask with
  //    that reason; then an ask rule is an ask naming it.
  // 5. Each subject but the stripped ones and the files a command takes inside the workspace (operand and
  //    inside) is allowed by the first allow rule that matches it, or by the mode: bypassPermissions, a readOnly
  //    tool (but never an unknown subject), or acceptEdits for EDIT_TOOLS with `inside`. All allowed (and at
  //    least one subject): allow, with the first rule used (if any) in the decision and the reason.
  // 6. Otherwise ask. The reason names the tool and the mode, or, when a subject is unknown, says the call is
  //    not understood, why (its `unknown`), and that no rule can allow it.
  const subjects = await callSubjects(call, ws);
  const first = (behavior: Behavior) =>
    rules.find((rule) => rule.behavior === behavior && subjects.some((s) => ruleMatches(rule, s, ws)));
  const deny = first('deny');
  if (deny) return { behavior: 'deny', reason: `denied by the rule ${where(deny)}`, rule: deny };
  if (mode === 'plan' && !readOnly) {
    return {
      behavior: 'deny',
      reason: `plan mode: the agent is planning and may only read; ${call.name} is not run while planning`,
    };
  }
  const hidden = subjects.find((subject) => subject.tool === 'bash' && subject.unknown !== undefined);
  if (hidden && rules.some((rule) => rule.behavior === 'deny' && PATH_RULE_TOOLS.has(rule.tool))) {
    return {
      behavior: 'ask',
      reason: `the command is not understood (${hidden.unknown}), so it could reach a file a deny rule protects`,
    };
  }
  const concern = subjects.find((subject) => subject.concern !== undefined)?.concern;
  if (concern) return { behavior: 'ask', reason: `${concern} (always asked)` };
  const ask = first('ask');
  if (ask) return { behavior: 'ask', reason: `the rule ${where(ask)} asks first`, rule: ask };
  let used: Rule | undefined;
  const own = subjects.filter((subject) => !subject.stripped && !(subject.operand && subject.inside));
  const allowed = own.every((subject) => {
    const rule = rules.find((r) => r.behavior === 'allow' && ruleMatches(r, subject, ws));
    used ??= rule;
    if (rule !== undefined || mode === 'bypassPermissions') return true;
    return (
      (readOnly && subject.unknown === undefined) ||
      (mode === 'acceptEdits' && EDIT_TOOLS.has(subject.tool) && subject.inside === true)
    );
  });
  if (allowed && subjects.length > 0) {
    return {
      behavior: 'allow',
      reason: used ? `allowed by the rule ${where(used)}` : `allowed in ${mode} mode`,
      rule: used,
    };
  }
  const unknown = subjects.find((subject) => subject.unknown !== undefined)?.unknown;
  if (unknown) return { behavior: 'ask', reason: `the call is not understood (${unknown}), so no rule can allow it` };
  return { behavior: 'ask', reason: `no rule allows ${call.name} here, and ${mode} mode asks` };
  // #endregion
}
