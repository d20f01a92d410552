/**
 * Chapter 15: the hooks a person already wrote for Claude Code, run by our agent.
 *
 * Claude Code's settings files (chapter 8 reads their `permissions`) may also hold `hooks`: shell commands to run
 * at fixed points of a session. Each gets a JSON object on stdin that says what happened, and answers with its exit
 * code (0 goes on, 2 blocks and stderr says why, anything else is a failure of the hook that blocks nothing) and,
 * on exit 0, maybe a JSON object on stdout with a finer answer. The kit runs five of Claude Code's events:
 *
 * - PreToolUse and PostToolUse become chapter 7 hooks (commandHooks): before a call, a hook may block it (the model
 *   reads why), allow it, or change its input; after it, a hook may add a note to the result the model reads.
 * - UserPromptSubmit, Stop and SessionStart are not loop hooks: a terminal program calls them around a run
 *   (sessionHooks, in session-hooks.ts, on this file's runHook). A prompt may be refused or given extra context, a
 *   finished run asked to keep going, a new session given text for its system prompt.
 *
 * Where the kit differs from Claude Code, and why:
 * - hooks that match run one after another, in the order of the files and groups, not side by side: a hook sees
 *   the input as the hooks before it changed it, and the first block ends the chain;
 * - matchers are tried against the kit's tool name and against Claude Code's name for it (`bash` and `Bash`), so
 *   existing settings work with the kit's lower-case tools;
 * - PreToolUse's `allow` is one hook's opinion (chapter 7's composeHooks: a later block still wins, and chapter 8's
 *   gate still asks when its rules say so); `ask` is left to that gate;
 * - PostToolUse runs after every call that ran, failed ones too, and `tool_response` is the kit's result
 *   ({ content, isError }) rather than each tool's own object, with Claude Code's `stdout`, `stderr` and
 *   `interrupted` added for bash (hook-input.ts);
 * - `tool_input` holds the kit's arguments with the kit's names, and Claude Code's `file_path` beside the file
 *   tools' `path` (hook-input.ts); `transcript_path` is the kit's session file, chapter 12's JSON Lines, not Claude
 *   Code's transcript format, and is left out when the session is not saved;
 * - only `"type": "command"` hooks run; the other types (http, prompt, agent) and the other events are skipped.
 * Sources: the hooks reference, https://code.claude.com/docs/en/hooks (docs.anthropic.com/en/docs/claude-code/hooks).
 */
import { TodoError } from '../todo.js';
import type { ToolDecision } from '../agent-events.js';
import type { Hooks } from '../hooks.js';
import type { ToolCall, ToolResultMessage } from '../messages.js';
import { hookToolInput, hookToolResponse, kitToolInput } from './hook-input.js';
import { runHookCommand, type RunHookCommand } from './hook-runner.js';
import {
  claudeCodeName,
  hookMatches,
  isObject,
  DEFAULT_HOOK_TIMEOUT_S,
  type HookCommand,
  type HookConfig,
  type HookEvent,
  type HookGroup,
} from './hook-settings.js';

export * from './hook-input.js';
export * from './hook-settings.js';
export { runHookCommand, type HookRun, type HookRunOptions, type RunHookCommand } from './hook-runner.js';

/** What the kit passes to every hook command, and where it tells the person about hooks that failed. */
export interface CommandHookOptions {
  /** The workspace: the commands run there, and hooks read it as `cwd`. */
  cwd: string;
  /** The session's id, sent to every hook as `session_id`. */
  sessionId: string;
  /** The session file, sent as `transcript_path` (not sent when there is none: --no-session). */
  transcriptPath?: string;
  /** The permission mode now, sent as `permission_mode` (read at each hook: plan mode and /mode change it). */
  permissionMode?: () => string;
  /** Told when a PreToolUse hook answers permissionDecision `ask` for a call, with its reason: the permission gate
   *  then asks the person about that call even when a rule allows it (its mustAsk). */
  asked?(callId: string, reason: string): void;
  /** Runs one command (default runHookCommand); tests pass their own. */
  run?: RunHookCommand;
  /** Told, in one sentence each, about hooks that failed, timed out or printed something unreadable. */
  report?(note: string): void;
}

/**
 * What one hook command answered:
 * - block: it exited with code 2; `message` is its stderr (or a sentence saying it gave none);
 * - ok: it exited with 0; `text` is its stdout trimmed, `json` the object it printed, if it printed one;
 * - ignored: it failed, timed out or printed a broken object. It was reported and changes nothing.
 */
export type HookVerdict =
  | { type: 'block'; message: string }
  | { type: 'ok'; text: string; json?: Record<string, unknown> }
  | { type: 'ignored' };

/**
 * Runs one hook command for `event` with `fields` added to the common input, and reads its answer. Reports (never
 * throws) a hook that failed; throws the signal's reason when the run was cancelled before or while it ran.
 *
 * - The input on stdin is what Claude Code documents for its hook commands: the common fields (session_id,
 *   transcript_path and permission_mode when the options have them, as the mode is when the hook runs, cwd,
 *   hook_event_name), then `fields`. It runs with options.run (runHookCommand when there is none) in options.cwd,
 *   with the signal, for the hook's timeout in seconds (DEFAULT_HOOK_TIMEOUT_S when the settings give none).
 * - A cancelled run starts no command, and a run cancelled while one ran is cancelled, not a block nor a failure.
 * - Exit code 2 blocks (HookVerdict), with stderr trimmed as the message, or a sentence that names the event and the
 *   command when stderr is empty. Only 2 blocks: a hook that crashes must not stop the agent.
 * - A time-out, another exit code (none when it was killed), or output that starts with `{` but is not JSON: the
 *   verdict is ignored, and options.report gets one line naming the event and the command, with the limit (the
 *   words `timed out`), the code and stderr trimmed, or the word JSON.
 * - Exit code 0: ok with stdout trimmed, and the parsed object when that text starts with `{`.
 */
export async function runHook(
  event: HookEvent,
  hook: HookCommand,
  fields: Record<string, unknown>,
  options: CommandHookOptions,
  signal: AbortSignal,
): Promise<HookVerdict> {
  // #region chapter 15: runHook
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'runHook');
  // #endregion
}

/**
 * PreToolUse: runs the hooks whose matcher selects the call, in order, and says what they decided: a block (the
 * model reads why), a change of the arguments, an allow, or nothing (undefined) when no hook had an opinion.
 *
 * - Every matching hook runs, not only the first; each is sent what Claude Code sends: the tool as Claude Code names
 *   it (claudeCodeName), its input as hookToolInput shows it (given: file_path beside a file tool's path) and the
 *   call's id. A hook that changed the arguments passes them on: the hooks after it are sent the new ones.
 * - Exit code 2, or Claude Code's hookSpecificOutput with permissionDecision `deny` (its reason trimmed, or a
 *   sentence of yours), blocks at once: the hooks after it do not run.
 * - An updatedInput object is the new arguments, read back with kitToolInput (given: a changed file_path is path).
 * - `ask` makes the call a question for the person whatever the rules say: tell options.asked the call's id and the
 *   reason (a sentence naming the hook when it gave none). `allow` is remembered. A change wins over an allow.
 */
export async function runPreToolUse(
  groups: readonly HookGroup[],
  call: ToolCall,
  options: CommandHookOptions,
  signal: AbortSignal,
): Promise<ToolDecision | undefined> {
  // #region chapter 15: runPreToolUse
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'runPreToolUse');
  // #endregion
}

/**
 * PostToolUse: runs the hooks whose matcher selects the call, in order, each with the result as the tool returned
 * it. Returns a new result with what they want the model to read added to its content, or undefined when they have
 * nothing to say. Never changes the result it is given.
 *
 * Each hook is sent what Claude Code sends: the tool's Claude Code name (claudeCodeName), its input (hookToolInput)
 * and response (hookToolResponse: content, isError, and bash's stdout and stderr), both given, and the call's id.
 * A hook has something to say with exit code 2 (its message) or the JSON decision `block` (its reason trimmed, or a
 * sentence of yours). Each note is added after a blank line as `PostToolUse hook: <note>`. The call already ran,
 * so nothing turns it into an error.
 */
export async function runPostToolUse(
  groups: readonly HookGroup[],
  call: ToolCall,
  result: ToolResultMessage,
  options: CommandHookOptions,
  signal: AbortSignal,
): Promise<ToolResultMessage | undefined> {
  // #region chapter 15: runPostToolUse
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'runPostToolUse');
  // #endregion
}

/**
 * PreToolUse and PostToolUse as chapter 7 hooks, for an Agent's `hooks` list. An event with no groups adds no hook.
 * Each hook gets the run's signal: an abort kills a running command and rejects with the signal's reason.
 */
export function commandHooks(config: HookConfig, options: CommandHookOptions): Hooks {
  const hooks: Hooks = {};
  if (config.PreToolUse.length > 0)
    hooks.beforeToolCall = (call, ctx) => runPreToolUse(config.PreToolUse, call, options, ctx.signal);
  if (config.PostToolUse.length > 0)
    hooks.afterToolCall = (call, result, ctx) => runPostToolUse(config.PostToolUse, call, result, options, ctx.signal);
  return hooks;
}
