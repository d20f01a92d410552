/**
 * Chapter 15: the hooks around a prompt and a session, UserPromptSubmit, Stop and SessionStart.
 *
 * They are not loop hooks: a terminal program calls them around a run (sessionHooks; npm run agent and npm run acp
 * do). A prompt may be refused or given extra context, a finished run asked to keep going, a new session given text
 * for its system prompt. Each runs its hooks with command-hooks.ts's runHook, so a hook's exit code and JSON answer
 * mean what they mean for PreToolUse and PostToolUse (command-hooks.ts says how, and where the kit differs from
 * Claude Code).
 */
import { type CommandHookOptions, runHook } from './command-hooks.js';
import { type HookConfig, type HookGroup, hookMatches, isObject } from './hook-settings.js';

/** UserPromptSubmit's answer: the prompt is refused (the person reads why), or goes on with maybe some context. */
export type PromptVerdict = { blocked: true; reason: string } | { blocked: false; context?: string };

/**
 * Runs every UserPromptSubmit hook, in order, before a prompt is sent (this event has no matcher: every group
 * counts), each told the prompt. A hook refuses the prompt with exit code 2 or with Claude Code's JSON decision
 * `block` (its reason trimmed, or a sentence of yours when it gave none); the first refusal ends it, later hooks do
 * not run. Otherwise each hook may add context for the model: its JSON's hookSpecificOutput.additionalContext, or the
 * plain text it printed; the pieces, trimmed and not empty, joined by new lines. No context: no `context` key.
 */
export async function runUserPromptSubmit(
  groups: readonly HookGroup[],
  prompt: string,
  options: CommandHookOptions,
  signal: AbortSignal,
): Promise<PromptVerdict> {
  // #region chapter 15: runUserPromptSubmit
  // 1. For every hook of every group, in order (this event has no matcher): runHook('UserPromptSubmit', hook,
  //    { prompt }, options, signal).
  // 2. A block verdict (exit code 2): return { blocked: true, reason: its message } at once; later hooks do not run.
  // 3. An ok verdict with JSON: decision 'block' blocks the same way, with its `reason` trimmed (a sentence of your
  //    own when that leaves none); a string hookSpecificOutput.additionalContext, trimmed, is context when not empty.
  //    An ok verdict without JSON: its text, when not empty, is context.
  // 4. Return { blocked: false }, with `context` (the pieces joined by newlines) only when there is some.
  const context: string[] = [];
  for (const group of groups) {
    for (const hook of group.hooks) {
      const verdict = await runHook('UserPromptSubmit', hook, { prompt }, options, signal);
      if (verdict.type === 'block') return { blocked: true, reason: verdict.message };
      if (verdict.type !== 'ok') continue;
      const { json } = verdict;
      if (!json) {
        if (verdict.text) context.push(verdict.text);
        continue;
      }
      if (json.decision === 'block') {
        const reason = typeof json.reason === 'string' && json.reason.trim();
        return { blocked: true, reason: reason || `A UserPromptSubmit hook ("${hook.command}") refused this prompt.` };
      }
      const extra = isObject(json.hookSpecificOutput) ? json.hookSpecificOutput.additionalContext : undefined;
      if (typeof extra === 'string' && extra.trim()) context.push(extra.trim());
    }
  }
  return context.length > 0 ? { blocked: false, context: context.join('\n') } : { blocked: false };
  // #endregion
}

/** Stop's answer: the agent may stop, or should go on with `reason` as the next user message. */
export type StopVerdict = { continue: false } | { continue: true; reason: string };

/**
 * Runs every Stop hook, in order, when a run has answered. `stopHookActive` tells the hooks that this run was
 * itself a continuation a Stop hook asked for (so a hook can avoid asking forever); the caller must bound the
 * continuations anyway.
 *
 * Each hook is told both, as Claude Code's stop_hook_active and last_assistant_message (every group counts: no
 * matcher). The first that blocks (exit code 2, or the JSON decision `block` with its reason trimmed, a sentence of
 * yours when it gave none) ends it: the agent goes on with that reason. None: the agent may stop.
 */
export async function runStop(
  groups: readonly HookGroup[],
  lastAnswer: string,
  stopHookActive: boolean,
  options: CommandHookOptions,
  signal: AbortSignal,
): Promise<StopVerdict> {
  // #region chapter 15: runStop
  // 1. For every hook of every group, in order (no matcher): runHook('Stop', hook, { stop_hook_active:
  //    stopHookActive, last_assistant_message: lastAnswer }, options, signal).
  // 2. A block verdict (exit code 2): return { continue: true, reason: its message } at once.
  // 3. An ok verdict whose JSON has decision 'block': the same, with its `reason` trimmed (a sentence of your own
  //    when that leaves none).
  // 4. After the last hook: { continue: false }, the agent may stop.
  for (const group of groups) {
    for (const hook of group.hooks) {
      const verdict = await runHook(
        'Stop',
        hook,
        { stop_hook_active: stopHookActive, last_assistant_message: lastAnswer },
        options,
        signal,
      );
      if (verdict.type === 'block') return { continue: true, reason: verdict.message };
      if (verdict.type === 'ok' && verdict.json?.decision === 'block') {
        const reason = typeof verdict.json.reason === 'string' && verdict.json.reason.trim();
        return { continue: true, reason: reason || `A Stop hook ("${hook.command}") asked you to keep going.` };
      }
    }
  }
  return { continue: false };
  // #endregion
}

/** Why a session starts: a new one, one resumed from disk, or one started afresh with /clear. */
export type SessionSource = 'startup' | 'resume' | 'clear';

/**
 * Runs the SessionStart hooks whose matcher selects `source`, in order; returns what they add to the system
 * prompt. hookMatches works on any name, so a matcher such as `startup|resume` selects sources. What a hook adds
 * is its JSON's hookSpecificOutput.additionalContext when it printed JSON, else what it printed; trimmed, empty
 * ones left out, the rest joined by a blank line ('' for none). Exit code 2 cannot stop a session from starting:
 * options.report gets one line with what the hook wrote on stderr, and the others go on.
 */
export async function runSessionStart(
  groups: readonly HookGroup[],
  source: SessionSource,
  options: CommandHookOptions,
  signal: AbortSignal,
): Promise<string> {
  // #region chapter 15: runSessionStart
  // 1. For every group whose matcher selects the source (hookMatches works on any name: `startup|resume`), every
  //    hook of it, in order: runHook('SessionStart', hook, { source }, options, signal).
  // 2. An ok verdict with JSON: a string hookSpecificOutput.additionalContext, trimmed, is context; without JSON: its
  //    text. Either only when not empty. A block verdict cannot stop a session from starting: report its message and
  //    go on.
  // 3. Return the pieces joined by a blank line ('' when there are none).
  const context: string[] = [];
  for (const group of groups) {
    if (!hookMatches(group.matcher, source)) continue;
    for (const hook of group.hooks) {
      const verdict = await runHook('SessionStart', hook, { source }, options, signal);
      if (verdict.type === 'block')
        options.report?.(
          `SessionStart hook "${hook.command}" exited with code 2, which cannot stop a session: ${verdict.message}`,
        );
      if (verdict.type !== 'ok') continue;
      const extra = isObject(verdict.json?.hookSpecificOutput)
        ? verdict.json.hookSpecificOutput.additionalContext
        : undefined;
      const text = verdict.json ? (typeof extra === 'string' ? extra.trim() : '') : verdict.text;
      if (text) context.push(text);
    }
  }
  return context.join('\n\n');
  // #endregion
}

/** The session-level events, for a terminal program to call around its runs (they are not loop hooks). */
export interface SessionHooks {
  /** Before a prompt is sent: refuse it (show the person the reason) or send it with the context added. */
  onPromptSubmit(prompt: string, signal?: AbortSignal): Promise<PromptVerdict>;
  /** After a run answered: stop, or run again with the reason as a user message (bound how often). */
  onStop(lastAnswer: string, options?: { stopHookActive?: boolean; signal?: AbortSignal }): Promise<StopVerdict>;
  /** When a session starts: text to add to the system prompt ('' for none). */
  onSessionStart(source: SessionSource, signal?: AbortSignal): Promise<string>;
}

export function sessionHooks(config: HookConfig, options: CommandHookOptions): SessionHooks {
  const never = () => new AbortController().signal;
  return {
    onPromptSubmit: (prompt, signal = never()) => runUserPromptSubmit(config.UserPromptSubmit, prompt, options, signal),
    onStop: (lastAnswer, { stopHookActive = false, signal = never() } = {}) =>
      runStop(config.Stop, lastAnswer, stopHookActive, options, signal),
    onSessionStart: (source, signal = never()) => runSessionStart(config.SessionStart, source, options, signal),
  };
}
