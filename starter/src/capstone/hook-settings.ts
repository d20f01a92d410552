/**
 * Chapter 15: the `hooks` of Claude Code's settings files, read and checked (parseHookSettings), and which tool a
 * group's matcher selects (hookMatches). command-hooks.ts runs them.
 */
import { TodoError } from '../todo.js';
import { SettingsError } from '../permissions/settings.js';

/** The events the kit runs, as Claude Code names them. */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SessionStart'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** One command of a settings file. `timeout` is in seconds, as in Claude Code. */
export interface HookCommand {
  type: 'command';
  command: string;
  timeout?: number;
}

/** A matcher and its commands. No matcher (or '' or '*') matches everything. */
export interface HookGroup {
  matcher?: string;
  hooks: HookCommand[];
}

/** Every event's groups, in the order the settings gave them (an event nobody configured has none). */
export type HookConfig = Record<HookEvent, HookGroup[]>;

/** How long a hook may run when its settings do not say (seconds). */
export const DEFAULT_HOOK_TIMEOUT_S = 60;

/** A matcher made of these characters is a list of exact names (`Edit|Write`), not a regex. */
export const PLAIN_MATCHER = /^[A-Za-z0-9_|]+$/;

/** Claude Code's names for the kit's tools; any other tool (mcp__server__tool) has the same name in both. */
export const CLAUDE_CODE_TOOL_NAMES: ReadonlyMap<string, string> = new Map([
  ['bash', 'Bash'],
  ['edit', 'Edit'],
  ['write', 'Write'],
  ['read', 'Read'],
  ['glob', 'Glob'],
  ['grep', 'Grep'],
  ['web_fetch', 'WebFetch'],
  ['todo_write', 'TodoWrite'],
  ['task', 'Task'],
  ['exit_plan_mode', 'ExitPlanMode'],
]);

/** The name Claude Code gives the kit's tool `name`. */
export function claudeCodeName(name: string): string {
  return CLAUDE_CODE_TOOL_NAMES.get(name) ?? name;
}

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A config with no hooks at all. */
export function emptyHookConfig(): HookConfig {
  return { PreToolUse: [], PostToolUse: [], UserPromptSubmit: [], Stop: [], SessionStart: [] };
}

/** Several files' hooks as one config: every event's groups, file after file (Claude Code runs them all). */
export function mergeHookConfigs(configs: readonly HookConfig[]): HookConfig {
  const merged = emptyHookConfig();
  for (const config of configs) for (const event of HOOK_EVENTS) merged[event].push(...config[event]);
  return merged;
}

/**
 * True when `matcher` selects `name` (a tool's name, or for SessionStart the source), as Claude Code reads a
 * hook's matcher: none, empty or `*` is every name; one made only of word characters and `|` (PLAIN_MATCHER)
 * selects exactly the words between the bars, so `Write` does not select TodoWrite; anything else is a regular
 * expression, unanchored (`mcp__.*`, `^Web`), and one that does not compile selects nothing. Both the kit's name for
 * a tool and Claude Code's are tried (claudeCodeName: the kit's `bash` is Claude Code's `Bash`), so settings
 * written for Claude Code work as written.
 */
export function hookMatches(matcher: string | undefined, name: string): boolean {
  // #region chapter 15: hookMatches
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'hookMatches');
  // #endregion
}

/**
 * The hooks of one parsed settings file (`value`, the whole file; `source` names it in errors). A file without
 * `hooks` has none. Events the kit does not run, and hooks of a type other than `command`, are skipped. Throws
 * SettingsError (chapter 8's) naming the source, the event and the index of what is wrong.
 *
 * - The file is Claude Code's: `hooks` is an object with one key per event (HOOK_EVENTS), each an array of groups
 *   `{ matcher?, hooks: [...] }`, each hook `{ type: "command", command, timeout? }` with the timeout in seconds.
 * - Refused, each error naming the source and the place as a path down to the index (`hooks.PostToolUse[1].matcher`,
 *   `hooks.Stop[0].hooks[0].command`) and what is wrong there: settings or `hooks` that are not objects, an event
 *   that is not an array, a group that is not an object or has no array of hooks, a matcher that is not a string or
 *   not a regular expression that compiles (a plain list of names and `*` need not compile), a hook that is not an
 *   object with a string type, a command hook whose command is empty (spaces only is empty), a timeout that is not
 *   a positive number.
 * - What is kept has no key the file did not give (no matcher, no timeout).
 */
export function parseHookSettings(value: unknown, source: string): HookConfig {
  // #region chapter 15: parseHookSettings
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'parseHookSettings');
  // #endregion
}
