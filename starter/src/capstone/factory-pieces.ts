/**
 * Chapter 15: the pieces buildAgent (factory.ts) puts together, each from the configuration it depends on: the
 * gate's rules and mode, the retry policy, the MCP servers to start, the saved session to run on, the order of the
 * hooks and the list of tools. Each is small and tested on its own; where a setting can come from several places,
 * the narrower one wins (a flag over the settings files, the settings over the kit's default).
 */
import { TodoError } from '../todo.js';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'permissionSetup');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'retryPolicy');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'mcpServerList');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'openSavedSession');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'agentHooks');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'agentTools');
  // #endregion
}
