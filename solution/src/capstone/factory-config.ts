/**
 * Chapter 15, given: what buildAgent is given, what it gives back, and the lifetime its parts share.
 */
import type { ApprovePlan } from '../agent-events.js';
import type { Agent } from '../agent.js';
import type { McpServers } from '../mcp/servers.js';
import type { Message } from '../messages.js';
import type { AskPermission, PermissionGate } from '../permissions/gate.js';
import type { Provider } from '../provider.js';
import type { RetryPolicy } from '../retry/with-retries.js';
import type { OpenSession } from '../session/store.js';
import type { Tool, ToolSet } from '../tool.js';
import type { SessionHooks } from './session-hooks.js';
import type { FactoryOptions, Models, ServerSource } from './factory-pieces.js';
import type { RunHookCommand } from './hook-runner.js';
import type { Rule } from '../permissions/rules.js';
import type { SandboxState } from '../sandbox/decision.js';
import type { AgentSettings, WorkspaceTrust } from './trust.js';

/** Everything buildAgent needs. Only `cwd`, `home`, `provider` and `settings` are required. */
export interface FactoryConfig {
  /** The workspace the tools work in. */
  cwd: string;
  /** The person's home folder (saved sessions, ~/.claude). */
  home: string;
  /** For ${VAR} in MCP configs, and the secrets a session file must never hold. */
  env?: Record<string, string | undefined>;
  /** The provider as made from the environment (not retried yet). */
  provider: Provider;
  models?: Models;
  /** The command line's options. */
  options?: FactoryOptions;
  /** The settings files, as loadAgentSettings read them. */
  settings: AgentSettings;
  /**
   * The person's decision about the workspace (trust.ts). Not given: untrusted, so nothing of the folder acts (its
   * hooks, its .mcp.json servers, its allow rules and mode); what was left out is in the warnings.
   */
  trust?: WorkspaceTrust;
  /** More MCP servers (an editor's), after the files'. */
  mcpServers?: Record<string, ServerSource>;
  /** Asks the person about a call (no callback: a call that needs asking is rejected, saying how to allow it). */
  ask?: AskPermission;
  /** Asks the person to approve a plan (no callback: the model is told to give its plan as its answer). */
  approvePlan?: ApprovePlan;
  /** Tools that replace built-in tools of the same name (an editor's file tools). */
  clientTools?: readonly Tool[];
  /** The id of a new session (an editor names its sessions); a random one when not given. */
  sessionId?: string;
  /** Runs a hook command (tests pass their own); `report` is told of hooks and servers that failed. */
  runHook?: RunHookCommand;
  report?(note: string): void;
  /** The retries' wait and jitter (tests pass a clock that does not wait). */
  retry?: Pick<RetryPolicy, 'sleep' | 'random'>;
  /** Chapter 16: the sandbox for this workspace (sandboxFor); without one, commands run as chapter 4 runs them. */
  sandbox?: SandboxFor;
}

/** The permission gate, with what shares its line of questions (gateFor in factory-steps.ts makes it). */
export interface GateParts {
  gate: PermissionGate;
  /** The person's ask and plan approval, one question at a time for every agent of the run. */
  ask?: AskPermission;
  approvePlan?: ApprovePlan;
  /** A PreToolUse hook's `ask` reason, by call id: commandHooksFor records it, the gate's mustAsk takes it once. */
  hookAsks: Map<string, string>;
}

/** Chapter 16: what the sandbox changes in a build: the gate in front, the bash tool inside. */
export interface SandboxPlug {
  state: SandboxState;
  /** What the settings could not widen, and why the sandbox is not running when it was asked for. */
  warnings: string[];
  gate(parts: GateParts): GateParts;
  /** The client's tools (none: the built-in ones), with a bash tool that runs inside the sandbox. */
  tools(client?: readonly Tool[]): Tool[];
  close(): Promise<void>;
}

/** Chapter 16: makes the sandbox of a build from the workspace, the trust decision and the gate's rules. */
export type SandboxFor = (context: {
  cwd: string;
  home: string;
  trusted: boolean;
  rules: readonly Rule[];
}) => Promise<SandboxPlug | undefined>;

/** A built agent, and everything around it a program needs. */
export interface BuiltAgent {
  agent: Agent;
  /** The array every run appends to: the saved session's messages, or a new array without one. */
  history: Message[];
  gate: PermissionGate;
  /** The saved session (undefined with --no-session). */
  session?: OpenSession;
  /** The saved session's id, or the given or a made-up one without a saved session. */
  sessionId: string;
  /** True when an earlier session goes on (--resume, --continue). */
  resumed: boolean;
  /** The provider the agent calls (retried). */
  provider: Provider;
  system: string;
  /** The instruction files in the system prompt. */
  instructionFiles: string[];
  tools: ToolSet;
  /** The MCP servers that started (undefined when none were configured). */
  mcp?: McpServers;
  /** UserPromptSubmit, Stop and SessionStart, for the program to call around its runs. */
  sessionHooks: SessionHooks;
  /** Things a person should know: skipped files and servers, imports not followed, a repaired session. */
  warnings: string[];
  /** Chapter 16: the sandbox the commands run in (undefined without a `sandbox` setting). */
  sandbox?: SandboxState;
  /** Ends the MCP servers and closes the session file; once, however often it is called. */
  close(): Promise<void>;
}

/**
 * What the parts of one build share: the clean-ups of what was started (the session file, the MCP servers), run in
 * order and once however often close() is called, and the warnings a person should read.
 */
export interface Lifetime {
  cleanups: Array<() => unknown>;
  warnings: string[];
  close(): Promise<void>;
}

/** A new Lifetime: nothing to clean up, no warnings. */
export function lifetime(): Lifetime {
  const cleanups: Array<() => unknown> = [];
  let closing: Promise<void> | undefined;
  return {
    cleanups,
    warnings: [],
    close: () =>
      (closing ??= (async () => {
        for (const step of cleanups) await step();
      })()),
  };
}
