/**
 * Chapter 15: the `hooks` of Claude Code's settings files, read and checked (parseHookSettings), and which tool a
 * group's matcher selects (hookMatches). command-hooks.ts runs them.
 */
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
  // 1. No matcher, '' or '*': every name matches.
  // 2. The names to try: `name` and claudeCodeName(name) (the kit's `bash` is Claude Code's `Bash`).
  // 3. A matcher of only letters, digits, _ and | (PLAIN_MATCHER) is a list of exact names: split it on | and
  //    answer whether one of the names is in the list. `Write` is a name, not a regex: it does not match TodoWrite.
  // 4. Any other matcher is a regex, unanchored as in Claude Code (`mcp__.*`, `^Web`): true when it matches one of
  //    the names. One that does not compile matches nothing (parseHookSettings refuses it anyway).
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  const names = [name, claudeCodeName(name)];
  if (PLAIN_MATCHER.test(matcher)) {
    const list = matcher.split('|');
    return names.some((candidate) => list.includes(candidate));
  }
  try {
    const regex = new RegExp(matcher);
    return names.some((candidate) => regex.test(candidate));
  } catch {
    return false;
  }
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
  // 1. Start from emptyHookConfig(). The value must be an object (isObject), else throw a SettingsError that names
  //    the source. No `hooks` key: return the empty config. A `hooks` that is not an object is an error too.
  // 2. For each event of HOOK_EVENTS that `hooks` has: it must be an array of groups. Every error from here on names
  //    the source and where: `<source>: hooks.PreToolUse[1]` for a group, `hooks.PreToolUse[1].hooks[0]` for a hook;
  //    and every error says what is wrong there.
  // 3. Each group: an object; `matcher` absent or a string, and a matcher that is neither plain (PLAIN_MATCHER) nor
  //    '*' (Claude Code's documentation writes "*" for every tool; as a regex it does not compile) must compile as a
  //    RegExp; `hooks` an array.
  // 4. Each hook: an object with a string `type`. Skip any type but 'command'. A command hook needs a non-empty
  //    string `command`, and a `timeout` that is absent or a positive number. Keep { type, command } and the timeout
  //    when there is one; keep the matcher only when there is one.
  // 5. Push each group (with its command hooks) onto its event's list, and return the config.
  const config = emptyHookConfig();
  const fail = (where: string, problem: string): never => {
    throw new SettingsError(`${source}: ${where} ${problem}`);
  };
  if (!isObject(value)) fail('the settings', 'must be a JSON object');
  const settings = value as Record<string, unknown>;
  if (settings.hooks === undefined) return config;
  if (!isObject(settings.hooks)) fail('hooks', 'must be an object with one key per event');
  const hooks = settings.hooks as Record<string, unknown>;
  for (const event of HOOK_EVENTS) {
    const groups = hooks[event];
    if (groups === undefined) continue;
    if (!Array.isArray(groups)) fail(`hooks.${event}`, 'must be an array of { matcher, hooks } groups');
    (groups as unknown[]).forEach((group, i) => {
      const at = `hooks.${event}[${i}]`;
      if (!isObject(group)) return fail(at, 'must be an object with a "hooks" array');
      const { matcher } = group;
      if (matcher !== undefined && typeof matcher !== 'string') fail(`${at}.matcher`, 'must be a string');
      if (typeof matcher === 'string' && matcher !== '*' && !PLAIN_MATCHER.test(matcher)) {
        try {
          new RegExp(matcher);
        } catch (error) {
          fail(`${at}.matcher`, `is not a valid regular expression: ${(error as Error).message}`);
        }
      }
      if (!Array.isArray(group.hooks)) fail(`${at}.hooks`, 'must be an array of hook commands');
      const commands: HookCommand[] = [];
      (group.hooks as unknown[]).forEach((hook, j) => {
        const hookAt = `${at}.hooks[${j}]`;
        if (!isObject(hook) || typeof hook.type !== 'string')
          return fail(hookAt, 'must be an object with a string "type"');
        if (hook.type !== 'command') return;
        if (typeof hook.command !== 'string' || hook.command.trim() === '')
          fail(`${hookAt}.command`, 'must be a non-empty string');
        const { timeout } = hook;
        if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0)))
          fail(`${hookAt}.timeout`, 'must be a positive number of seconds');
        commands.push({
          type: 'command',
          command: hook.command as string,
          ...(timeout !== undefined ? { timeout: timeout as number } : {}),
        });
      });
      config[event].push({ ...(matcher !== undefined ? { matcher: matcher as string } : {}), hooks: commands });
    });
  }
  return config;
  // #endregion
}
