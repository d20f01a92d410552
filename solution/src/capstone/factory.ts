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
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { ApprovePlan } from '../agent-events.js';
import { Agent } from '../loop.js';
import { McpServers } from '../mcp/servers.js';
import type { Message } from '../messages.js';
import { outputBudget } from '../output-budget.js';
import { parallelExecutor } from '../parallel-executor.js';
import { createPermissionGate, type AskPermission, type PermissionGate } from '../permissions/gate.js';
import { loadSettings, type Settings } from '../permissions/settings.js';
import { exitPlanModeTool, planModeHooks } from '../planning/plan-mode.js';
import { createTaskTool, TASK, type ChildSpec } from '../planning/task.js';
import { todoWriteTool } from '../planning/todo-list.js';
import type { Provider } from '../provider.js';
import { withRetries, type RetryPolicy } from '../retry/with-retries.js';
import { compactionHook } from '../session/compaction.js';
import { buildSystemPrompt } from '../session/system-prompt.js';
import { SessionStore, type OpenSession } from '../session/store.js';
import { ToolSet, type Tool } from '../tool.js';
import { commandHooks, mergeHookConfigs, parseHookSettings, sessionHooks, type HookConfig, type SessionHooks } from './command-hooks.js';
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

export * from './factory-pieces.js';

/** What the settings files say: chapter 8's permissions, and the hooks of chapter 15. */
export interface AgentSettings extends Settings {
  hooks: HookConfig;
}

/**
 * The settings of a workspace: chapter 8's loadSettings for the permissions, and the `hooks` of the same files (in
 * the same order: the user's file, the project's, the project's local one).
 */
export async function loadAgentSettings(cwd: string, home: string): Promise<AgentSettings> {
  const settings = await loadSettings(cwd, home);
  const hooks: HookConfig[] = [];
  for (const file of settings.files) hooks.push(parseHookSettings(JSON.parse(await readFile(file, 'utf8')), file));
  return { ...settings, hooks: mergeHookConfigs(hooks) };
}

/** Values of the environment that look like secrets (API keys, tokens): never written to a session file. */
export function secretsOf(env: Record<string, string | undefined>): string[] {
  return Object.entries(env).flatMap(([name, value]) => (/KEY|TOKEN|SECRET|PASSWORD/i.test(name) && value && value.length >= 8 ? [value] : []));
}

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
  //    order, at most once) and of warnings.
  // 2. The gate: createPermissionGate with the workspace { root: cwd, home }, permissionSetup's rules and mode, and
  //    config.ask.
  // 3. The provider: withRetries(config.provider, the retryPolicy of the options and config.models, with
  //    config.retry's sleep and random).
  // 4. The session: a SessionStore for { home, cwd }, its secrets secretsOf(env), and newId giving config.sessionId
  //    when there is one. openSavedSession(store, options, model); its clean-up is its close(), its warnings
  //    are warnings; when there is a model, it becomes the session's model (usage from now on is priced at it).
  // 5. Command hooks: commandHooks(settings.hooks, …) and sessionHooks(…), both with { cwd, sessionId, run:
  //    config.runHook, report: config.report }.
  // 6. The system prompt: buildSystemPrompt({ cwd, home, replace: options.systemPrompt, append:
  //    options.appendSystemPrompt }), its warnings kept. Then the SessionStart hooks' text ('resume' when a saved
  //    session goes on, else 'startup'): when it is not empty it goes after the prompt, a blank line between.
  // 7. MCP: mcpServerList(cwd, options.mcpConfig ?? [], env, config.mcpServers); its problems are warnings. When it
  //    names any server: McpServers.start(servers) (clean-up: close it), each failure a warning
  //    `mcp: <name> failed: <error>`, and its tools.
  // 8. The tools (agentTools): the planning tools are todoWriteTool() and exitPlanModeTool(gate, approve), where
  //    approve is config.approvePlan or one that answers { approved: false, feedback } telling the model nobody can
  //    approve a plan here, so give the plan as the answer. The task tool, when the sub-agent depth (options, else
  //    DEFAULT_SUBAGENT_DEPTH) is above 0: createTaskTool with that maxDepth, tools: () => the agent's tools, and
  //    makeChild building a child with this same recipe: an Agent on the same provider, cwd and executor, the
  //    spec's tools, system and maxTurns, and the hooks of the parent except compaction (a child's history is short).
  //    A task tool is read-only ({ ...task, readOnly: true }): every call its child makes meets the gate. That holds
  //    for the task tool a child gets in its spec.tools too (at --subagent-depth 2 and more): mark it the same way.
  // 9. The hooks (agentHooks): the MCP servers' hooks(), the command hooks, the gate, planModeHooks(gate), the
  //    output budget when it is above 0 (options.outputBudget, else DEFAULT_OUTPUT_BUDGET), compactionHook with the
  //    provider, the small fast model, COMPACT_KEEP and threshold options.compactAt ?? DEFAULT_COMPACT_AT.
  // 10. The agent: new Agent({ provider, tools, cwd, system, maxTurns: options.maxTurns, hooks, executor:
  //     parallelExecutor({ concurrency: options.maxParallel ?? DEFAULT_MAX_PARALLEL }) }).
  // 11. If any step throws, run the clean-ups so far, then throw the error.
  const options = config.options ?? {};
  const env = config.env ?? {};
  const { cwd, home, settings } = config;
  const cleanups: Array<() => unknown> = [];
  const warnings: string[] = [];
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      for (const step of cleanups) await step();
    })());
  try {
    const permissions = permissionSetup(options, settings);
    const gate = createPermissionGate({ workspace: { root: cwd, home }, rules: permissions.rules, mode: permissions.mode, ask: config.ask });
    const provider = withRetries(config.provider, { ...retryPolicy(options, config.models ?? {}), ...config.retry });

    const store = new SessionStore({ home, cwd, secrets: secretsOf(env), ...(config.sessionId ? { newId: () => config.sessionId! } : {}) });
    const session = openSavedSession(store, options, config.models?.model);
    if (session) {
      cleanups.push(() => session.close());
      warnings.push(...session.warnings);
      if (config.models?.model) session.session.model = config.models.model;
    }
    const resumed = options.resume !== undefined || Boolean(options.continue);
    const sessionId = session?.session.id ?? config.sessionId ?? randomUUID();

    const hookOptions = { cwd, sessionId, run: config.runHook, report: config.report };
    const commands = commandHooks(settings.hooks, hookOptions);
    const around = sessionHooks(settings.hooks, hookOptions);

    const prompt = buildSystemPrompt({ cwd, home, replace: options.systemPrompt, append: options.appendSystemPrompt });
    warnings.push(...prompt.warnings);
    const started = await around.onSessionStart(resumed ? 'resume' : 'startup');
    const system = started ? `${prompt.text}\n\n${started}` : prompt.text;

    const list = await mcpServerList(cwd, options.mcpConfig ?? [], env, config.mcpServers);
    warnings.push(...list.problems);
    let mcp: McpServers | undefined;
    if (Object.keys(list.servers).length > 0) {
      const hub = await McpServers.start(list.servers);
      mcp = hub;
      cleanups.push(() => hub.close());
      for (const failure of hub.failures) warnings.push(`mcp: ${failure.name} failed: ${failure.error}`);
    }

    const approve: ApprovePlan = config.approvePlan ?? (async () => ({ approved: false, feedback: 'Nobody can approve a plan here: give your plan as your answer.' }));
    const executor = parallelExecutor({ concurrency: options.maxParallel ?? DEFAULT_MAX_PARALLEL });
    const budget = options.outputBudget ?? DEFAULT_OUTPUT_BUDGET;
    const hookParts: HookParts = {
      mcp: mcp?.hooks(),
      commands,
      gate,
      plan: planModeHooks(gate),
      budget: budget > 0 ? outputBudget({ cwd, maxChars: budget }) : undefined,
      compaction: compactionHook({ provider, model: config.models?.smallFastModel, keep: COMPACT_KEEP, threshold: options.compactAt ?? DEFAULT_COMPACT_AT }),
    };
    const depth = options.subagentDepth ?? DEFAULT_SUBAGENT_DEPTH;
    let tools = new ToolSet();
    const readOnlyTask = (tool: Tool): Tool => (tool.name === TASK ? { ...tool, readOnly: true } : tool);
    const makeChild = (spec: ChildSpec) =>
      new Agent({ provider, tools: new ToolSet([...spec.tools].map(readOnlyTask)), cwd, system: spec.system, maxTurns: spec.maxTurns, hooks: agentHooks({ ...hookParts, compaction: undefined }), executor });
    const task = depth > 0 ? createTaskTool({ maxDepth: depth, tools: () => tools, makeChild }) : undefined;
    tools = new ToolSet(
      agentTools({
        client: config.clientTools,
        mcp: mcp ? await mcp.tools() : undefined,
        planning: [todoWriteTool(), exitPlanModeTool(gate, approve)],
        task: task && readOnlyTask(task),
      }),
    );
    const agent = new Agent({ provider, tools, cwd, system, maxTurns: options.maxTurns, hooks: agentHooks(hookParts), executor });
    return {
      agent,
      history: session?.session.messages ?? [],
      gate,
      session,
      sessionId,
      resumed,
      provider,
      system,
      instructionFiles: prompt.files,
      tools,
      mcp,
      sessionHooks: around,
      warnings,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
  // #endregion
}
