/**
 * Chapter 8: the permission gate, plugged into chapter 7's loop as a before-tool-call hook.
 *
 * The gate asks `evaluate` about every call. Allowed calls run; denied ones never run, and the model reads why as
 * the call's result; for the rest it asks the person through an async callback (a terminal prompt, an editor's
 * dialog over ACP), with the run's signal, so an abort while the question is open ends the run as cancelled.
 * The answers are ACP's four: allow once, allow always (a session rule as narrow as the call: the command's
 * prefix, the file), reject once, reject always (a session deny rule). The mode can change during a session.
 */
import type { PermissionAnswer, PermissionNote, ToolDecision } from '../agent-events.js';
import type { HookContext, Hooks } from '../hooks.js';
import type { ToolCall } from '../messages.js';
import { displayPath } from '../workspace.js';
import { NotUnderstood, shellCommands, suggestBashRule, type Workspace } from './command.js';
import { callSubjects, evaluate, PERMISSION_MODES, READ_ONLY_TOOLS, type PermissionMode } from './evaluate.js';
import { formatRule, parseRule, type Rule } from './rules.js';

export type { PermissionAnswer } from '../agent-events.js';
export const PERMISSION_ANSWERS: readonly PermissionAnswer[] = [
  'allow_once',
  'allow_always',
  'reject_once',
  'reject_always',
];

/** What the person is asked about. */
export interface PermissionRequest {
  call: ToolCall;
  /** Why the gate asks (evaluate's reason). */
  reason: string;
  /** The rules "always" would add (none when the call cannot be written as a rule). */
  suggestedRules: string[];
  /** When "always" would still not allow the next identical call: why (the ask rule or check that keeps asking). */
  stillAsks?: string;
}

/**
 * Asks the person; should give up (reject) when the signal aborts. Resolves undefined when nobody can answer (no
 * terminal): the call is then rejected as if there were no callback.
 */
export type AskPermission = (request: PermissionRequest, signal: AbortSignal) => Promise<PermissionAnswer | undefined>;

export interface GateOptions {
  workspace: Workspace;
  rules?: readonly Rule[];
  mode?: PermissionMode;
  /** Without one, a call that needs asking is rejected with a message that says how to allow it. */
  ask?: AskPermission;
  /**
   * Why a call the rules would allow must still be asked about, or undefined: something before the gate asked for
   * a question (chapter 15's PreToolUse hook answering `ask`). It only ever adds a question: a deny stays a deny.
   */
  mustAsk?: (call: ToolCall) => string | undefined;
}

export interface PermissionGate extends Hooks {
  readonly mode: PermissionMode;
  setMode(mode: PermissionMode): void;
  /** The rules the person added this session with "always", in order. */
  readonly sessionRules: readonly Rule[];
  beforeToolCall(call: ToolCall, ctx: HookContext): Promise<ToolDecision>;
}

/** A rule for one path inside the workspace, written from the root, its glob characters escaped. */
const fileRule = (tool: string, absolute: string, ws: Workspace) =>
  `${tool}(/${displayPath(ws.root, absolute).replace(/[\\*?]/g, '\\$&')})`;

/**
 * The rules "always" adds for `call`, never wider than the call: bash, suggestBashRule for each simple command
 * (no repeats; none at all when any part of the call is not understood or a name is computed), and `Write(/<file>)` for
 * each file a redirection writes inside the workspace; edit, `Edit(/<file>)`; write, `Write(/<file>)`; read, glob and grep, `Read(/<path>)` (workspace paths written from the root, glob characters
 * escaped); web_fetch, `WebFetch(domain:<host>)`; an MCP tool, its full name (a tool rule, exact). Never a bare
 * tool name for a built-in tool: any other call gets no rule.
 */
export async function suggestRules(call: ToolCall, ws: Workspace): Promise<string[]> {
  const args = (typeof call.arguments === 'object' && call.arguments !== null ? call.arguments : {}) as Record<
    string,
    unknown
  >;
  if (call.name === 'bash') {
    try {
      const { commands } = shellCommands(typeof args.command === 'string' ? args.command : '');
      const subjects = await callSubjects(call, ws);
      if (commands.some((command) => command.computed) || subjects.some((one) => one.unknown !== undefined)) return [];
      const writes = subjects.filter((one) => one.redirect && one.inside && !one.concern);
      return [...new Set([...commands.map(suggestBashRule), ...writes.map((one) => fileRule('Write', one.path!, ws))])];
    } catch (error) {
      if (error instanceof NotUnderstood) return [];
      throw error;
    }
  }
  if (call.name.startsWith('mcp__'))
    return call.name.split('__').length >= 3 && !call.name.endsWith('__*') ? [call.name] : [];
  const [subject] = await callSubjects(call, ws);
  if (subject?.path !== undefined && subject.inside) {
    return [fileRule(call.name === 'write' ? 'Write' : call.name === 'edit' ? 'Edit' : 'Read', subject.path, ws)];
  }
  if (subject?.host) return [`WebFetch(domain:${subject.host})`];
  return [];
}

/**
 * Why the next identical call would still be asked about after "always" added `suggested` as allow rules, or
 * undefined when it would be allowed: a person told "allowed from now on" must not be asked again.
 */
export async function stillAsks(
  rules: readonly Rule[],
  suggested: readonly string[],
  mode: PermissionMode,
  call: ToolCall,
  ws: Workspace,
  readOnly: boolean,
): Promise<string | undefined> {
  if (suggested.length === 0) return undefined;
  const added = suggested.map((text) => parseRule(text, 'allow', 'session'));
  const next = await evaluate([...rules, ...added], mode, call, ws, readOnly);
  return next.behavior === 'allow' ? undefined : next.reason;
}

/** Waits for `promise`, but rejects with the signal's reason as soon as it aborts. */
function rejectOnAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * A permission gate over `options.rules` plus the session's rules, in `options.mode` (default: 'default').
 * beforeToolCall never runs the call; it returns allow or block, each with a PermissionNote (outcome, reason, the
 * rule as written and its source, the person's answer). Throws the signal's reason when the run aborts while
 * asking. setMode throws for a mode that does not exist.
 */
export function createPermissionGate(options: GateOptions): PermissionGate {
  const sessionRules: Rule[] = [];
  let mode: PermissionMode = options.mode ?? 'default';
  return {
    get mode() {
      return mode;
    },
    setMode(next: PermissionMode) {
      if (!PERMISSION_MODES.includes(next))
        throw new Error(`unknown permission mode ${JSON.stringify(next)}; use one of ${PERMISSION_MODES.join(', ')}`);
      mode = next;
    },
    sessionRules,
    /**
     * Judges one call before it runs: it never runs the call, only decides (ToolDecision), and every decision
     * carries a PermissionNote (agent-event-types.ts) saying how it was reached: the rule as written and its
     * source when a rule decided, the answer and the rules added when the person was asked.
     *
     * - evaluate judges it with the options' rules and then this session's, in the current mode, counting as
     *   read-only what READ_ONLY_TOOLS lists or what the run's tools (ctx.tools) declare read-only; a tool the run
     *   does not have is judged like any other, without a crash.
     * - Allowed: the call goes ahead, unless options.mustAsk gives a reason for it, which turns it into a question
     *   with that reason (it only ever adds a question: a deny stays a deny).
     * - Denied: blocked, never asked; the model reads that it was `denied`, why (the rule, or that the agent is
     *   planning), and not to retry.
     * - Otherwise the person is asked (options.ask) with a PermissionRequest: the reason, the rules "always" would
     *   add (suggestRules, given) and, only when "always" would still ask next time, why (stillAsks, given), and
     *   the run's signal. An abort while the question is open rejects at once with the signal's reason, even when
     *   the callback ignores the signal (rejectOnAbort, given).
     * - Fail closed when nobody can answer (no callback, or it answers undefined): blocked, as denied, saying the
     *   call needs the person's approval, nobody can answer here, and how to allow it: always both ways, the
     *   `--allowedTools` flag (with the first suggested rule quoted after it, when there is one) and an allow rule
     *   in `.claude/settings.json`.
     * - `allow_once` and `allow_always` let it run; any other answer blocks it, saying the person `rejected` it and
     *   not to retry. An "always" adds the suggested rules to the session (parseRule, source `session`): allow
     *   rules, or deny rules for `reject_always`, used for every later call.
     */
    async beforeToolCall(call, ctx) {
      // #region chapter 8: createPermissionGate.beforeToolCall
      // 1. evaluate the call with the options' rules followed by the session rules, the current mode, the
      //    workspace, and whether the tool only reads (READ_ONLY_TOOLS, or ctx.tools says its tool is readOnly).
      //    Make a note: { outcome, reason, mode } plus the rule (formatRule) and its source if a rule decided.
      // 2. allow, unless options.mustAsk gives a reason for this call (then it is an ask, with that reason, and step 4
      //    goes on): { type: 'allow', permission: note with outcome 'allowed' }.
      // 3. deny: a block whose message says it was denied and why (the reason names the rule or the mode), and that
      //    the model should not retry it; outcome 'denied'.
      // 4. ask: the suggested rules (suggestRules) and whether "always" would still ask next time (stillAsks, given,
      //    set only when it would), then await the callback with { call, reason, suggestedRules, stillAsks } and
      //    ctx.signal, raced against the signal (rejectOnAbort, given: an abort rejects with its reason).
      // 5. No callback, or it answered undefined (nobody can answer): a block that says the call needs approval
      //    nobody could give, and how to allow it (--allowedTools, or an allow rule in .claude/settings.json);
      //    outcome 'denied'.
      // 6. allow_always adds each suggested rule as a session 'allow' rule (parseRule, source 'session'),
      //    reject_always as a 'deny' rule. allow_once / allow_always: allow; anything else: a block saying the
      //    person rejected the call. Outcome 'asked', with the answer and the rules added.
      const readOnly = READ_ONLY_TOOLS.has(call.name) || ctx.tools?.get(call.name)?.readOnly === true;
      const rules = [...(options.rules ?? []), ...sessionRules];
      const evaluated = await evaluate(rules, mode, call, options.workspace, readOnly);
      const hookReason = evaluated.behavior === 'allow' ? options.mustAsk?.(call) : undefined;
      const decision = hookReason === undefined ? evaluated : { behavior: 'ask' as const, reason: hookReason };
      const note: PermissionNote = { outcome: 'allowed', reason: decision.reason, mode };
      if (decision.rule) Object.assign(note, { rule: formatRule(decision.rule), source: decision.rule.source });
      if (decision.behavior === 'allow') return { type: 'allow', permission: note };
      if (decision.behavior === 'deny') {
        return {
          type: 'block',
          message: `Permission denied: ${decision.reason}. Do not retry this call; do something else or ask the person.`,
          permission: { ...note, outcome: 'denied' },
        };
      }
      const suggestedRules = await suggestRules(call, options.workspace);
      const request: PermissionRequest = { call, reason: decision.reason, suggestedRules };
      const still = await stillAsks(rules, suggestedRules, mode, call, options.workspace, readOnly);
      if (still !== undefined) request.stillAsks = still;
      const answer = options.ask && (await rejectOnAbort(options.ask(request, ctx.signal), ctx.signal));
      if (answer === undefined) {
        return {
          type: 'block',
          message: `Permission needed: ${call.name} needs the person's approval (${decision.reason}), and nobody can answer here. To allow it, start the agent with --allowedTools${suggestedRules[0] ? ` "${suggestedRules[0]}"` : ''}, or add an allow rule to .claude/settings.json.`,
          permission: { ...note, outcome: 'denied' },
        };
      }
      const asked: PermissionNote = { ...note, outcome: 'asked', answer };
      if (answer === 'allow_always' || answer === 'reject_always') {
        const behavior = answer === 'allow_always' ? 'allow' : 'deny';
        sessionRules.push(...suggestedRules.map((text) => parseRule(text, behavior, 'session')));
        asked.added = suggestedRules;
      }
      if (answer === 'allow_once' || answer === 'allow_always') return { type: 'allow', permission: asked };
      return {
        type: 'block',
        message: `The person rejected this ${call.name} call. Do not retry it; ask them what to do instead.`,
        permission: asked,
      };
      // #endregion
    },
  };
}
