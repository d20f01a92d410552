/**
 * Chapter 15: the workspace is untrusted until the person trusts it.
 *
 * A folder the agent works in may have been written by someone else: a repository cloned a minute ago chooses its
 * own `.claude/settings.json`, `.mcp.json` and `CLAUDE.md`. Reading those files is safe; acting on them is not.
 * A hook is a shell command, a stdio server is a program, an http server is a place the person's secrets could be
 * sent (`${ANTHROPIC_API_KEY}` in a header), and `defaultMode: bypassPermissions` switches every question off. So,
 * as Claude Code does with its trust dialog and its approval of project MCP servers:
 *
 * - until the person trusts the folder, nothing of the folder runs: its hooks (the project's settings files') are
 *   left out, its `.mcp.json` servers are not started, its allow rules and its defaultMode are ignored;
 * - even in a trusted folder, the committed `.claude/settings.json` may not raise the permission mode
 *   (`bypassPermissions`, `acceptEdits`) nor allow a rule wide in effect: a whole tool (`Bash`, `Bash(*)`), or any
 *   command through a wildcard, a wrapper, a shell or an interpreter (`Bash(env:*)`, `Bash(* --version)`,
 *   `Bash(sh -c:*)`, `Bash(python -c:*)`): a file every clone shares must not switch the person's questions off.
 *   The person's own `settings.local.json` and user settings may;
 * - only the person approves a `.mcp.json` server: their answer, or their own ~/.claude/settings.json. The folder's
 *   files (`enabledMcpjsonServers`, `enableAllProjectMcpServers` in .claude/settings.json or settings.local.json)
 *   approve nothing, so a repository cannot add a server to what the person already trusted.
 *
 * The answer is remembered per folder in `~/.coding-agent/trust.json` (the kit's user folder, beside its sessions;
 * Claude Code keeps the same answer in `~/.claude.json`). The terminal asks the first time (`npm run agent`); `-p`
 * skips what needs trust unless `--trust-workspace` says so; `npm run acp` starts a session in an untrusted folder
 * without the folder's hooks and servers and says so on stderr. The factory (buildAgent) applies the decision for
 * both, through trustedSettings below.
 */
import { TodoError } from '../todo.js';
import { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PermissionMode } from '../permissions/evaluate.js';
import { SHELLS, WRAPPERS } from '../permissions/command.js';
import type { Rule } from '../permissions/rules.js';
import type { Settings } from '../permissions/settings.js';
import { HOOK_EVENTS, mergeHookConfigs, type HookConfig } from './hook-settings.js';
import { visible } from './render-lines.js';

/** Where a settings file sits: the person's (~/.claude), the committed project file, the project's local file. */
export type SettingsScope = 'user' | 'project' | 'local';

/** What one settings file says, as loadAgentSettings read it. */
export interface SettingsSource {
  file: string;
  scope: SettingsScope;
  defaultMode?: PermissionMode;
  hooks: HookConfig;
  /** Claude Code's approval of the servers of a project's .mcp.json (only a 'user' file's counts: mcpServerApproved). */
  enableAllProjectMcpServers?: boolean;
  enabledMcpjsonServers?: string[];
  disabledMcpjsonServers?: string[];
}

/** The settings files read (chapter 8's Settings), their hooks merged, and what each file said. */
export interface AgentSettings extends Settings {
  hooks: HookConfig;
  /** Each file on its own, user first (missing when a program made the settings itself: they are its own). */
  sources?: SettingsSource[];
}

/** The person's decision about a workspace. */
export interface WorkspaceTrust {
  /** The person trusts the folder: its hooks, rules and the servers below may act. */
  trusted: boolean;
  /** The .mcp.json servers the person approved by name, or 'all' (--trust-workspace, the question answered yes). */
  servers?: readonly string[] | 'all';
}

/** The permission modes that raise what runs without a question. */
export const ESCALATING_MODES: readonly PermissionMode[] = ['bypassPermissions', 'acceptEdits'];

/** Tools whose bare allow rule only reads: allowing them whole switches off no question about a change. */
const READING_TOOLS = new Set(['Read', 'Glob', 'Grep', 'TodoWrite', 'read', 'glob', 'grep', 'todo_write']);

/**
 * Programs that run code given to them as text, each with the options that take it (`python -c`, `node -e`); the
 * shells (chapter 8's SHELLS) take `-c`. `eval` runs its words as a command, like the wrappers (chapter 8's
 * WRAPPERS: `env`, `xargs`, `timeout`, `nohup`, `exec`, `sudo`, ...).
 */
export const INTERPRETERS: ReadonlyMap<string, readonly string[]> = new Map([
  ['python', ['-c']],
  ['python2', ['-c']],
  ['python3', ['-c']],
  ['node', ['-e', '--eval', '-p', '--print']],
  ['nodejs', ['-e', '--eval', '-p', '--print']],
  ['bun', ['-e', '--eval', '-p', '--print']],
  ['deno', ['eval']],
  ['perl', ['-e', '-E']],
  ['ruby', ['-e']],
  ['php', ['-r']],
  ['lua', ['-e']],
  ['awk', []],
]);

/** Whether `word` (an option) is one of `flags`, as written (`--eval=x`) or in a cluster of short ones (`-ec`). */
function givesCode(word: string, flags: readonly string[]): boolean {
  return flags.some(
    (flag) =>
      word === flag ||
      word.startsWith(`${flag}=`) ||
      (/^-[A-Za-z]$/.test(flag) && /^-[A-Za-z]+$/.test(word) && word.includes(flag[1]!)),
  );
}

/**
 * Why a Bash rule's command runs any command or any code, or undefined when it names what runs. The specifier is
 * read as the gate matches it (a `\x` is a plain x, a trailing `:*` is " *"), leading `NAME=value` words skipped:
 * its first word is a wildcard; or a wrapper or `eval` (what runs is the words after it, and the gate lets them
 * through with the rule); or a shell or an interpreter given code as text (`sh -c`, `node -e`) or given no script
 * at all (`bash:*`, `python *`). `python -m pytest:*` and `node scripts/build.js` name what runs: narrow.
 */
function anyCommandReason(specifier: string): string | undefined {
  const words = specifier.replace(/:\*$/, ' *').replace(/\\(.)/gs, '$1').trim().split(/\s+/);
  while (words.length > 1 && /^[A-Za-z_]\w*=/.test(words[0]!)) words.shift();
  const first = words[0] ?? '';
  if (first.includes('*')) return `any command: it starts with a wildcard (${first})`;
  const name = path.basename(first);
  if (WRAPPERS.has(name) || name === 'eval') return `any command: ${name} runs the command after it`;
  const flags = SHELLS.has(name) ? ['-c'] : INTERPRETERS.get(name);
  if (!flags) return undefined;
  for (const word of words.slice(1)) {
    if (word.includes('*')) return `any code: ${name} with any arguments runs whatever they say`;
    if (givesCode(word, flags)) return `any code: ${name} ${word} runs the code it is given as text`;
    if (!word.startsWith('-')) return undefined;
  }
  return `any code: ${name} without a script runs whatever it is given`;
}

/**
 * Why an allow rule is wide in effect, or undefined when it is narrow (deny and ask rules, and rules for the tools
 * that only read, never are): `a whole tool` for no specifier, or one made only of wildcards (`Bash`, `Bash(*)`,
 * `Bash(:*)`, `Edit(**)`, `mcp__server`); for a Bash rule, `any command: ...` or `any code: ...` when its command
 * starts with a wildcard, a wrapper, a shell or an interpreter (`Bash(env:*)`, `Bash(* --version)`,
 * `Bash(sh -c:*)`, `Bash(python -c:*)`; anyCommandReason). A rule with a real command or path in it is narrow.
 */
export function wideAllowReason(rule: Pick<Rule, 'behavior' | 'tool' | 'specifier'>): string | undefined {
  if (rule.behavior !== 'allow' || READING_TOOLS.has(rule.tool)) return undefined;
  if (rule.tool.startsWith('mcp__') && rule.tool.split('__').length < 3) return 'a whole tool';
  if (rule.specifier === undefined || /^[\s*:/.]*$/.test(rule.specifier)) return 'a whole tool';
  return rule.tool === 'Bash' || rule.tool === 'bash' ? anyCommandReason(rule.specifier) : undefined;
}

/** The settings with what the trust decision leaves of them, and a line for each thing left out. */
export interface TrustedSettings {
  settings: AgentSettings;
  dropped: string[];
}

/**
 * The settings as they may act under `trust`. Settings without `sources` (made by a program, not read from files)
 * are the program's own and come back as they are.
 *
 * - The person's own file (scope user) always counts. A project or local file counts only in a trusted folder: the
 *   folder wrote them, and a clone can carry a settings.local.json too. A file that does not count gives no hooks,
 *   none of its allow rules (its deny and ask rules stay: they only make more questions), and no mode.
 * - Even trusted, the committed project file never raises the mode (ESCALATING_MODES) and never allows something
 *   wide (each rule wideAllowReason, given, gives a reason for); the local file may choose acceptEdits but never
 *   bypassPermissions: only the person's own ~/.claude/settings.json or --permission-mode may skip every question.
 * - The mode is that of the last file, in the sources' order, whose mode was kept (none: no mode); the hooks are
 *   those of the files that count, merged in order (mergeHookConfigs).
 * - Everything left out is said in `dropped`: exactly one line per file that does not count and had something to
 *   give, naming it and counting its hooks and allow rules (and naming its mode); one line per wide rule, naming the file and the rule as written (`Bash`, or
 *   `Bash(:*)`) and the reason; one line per mode ignored, naming the file and the mode, and for
 *   the project file pointing at --permission-mode and `.claude/settings.json` instead.
 */
export function trustedSettings(settings: AgentSettings, trust: WorkspaceTrust): TrustedSettings {
  // #region chapter 15: trustedSettings
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'trustedSettings');
  // #endregion
}

/**
 * Whether the project's `.mcp.json` server `name` may start: the folder is trusted, the server is not disabled (by
 * any settings file: a refusal only takes away), and the person approved it: in their answer (`trust.servers`) or in
 * their own settings (`enabledMcpjsonServers`, `enableAllProjectMcpServers` of a 'user' file). The folder's own files
 * never approve a server, `settings.local.json` included (a clone can carry one): a repository that could approve
 * its own servers would widen the person's decision after they made it.
 */
export function mcpServerApproved(name: string, trust: WorkspaceTrust, settings: AgentSettings): boolean {
  if (!trust.trusted) return false;
  const sources = settings.sources ?? [];
  if (sources.some((source) => source.disabledMcpjsonServers?.includes(name))) return false;
  if (trust.servers === 'all' || trust.servers?.includes(name)) return true;
  return sources.some(
    (source) =>
      source.scope === 'user' &&
      (source.enableAllProjectMcpServers === true || source.enabledMcpjsonServers?.includes(name)),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// What a folder asks for (the question the person answers), and the remembered answers.

/** One thing a folder wants to run or change, for the question. */
export interface FolderRequest {
  kind: 'hook' | 'stdio server' | 'http server' | 'setting';
  /** Where it is written. */
  file: string;
  /**
   * What it is, as written (not expanded): a hook's event and command; a server's name, then its command and
   * arguments or its URL, and everything else the server would receive (env, cwd, headers); a setting.
   */
  what: string;
  /** A server's name in .mcp.json (servers only). */
  server?: string;
  /** The person's environment variables it would receive (`${VAR}` in a server's entry). */
  variables: string[];
}

/** A word of a command as the question shows it: quoted (JSON) when it holds a space or a quote, or is empty. */
function shownWord(value: unknown): string {
  const text = typeof value === 'string' ? value : String(JSON.stringify(value));
  return /^[^\s"'\\]+$/.test(text) ? text : JSON.stringify(text);
}

/** The `${VAR}` names in the strings of `value` (any depth). */
export function referencedVariables(value: unknown): string[] {
  const names = new Set<string>();
  const visit = (item: unknown) => {
    if (typeof item === 'string')
      for (const match of item.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(match[1]!);
    else if (Array.isArray(item)) item.forEach(visit);
    else if (item && typeof item === 'object') Object.values(item).forEach(visit);
  };
  visit(value);
  return [...names];
}

/**
 * What the folder's files ask to run or raise: the hooks of its settings files, the servers of its .mcp.json
 * (`mcpJson`, the parsed file, not expanded), an escalating defaultMode and allow rules. Empty: nothing to ask.
 */
export function folderRequests(settings: AgentSettings, mcpJson?: { file: string; json: unknown }): FolderRequest[] {
  const requests: FolderRequest[] = [];
  for (const source of settings.sources ?? []) {
    if (source.scope === 'user') continue;
    for (const event of HOOK_EVENTS) {
      for (const group of source.hooks[event]) {
        for (const hook of group.hooks)
          requests.push({
            kind: 'hook',
            file: source.file,
            what: `${event}${group.matcher ? ` (${group.matcher})` : ''}: ${hook.command}`,
            variables: [],
          });
      }
    }
    if (source.defaultMode)
      requests.push({ kind: 'setting', file: source.file, what: `defaultMode ${source.defaultMode}`, variables: [] });
    for (const rule of settings.rules.filter((one) => one.source === source.file && one.behavior === 'allow')) {
      requests.push({
        kind: 'setting',
        file: source.file,
        what: `allow ${rule.specifier === undefined ? rule.tool : `${rule.tool}(${rule.specifier})`}`,
        variables: [],
      });
    }
  }
  const servers = (mcpJson?.json as { mcpServers?: unknown } | undefined)?.mcpServers;
  if (mcpJson && servers && typeof servers === 'object' && !Array.isArray(servers)) {
    for (const [name, entry] of Object.entries(servers as Record<string, unknown>)) {
      const one = (entry && typeof entry === 'object' ? entry : {}) as Record<string, unknown>;
      const http = one.type === 'http';
      const runs = http
        ? shownWord(one.url)
        : [one.command, ...(Array.isArray(one.args) ? one.args : one.args === undefined ? [] : [one.args])]
            .map(shownWord)
            .join(' ');
      // Everything else the server is given, whole: a variable such as NODE_OPTIONS makes any command run code.
      const given = Object.entries(one)
        .filter(([key]) => !['type', 'command', 'args', 'url'].includes(key))
        .map(([key, value]) => `${key} ${JSON.stringify(value)}`);
      requests.push({
        kind: http ? 'http server' : 'stdio server',
        file: mcpJson.file,
        what: `${name}: ${runs}${given.length > 0 ? ` (${given.join('; ')})` : ''}`,
        server: name,
        variables: referencedVariables(one),
      });
    }
  }
  return requests;
}

/** The file that remembers the person's answers, per folder. */
export function trustFile(home: string): string {
  return path.join(home, '.coding-agent', 'trust.json');
}

/** The key a folder is remembered under: its real path. */
function folderKey(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return path.resolve(cwd);
  }
}

interface TrustFileContent {
  folders: Record<string, { trusted: boolean; servers?: string[] | 'all'; at: string }>;
}

function readTrustFile(home: string): TrustFileContent {
  try {
    const json = JSON.parse(readFileSync(trustFile(home), 'utf8')) as TrustFileContent;
    return json && typeof json.folders === 'object' && json.folders !== null ? json : { folders: {} };
  } catch {
    return { folders: {} };
  }
}

/** The remembered answer for `cwd`, or undefined when the person was never asked. */
export function rememberedTrust(home: string, cwd: string): WorkspaceTrust | undefined {
  const entry = readTrustFile(home).folders[folderKey(cwd)];
  if (!entry || typeof entry.trusted !== 'boolean') return undefined;
  return { trusted: entry.trusted, ...(entry.servers ? { servers: entry.servers } : {}) };
}

/** Remembers the person's answer for `cwd` (written whole, then renamed: never half a file). */
export function rememberTrust(home: string, cwd: string, trust: WorkspaceTrust): void {
  const content = readTrustFile(home);
  content.folders[folderKey(cwd)] = {
    trusted: trust.trusted,
    ...(trust.servers ? { servers: trust.servers === 'all' ? 'all' : [...trust.servers] } : {}),
    at: new Date().toISOString(),
  };
  const file = trustFile(home);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/**
 * The question's text: what the folder asks to run, one line each, with the variables each would receive. The
 * folder wrote every word of it, so every control character is shown, never obeyed (visible): a carriage return or
 * an escape sequence in a hook's command cannot rub out the line and draw a harmless one in its place.
 */
export function describeRequests(requests: readonly FolderRequest[]): string[] {
  return requests.map((request) =>
    visible(
      `${request.kind} from ${request.file}: ${request.what}${request.variables.length > 0 ? ` (receives ${request.variables.join(', ')})` : ''}`,
    ),
  );
}
