/**
 * Chapter 15: the pieces buildAgent (factory.ts) puts together, each from the configuration it depends on: the
 * gate's rules and mode, the retry policy, the MCP servers to start, the saved session to run on, the order of the
 * hooks and the list of tools. Each is small and tested on its own; where a setting can come from several places,
 * the narrower one wins (a flag over the settings files, the settings over the kit's default).
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
// biome-ignore lint/correctness/noUnusedImports: readFile is kept for the known-wrong solutions that read .mcp.json without the safe-file checks (tests/chapter15/wrong/factory-*.txt)
import { readFile } from 'node:fs/promises';
import { readConfigFile } from '../safe-file.js';
import type { Hooks } from '../hooks.js';
import { McpConfigError, parseMcpConfig, type McpServerConfig } from '../mcp/config.js';
import type { TransportFactory } from '../mcp/client.js';
import { DEFAULT_CONCURRENCY } from '../parallel-executor.js';
import type { PermissionMode } from '../permissions/evaluate.js';
import type { PermissionGate } from '../permissions/gate.js';
import { parseRule, type Rule } from '../permissions/rules.js';
import type { Settings } from '../permissions/settings.js';
import type { RetryPolicy } from '../retry/with-retries.js';
import type { OpenSession, SessionStore } from '../session/store.js';
import type { Tool } from '../tool.js';
import { builtinTools } from '../tools/index.js';
import type { CliOptions } from './flags.js';
import { errorText } from '../safe-call.js';

/** The kit's defaults, for what neither a flag nor a settings file says. */
export const DEFAULT_MAX_RETRIES = 4;
export const DEFAULT_MAX_WAIT_S = 60;
export const DEFAULT_MAX_PARALLEL = DEFAULT_CONCURRENCY;
export const DEFAULT_OUTPUT_BUDGET = 30_000;
export const DEFAULT_COMPACT_AT = 150_000;
export const DEFAULT_SUBAGENT_DEPTH = 1;
/** Messages compaction keeps as they are, at the end of the history. */
export const COMPACT_KEEP = 6;

/** The options of the command line the factory reads (all optional: a program that has no flags passes none). */
export type FactoryOptions = Partial<
  Pick<
    CliOptions,
    | 'permissionMode'
    | 'allowedTools'
    | 'disallowedTools'
    | 'maxTurns'
    | 'continue'
    | 'resume'
    | 'forkSession'
    | 'noSession'
    | 'systemPrompt'
    | 'appendSystemPrompt'
    | 'compactAt'
    | 'mcpConfig'
    | 'maxParallel'
    | 'outputBudget'
    | 'maxRetries'
    | 'maxWait'
    | 'subagentDepth'
  >
>;

/** The rules the gate starts with, and its mode. */
export interface PermissionSetup {
  rules: Rule[];
  mode: PermissionMode;
}

/**
 * What the gate starts with, from the flags and the settings files. Claude Code's --disallowedTools and
 * --allowedTools entries are rules as well (they refuse and permit what the flags' names say), each read with
 * chapter 8's parseRule and given the flag's name as its source, so that a denial can say where it came from. A
 * rule that cannot be read throws chapter 8's error. What was typed for this run comes before what the files say,
 * and the refusals before the permissions; the files' rules follow as loaded. The mode: --permission-mode when
 * given, else the one the settings choose, else Claude Code's default.
 */
export function permissionSetup(options: FactoryOptions, settings: Settings): PermissionSetup {
  // #region chapter 15: permissionSetup
  // 1. Each entry of options.disallowedTools (missing: none) becomes parseRule(text, 'deny', '--disallowedTools').
  // 2. Then each entry of options.allowedTools, as parseRule(text, 'allow', '--allowedTools').
  // 3. Then the settings' rules, as they are. (A rule that cannot be read throws chapter 8's error: let it.)
  // 4. The mode: the flag when it is given, else the settings' defaultMode, else 'default'.
  const rules = [
    ...(options.disallowedTools ?? []).map((text) => parseRule(text, 'deny', '--disallowedTools')),
    ...(options.allowedTools ?? []).map((text) => parseRule(text, 'allow', '--allowedTools')),
    ...settings.rules,
  ];
  return { rules, mode: options.permissionMode ?? settings.defaultMode ?? 'default' };
  // #endregion
}

/** The models a provider was made for: its model, and its small fast model when it has one. */
export interface Models {
  model?: string;
  smallFastModel?: string;
}

/**
 * Chapter 10's policy from the flags: --max-retries N is N tries after the first (0: never retry), --max-wait S is
 * the longest wait a server may ask for, in seconds. The small fast model is the fallback when it is another model.
 */
export function retryPolicy(options: FactoryOptions, models: Models): RetryPolicy {
  // #region chapter 15: retryPolicy
  // 1. maxAttempts counts the first try too: the retries (options.maxRetries, DEFAULT_MAX_RETRIES when not given)
  //    plus one. Zero retries is a real value ("never retry"), not "not given".
  // 2. maxWaitMs: the seconds of options.maxWait (DEFAULT_MAX_WAIT_S when not given), in milliseconds.
  // 3. fallbackModel: models.smallFastModel, only when there is one and it is not models.model itself (falling back
  //    to the same model would change nothing). Leave the key out otherwise.
  const policy: RetryPolicy = {
    maxAttempts: (options.maxRetries ?? DEFAULT_MAX_RETRIES) + 1,
    maxWaitMs: (options.maxWait ?? DEFAULT_MAX_WAIT_S) * 1000,
  };
  if (models.smallFastModel && models.smallFastModel !== models.model) policy.fallbackModel = models.smallFastModel;
  return policy;
  // #endregion
}

/** A server to start: a config from a file or a client, or (tests) a transport. */
export type ServerSource = McpServerConfig | TransportFactory;

/** The MCP servers to start, and the problems of the files that were skipped. */
export interface McpServerList {
  servers: Record<string, ServerSource>;
  problems: string[];
  /** The project's .mcp.json servers that were not approved (present only when there are some). */
  skipped?: string[];
}

/**
 * The MCP servers of a workspace: its `.mcp.json` when there is one, then each file of --mcp-config (a path
 * relative to `cwd`), then `extra` (an editor's servers). A server named again replaces the one before, so the later
 * source wins. A bad .mcp.json is a problem (its servers are skipped, the agent runs without them); a --mcp-config
 * file the person named and that cannot be used throws McpConfigError. Every message names its file first, once:
 * `.mcp.json: …`, `--mcp-config bad.json: …` (a file that does not exist: `<file>: no such file`); a problem adds
 * that its servers are not started. The project's .mcp.json was written by the folder, not the person: only the
 * servers `approve` accepts are kept (and only they see the person's environment); the others are named in
 * `skipped`. A stdio server of a file starts in the workspace (its `cwd` relative to it).
 */
export async function mcpServerList(
  cwd: string,
  files: readonly string[],
  env: Record<string, string | undefined>,
  extra: Record<string, ServerSource> = {},
  approve: (name: string) => boolean = () => false,
): Promise<McpServerList> {
  // #region chapter 15: mcpServerList
  // 1. The sources, in order: <cwd>/.mcp.json when it exists (shown as ".mcp.json"), then each of `files`
  //    resolved against cwd (shown as given).
  // 2. For each: read it with the given readConfigFile (roots: the workspace, and for a --mcp-config file also the
  //    real folder it is in: a link out of the workspace is refused, a FIFO or /dev/zero never hangs), JSON.parse it.
  //    For .mcp.json only: keep the entries of mcpServers whose name approve(name) accepts, before anything is
  //    expanded (an unapproved server never sees ${VAR}s), and add the others' names to `skipped`. Then
  //    parseMcpConfig(json, env, shown); a stdio server's cwd is path.resolve(cwd, its cwd ?? '.'). Copy its servers
  //    into the result in that order, a later name replacing an earlier one.
  // 3. When reading, parsing or checking fails, the message names the file: `<shown>: ` in front, unless it starts
  //    so already (parseMcpConfig's own messages do). For .mcp.json add `${message} (its servers are not started)`
  //    to the problems and go on; for a --mcp-config file throw a McpConfigError of `--mcp-config ${message}` (a
  //    missing file: `<shown>: no such file`). Let a TodoError through as it is.
  // 4. Last, the servers of `extra`, replacing any of the same name.
  const result: McpServerList = { servers: {}, problems: [] };
  const skipped: string[] = [];
  const local = path.join(cwd, '.mcp.json');
  const sources = [
    ...(existsSync(local) ? [{ file: local, shown: '.mcp.json', named: false }] : []),
    ...files.map((file) => ({ file: path.resolve(cwd, file), shown: file, named: true })),
  ];
  for (const { file, shown, named } of sources) {
    try {
      if (named && !existsSync(file)) throw new Error('no such file');
      const json = JSON.parse(
        readConfigFile(file, { roots: named ? [cwd, realpathSync(path.dirname(file))] : [cwd] }),
      ) as { mcpServers?: unknown };
      if (
        !named &&
        json &&
        typeof json.mcpServers === 'object' &&
        json.mcpServers !== null &&
        !Array.isArray(json.mcpServers)
      ) {
        const entries = Object.entries(json.mcpServers as Record<string, unknown>);
        skipped.push(...entries.filter(([name]) => !approve(name)).map(([name]) => name));
        json.mcpServers = Object.fromEntries(entries.filter(([name]) => approve(name)));
      }
      for (const [name, server] of Object.entries(parseMcpConfig(json, env, shown))) {
        result.servers[name] =
          server.type === 'stdio' ? { ...server, cwd: path.resolve(cwd, server.cwd ?? '.') } : server;
      }
    } catch (error) {
      if (error instanceof Error && error.name === 'TodoError') throw error;
      const text = errorText(error);
      const message = text.startsWith(`${shown}: `) ? text : `${shown}: ${text}`;
      if (named) throw new McpConfigError(`--mcp-config ${message}`);
      result.problems.push(`${message} (its servers are not started)`);
    }
  }
  Object.assign(result.servers, extra);
  if (skipped.length > 0) result.skipped = skipped;
  return result;
  // #endregion
}

/**
 * The saved session to run on: --resume ID opens that one, --continue the one of this project changed last,
 * --no-session none (undefined), and otherwise a new one for `model`. Contradictory options throw, naming them
 * (--no-session with either of the others; --resume with --continue; --fork-session without either: there is
 * nothing to fork). --continue with nothing saved for this project is an Error that says there is
 * `no saved session to continue`, naming the store's folder.
 *
 * --fork-session: the session --resume or --continue found is not gone on with but copied, all its messages
 * (SessionStore.fork), and the copy is opened instead; the original and its file stay as they were. A session with
 * no messages yet has nothing to copy: a new session for `model` instead.
 */
export function openSavedSession(
  store: SessionStore,
  options: FactoryOptions,
  model?: string,
): OpenSession | undefined {
  // #region chapter 15: openSavedSession
  // 1. --no-session with --resume or --continue is a contradiction: throw an Error that names both options. So is
  //    --resume with --continue ("use --resume ID or --continue, not both"), and --fork-session with neither of
  //    them (an Error that names --fork-session and both).
  // 2. The session to go on with: --resume ID: ID. --continue: store.latest(); none is an Error that says there is
  //    no saved session to continue for this project (name the store's folder, store.dir).
  // 3. Without --fork-session: store.resume(that id).
  // 4. With --fork-session: count its messages (store.load(id).session.messages); none: store.create(model).
  //    Otherwise store.fork(id, that count), and store.resume of the fork's id.
  // 5. Neither --resume nor --continue: --no-session gives undefined; otherwise store.create(model).
  const going = options.resume !== undefined || options.continue;
  if (options.noSession && going) throw new Error('--no-session cannot be used with --resume or --continue');
  if (options.resume !== undefined && options.continue) throw new Error('use --resume ID or --continue, not both');
  if (options.forkSession && !going)
    throw new Error('--fork-session copies the session --resume ID or --continue names: give one of them');
  if (!going) return options.noSession ? undefined : store.create(model);
  const id = options.resume ?? store.latest();
  if (id === undefined) throw new Error(`there is no saved session to continue in ${store.dir}`);
  if (!options.forkSession) return store.resume(id);
  const messages = store.load(id).session.messages.length;
  if (messages === 0) return store.create(model);
  return store.resume(store.fork(id, messages).id);
  // #endregion
}

/** The hooks of each part, for agentHooks; a part that is not there is left out. */
export interface HookParts {
  /** The MCP servers' hooks (they refresh a server's tools when its list changed). */
  mcp?: Hooks;
  /** The settings' PreToolUse and PostToolUse commands. */
  commands?: Hooks;
  gate: PermissionGate;
  /** Plan mode (chapter 13), on the gate's mode. */
  plan: Hooks;
  budget?: Hooks;
  compaction?: Hooks;
}

/**
 * The agent's hooks, in the order they must run, which is the order HookParts lists them in; a part that is absent
 * is left out. Chapter 7 calls hooks in list order and the first block ends a call, so each place is a decision: the
 * MCP servers' hooks come first (the tool list must be current before anything decides on it), the person's
 * commands before the permission gate (a command that blocks spares the person a question, and one that changes the
 * input has the changed input asked about), then plan mode, then what cuts a long output (it cuts what every hook
 * before it left), and last what shrinks the request (it looks at the request as it will be sent).
 */
export function agentHooks(parts: HookParts): Hooks[] {
  // #region chapter 15: agentHooks
  // 1. The order: mcp, commands, gate, plan, budget, compaction. Leave out the parts that are undefined.
  return [parts.mcp, parts.commands, parts.gate, parts.plan, parts.budget, parts.compaction].filter(
    (hooks): hooks is Hooks => hooks !== undefined,
  );
  // #endregion
}

/**
 * The tools the model gets: the built-in tools, each replaced by the client's tool of the same name (an editor
 * reads and writes its own buffers), then the MCP servers' tools, then chapter 13's: todo_write, exit_plan_mode,
 * and task when `task` is given (it is left out when sub-agents may not nest any deeper).
 */
export function agentTools(parts: {
  client?: readonly Tool[];
  mcp?: readonly Tool[];
  planning: readonly Tool[];
  task?: Tool;
}): Tool[] {
  // #region chapter 15: agentTools
  // 1. The built-in tools (builtinTools()), in their order, each swapped for the client's tool of the same name
  //    when there is one. A client tool no built-in tool is named like is added after them.
  // 2. Then the MCP tools, then the planning tools, then the task tool when there is one.
  const client = new Map((parts.client ?? []).map((tool) => [tool.name, tool]));
  const builtins = [...builtinTools()].map((tool) => client.get(tool.name) ?? tool);
  const extra = [...client.values()].filter((tool) => !builtins.includes(tool));
  return [...builtins, ...extra, ...(parts.mcp ?? []), ...parts.planning, ...(parts.task ? [parts.task] : [])];
  // #endregion
}
