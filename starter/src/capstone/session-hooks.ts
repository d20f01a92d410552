/**
 * Chapter 15: the hooks around a prompt and a session, UserPromptSubmit, Stop and SessionStart.
 *
 * They are not loop hooks: a terminal program calls them around a run (sessionHooks; npm run agent and npm run acp
 * do). A prompt may be refused or given extra context, a finished run asked to keep going, a new session given text
 * for its system prompt. Each runs its hooks with command-hooks.ts's runHook, so a hook's exit code and JSON answer
 * mean what they mean for PreToolUse and PostToolUse (command-hooks.ts says how, and where the kit differs from
 * Claude Code).
 */
import { TodoError } from '../todo.js';
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'runUserPromptSubmit');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'runStop');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'runSessionStart');
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
