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
  // 1. If the signal has already aborted, throw its reason: a cancelled run starts no command.
  // 2. The input is { session_id: options.sessionId, transcript_path: options.transcriptPath, cwd: options.cwd,
  //    permission_mode: options.permissionMode() now, hook_event_name: event, ...fields }, transcript_path and
  //    permission_mode only when those options are given (Claude Code sends both to every hook). Run it with
  //    options.run (runHookCommand when absent), in options.cwd, with the signal and the hook's time limit in
  //    milliseconds: hook.timeout is in seconds, DEFAULT_HOOK_TIMEOUT_S when the settings give none.
  // 3. If the signal aborted while it ran (the runner has killed it), throw the signal's reason: the run is
  //    cancelled, which is neither a block nor a failure of the hook.
  // 4. Timed out: report it (options.report, when given: the event, the command and the limit) and return ignored.
  // 5. Exit code 2: return a block whose message is stderr trimmed, or a sentence naming the event and the command
  //    when stderr is empty. Stdout is not read.
  // 6. Any other code but 0 (null too: killed): report the event, the command, the code and stderr trimmed, and return
  //    ignored. Only 2 blocks: a hook that crashes must not stop the agent.
  // 7. Exit code 0: the text is stdout trimmed. Text that starts with `{` is meant as JSON: return
  //    { type: 'ok', text, json } with the parsed object, or, when it does not parse, report that and return
  //    ignored. Any other text: { type: 'ok', text }.
  signal.throwIfAborted();
  const input = {
    session_id: options.sessionId,
    ...(options.transcriptPath !== undefined ? { transcript_path: options.transcriptPath } : {}),
    cwd: options.cwd,
    ...(options.permissionMode ? { permission_mode: options.permissionMode() } : {}),
    hook_event_name: event,
    ...fields,
  };
  const seconds = hook.timeout ?? DEFAULT_HOOK_TIMEOUT_S;
  const run = options.run ?? runHookCommand;
  const outcome = await run(hook.command, input, { cwd: options.cwd, timeoutMs: seconds * 1000, signal });
  signal.throwIfAborted();
  const name = `${event} hook "${hook.command}"`;
  if (outcome.timedOut) {
    options.report?.(`${name} timed out after ${seconds} s and was stopped; going on without it`);
    return { type: 'ignored' };
  }
  if (outcome.exitCode === 2) {
    return { type: 'block', message: outcome.stderr.trim() || `${name} exited with code 2 without saying why.` };
  }
  if (outcome.exitCode !== 0) {
    const stderr = outcome.stderr.trim();
    options.report?.(
      `${name} failed with exit code ${outcome.exitCode ?? 'none (killed)'}${stderr ? `: ${stderr}` : ''}; going on without it`,
    );
    return { type: 'ignored' };
  }
  const text = outcome.stdout.trim();
  if (!text.startsWith('{')) return { type: 'ok', text };
  try {
    return { type: 'ok', text, json: JSON.parse(text) as Record<string, unknown> };
  } catch (error) {
    options.report?.(
      `${name} printed output that starts with { but is not valid JSON (${(error as Error).message}); ignored`,
    );
    return { type: 'ignored' };
  }
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
  // 1. Keep the arguments as the hooks have left them so far (call.arguments at first), whether a hook changed them,
  //    and whether a hook said allow.
  // 2. For every group whose matcher selects call.name (hookMatches), every hook of it, in order:
  //    runHook('PreToolUse', hook, { tool_name: claudeCodeName(call.name), tool_input: hookToolInput(call.name,
  //    <the arguments so far>, options.cwd), tool_use_id: call.id }, options, signal). Every matching hook runs,
  //    not only the first. (hookToolInput, given, adds Claude Code's file_path beside a file tool's path.)
  // 3. A block verdict (exit code 2): return { type: 'block', message } at once; the hooks after it do not run.
  // 4. An ok verdict with JSON: look at its hookSpecificOutput (when isObject). permissionDecision 'deny': return a
  //    block with its permissionDecisionReason trimmed (a sentence of your own when that leaves none). An
  //    updatedInput object replaces the arguments, as kitToolInput(call.name, updatedInput, the tool_input that
  //    hook was sent) (given: a file_path the hook changed becomes path): the hooks after it get the new ones.
  //    permissionDecision 'allow': remember it. 'ask': tell options.asked(call.id, its permissionDecisionReason
  //    trimmed, or a sentence of your own naming the hook), so the person is asked whatever the rules say, and go
  //    on. Nothing: no opinion. Ignored verdicts change nothing: runHook has reported them.
  // 5. After the last hook: { type: 'change', arguments } if a hook changed them, else { type: 'allow' } if a hook
  //    said allow, else undefined.
  let args = call.arguments;
  let changed = false;
  let allowed = false;
  for (const group of groups) {
    if (!hookMatches(group.matcher, call.name)) continue;
    for (const hook of group.hooks) {
      const input = hookToolInput(call.name, args, options.cwd);
      const fields = { tool_name: claudeCodeName(call.name), tool_input: input, tool_use_id: call.id };
      const verdict = await runHook('PreToolUse', hook, fields, options, signal);
      if (verdict.type === 'block') return { type: 'block', message: verdict.message };
      if (verdict.type !== 'ok' || !isObject(verdict.json?.hookSpecificOutput)) continue;
      const output = verdict.json.hookSpecificOutput;
      if (output.permissionDecision === 'deny') {
        const reason = typeof output.permissionDecisionReason === 'string' && output.permissionDecisionReason.trim();
        return {
          type: 'block',
          message: reason || `A PreToolUse hook ("${hook.command}") denied this ${call.name} call.`,
        };
      }
      if (isObject(output.updatedInput)) {
        args = kitToolInput(call.name, output.updatedInput, input);
        changed = true;
      }
      if (output.permissionDecision === 'allow') allowed = true;
      if (output.permissionDecision === 'ask') {
        const reason = typeof output.permissionDecisionReason === 'string' && output.permissionDecisionReason.trim();
        options.asked?.(call.id, reason || `a PreToolUse hook ("${hook.command}") asked for the person's approval`);
      }
    }
  }
  if (changed) return { type: 'change', arguments: args };
  return allowed ? { type: 'allow' } : undefined;
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
  // 1. For every group whose matcher selects call.name, every hook of it, in order: runHook('PostToolUse', hook,
  //    { tool_name: claudeCodeName(call.name), tool_input: hookToolInput(call.name, call.arguments, options.cwd),
  //    tool_response: hookToolResponse(call.name, result), tool_use_id: call.id }, options, signal). (Both given:
  //    Claude Code's file_path beside path; the result's content and isError, and for bash its stdout and stderr.)
  // 2. Collect the notes for the model: the message of a block verdict (exit code 2), and the `reason` of an ok
  //    verdict whose JSON has decision 'block', trimmed (a sentence of your own when that leaves no reason).
  // 3. No notes: return undefined (the result stands). Otherwise return a NEW result with the same fields, whose
  //    content is the old content followed, for each note, by a blank line and `PostToolUse hook: <note>`. Never
  //    change the result you were given (the loop may still hold it); the call already ran, so isError stays.
  const notes: string[] = [];
  for (const group of groups) {
    if (!hookMatches(group.matcher, call.name)) continue;
    for (const hook of group.hooks) {
      const fields = {
        tool_name: claudeCodeName(call.name),
        tool_input: hookToolInput(call.name, call.arguments, options.cwd),
        tool_response: hookToolResponse(call.name, result),
        tool_use_id: call.id,
      };
      const verdict = await runHook('PostToolUse', hook, fields, options, signal);
      if (verdict.type === 'block') notes.push(verdict.message);
      else if (verdict.type === 'ok' && verdict.json?.decision === 'block') {
        const reason = typeof verdict.json.reason === 'string' && verdict.json.reason.trim();
        notes.push(reason || `the hook "${hook.command}" flagged this result without saying why.`);
      }
    }
  }
  if (notes.length === 0) return undefined;
  return { ...result, content: [result.content, ...notes.map((note) => `PostToolUse hook: ${note}`)].join('\n\n') };
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
