/**
 * Chapter 15: one factory builds the agent.
 *
 * Every earlier chapter made a part: a provider (5), the loop and its seams (7), the permission gate (8), the
 * parallel executor and the output budget (9), retries (10), MCP servers (11), the saved session, the system prompt
 * and compaction (12), plan mode, the task list and sub-agents (13). `buildAgent` puts them together from
 * configuration: the command line's options, the settings files, the environment, and what the program around it
 * brings (how to ask the person, the provider, an editor's own tools). `npm run agent`, `npm run acp` and the task
 * tool's children are all built here, so what a chapter's tests proved is what a person meets.
 *
 * Where a setting can come from several places, the narrower one wins: a flag over the settings files, the settings
 * over the kit's default. Rules are not a choice but a list: the flags' rules come first, then the files' (chapter 8's
 * evaluate decides between them: deny, then ask, then allow). The pieces are in factory-pieces.ts.
 */
import { TodoError } from '../todo.js';
import { randomUUID } from 'node:crypto';
import type { ApprovePlan } from '../agent-events.js';
import { Agent } from '../agent.js';
import { McpServers } from '../mcp/servers.js';
import type { Message } from '../messages.js';
import { outputBudget } from '../output-budget.js';
import { parallelExecutor } from '../parallel-executor.js';
import { createPermissionGate, type AskPermission, type PermissionGate } from '../permissions/gate.js';
import { exitPlanModeTool, planModeHooks } from '../planning/plan-mode.js';
import { createTaskTool, TASK, type ChildSpec } from '../planning/task.js';
import { todoWriteTool } from '../planning/todo-list.js';
import type { Provider } from '../provider.js';
import { withRetries, type RetryPolicy } from '../retry/with-retries.js';
import { compactionHook } from '../session/compaction.js';
import { buildSystemPrompt } from '../session/system-prompt.js';
import { SessionStore, type OpenSession } from '../session/store.js';
import { ToolSet, type Tool } from '../tool.js';
import { commandHooks, sessionHooks, type SessionHooks } from './command-hooks.js';
import {
  agentHooks,
  agentTools,
  mcpServerList,
  openSavedSession,
  permissionSetup,
  retryPolicy,
  COMPACT_KEEP,
  DEFAULT_COMPACT_AT,
  DEFAULT_MAX_PARALLEL,
  DEFAULT_OUTPUT_BUDGET,
  DEFAULT_SUBAGENT_DEPTH,
  type FactoryOptions,
  type HookParts,
  type Models,
  type ServerSource,
} from './factory-pieces.js';
import type { RunHookCommand } from './hook-runner.js';
import { queuedQuestions } from './question.js';
import { redactCredentials, secretsOf } from './secrets.js';
import { mcpServerApproved, trustedSettings, type AgentSettings, type WorkspaceTrust } from './trust.js';

export * from './factory-pieces.js';
export { loadAgentSettings } from './agent-settings.js';
export { CREDENTIAL_SHAPES, redactCredentials, secretsOf } from './secrets.js';
export type { AgentSettings } from './trust.js';

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
}

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
  /** Ends the MCP servers and closes the session file; once, however often it is called. */
  close(): Promise<void>;
}

/**
 * Builds the agent from its configuration. Whatever was started before something failed (the session file, the
 * servers) is closed again before the error is thrown.
 */
export async function buildAgent(config: FactoryConfig): Promise<BuiltAgent> {
  // #region chapter 15: buildAgent
  // 1. options = config.options ?? {}; env = config.env ?? {}. Keep a list of clean-ups (close() runs them, in
  //    order, at most once) and of warnings. The workspace trust is config.trust, and when it is not given the
  //    folder is untrusted ({ trusted: false }): never guess in favour of running something. The settings used
  //    from here on are trustedSettings(config.settings, trust).settings; each line of its `dropped` is a warning.
  // 2. The gate: createPermissionGate with the workspace { root: cwd, home }, permissionSetup's rules and mode, the
  //    ask of queuedQuestions(config) (given): one person answers the questions of every agent of the run, one
  //    at a time; and mustAsk: the reason a PreToolUse hook asked about that call (step 5's asked, kept by call
  //    id and taken once), so a hook's ask is a question even where a rule allows the call.
  // 3. The provider: withRetries(config.provider, the retryPolicy of the options and config.models, with
  //    config.retry's sleep and random).
  // 4. The session: a SessionStore for { home, cwd }, its secrets secretsOf(env), and newId giving config.sessionId
  //    when there is one. openSavedSession(store, options, model); its clean-up is its close(), its warnings
  //    are warnings; when there is a model, it becomes the session's model (usage from now on is priced at it).
  // 5. Command hooks: commandHooks(settings.hooks, …) and sessionHooks(…), both with { cwd, sessionId, run:
  //    config.runHook, report: config.report }, plus transcriptPath: the saved session's file (store.file of its
  //    id; none without a session), permissionMode: () => gate.mode (read when each hook runs) and asked: keeps
  //    the reason by call id for the gate's mustAsk.
  // 6. The system prompt: buildSystemPrompt({ cwd, home, replace: options.systemPrompt, append:
  //    options.appendSystemPrompt }), its warnings kept. Then the SessionStart hooks' text ('resume' when a saved
  //    session goes on, else 'startup'): when it is not empty it goes after the prompt, a blank line between.
  //    With a saved session, hand the whole prompt to session.recorder.useSystem(system) (given): it records it, and
  //    a sentence it returns (a resumed session whose prompt changed) is a warning, starting "session: ".
  // 7. MCP: mcpServerList(cwd, options.mcpConfig ?? [], env, config.mcpServers, approve), where approve(name) is
  //    mcpServerApproved(name, trust, settings) (a project's .mcp.json server starts only when the person approved
  //    it); its problems are warnings, and its skipped servers one warning that names them and says they need the
  //    folder trusted and the person's approval (--trust-workspace, the question of npm run agent, or the person's
  //    own ~/.claude/settings.json: the folder's settings files never approve a server). When it names any server:
  //    McpServers.start(servers, { ask }), where ask is the gate's (step 2), so a server's question to the person
  //    waits in the same line; clean-up: close it; each failure a warning `mcp: <name> failed: <error>`; and its
  //    tools.
  // 8. The tools (agentTools): the planning tools are todoWriteTool() and exitPlanModeTool(gate, approve), where
  //    approve is queuedQuestions' approvePlan (the same one as in step 2: plans wait in the same line) or one that answers { approved: false, feedback } telling the model nobody can
  //    approve a plan here, so give the plan as the answer. The task tool, when the sub-agent depth (options, else
  //    DEFAULT_SUBAGENT_DEPTH) is above 0: createTaskTool with that maxDepth, tools: () => the agent's tools, and
  //    makeChild building a child with this same recipe: an Agent on the same provider, cwd and executor, the
  //    spec's tools, system and maxTurns, and the hooks of the parent except compaction (a child's history is short).
  //    A task tool is read-only ({ ...task, readOnly: true }): every call its child makes meets the gate. That holds
  //    for the task tool a child gets in its spec.tools too (at --subagent-depth 2 and more): mark it the same way.
  // 9. The hooks (agentHooks): the MCP servers' hooks(), the command hooks, the gate, planModeHooks(gate), the
  //    output budget when it is above 0 (options.outputBudget, else DEFAULT_OUTPUT_BUDGET; its redact is
  //    redactCredentials with the secrets of step 4, so no key is kept in .agent/outputs), compactionHook with the
  //    provider, the small fast model, COMPACT_KEEP and threshold options.compactAt ?? DEFAULT_COMPACT_AT.
  // 10. The agent: new Agent({ provider, tools, cwd, system, maxTurns: options.maxTurns, hooks, executor:
  //     parallelExecutor({ concurrency: options.maxParallel ?? DEFAULT_MAX_PARALLEL }) }).
  // 11. If any step throws, run the clean-ups so far, then throw the error.
  throw new TodoError(15, 'buildAgent');
  // #endregion
}
