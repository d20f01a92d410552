/**
 * Chapter 15: the parts buildAgent (factory.ts) puts together, one function a part.
 *
 * Each part is made from the configuration and what the parts before it made: the permission gate first (everything
 * that asks the person goes through it), then the saved session, the command hooks, the system prompt and the MCP
 * servers, and last the agent itself, with its tools and hooks. A part that starts something (a session file, a
 * server) hands its clean-up to the build's Lifetime, so a later failure closes it again.
 */
import type { ApprovePlan } from '../agent-events.js';
import { Agent } from '../agent.js';
import { McpServers } from '../mcp/servers.js';
import { outputBudget } from '../output-budget.js';
import { parallelExecutor } from '../parallel-executor.js';
import { createPermissionGate, type AskPermission } from '../permissions/gate.js';
import { exitPlanModeTool, planModeHooks } from '../planning/plan-mode.js';
import { createTaskTool, TASK, type ChildSpec } from '../planning/task.js';
import { todoWriteTool } from '../planning/todo-list.js';
import type { Provider } from '../provider.js';
import { compactionHook } from '../session/compaction.js';
import { buildSystemPrompt } from '../session/system-prompt.js';
import { SessionStore, type OpenSession } from '../session/store.js';
import { ToolSet, type Tool } from '../tool.js';
import { commandHooks } from './command-hooks.js';
import { type SessionHooks, sessionHooks } from './session-hooks.js';
import type { FactoryConfig, GateParts, Lifetime } from './factory-config.js';

export type { GateParts } from './factory-config.js';
import {
  agentHooks,
  agentTools,
  mcpServerList,
  openSavedSession,
  permissionSetup,
  COMPACT_KEEP,
  DEFAULT_COMPACT_AT,
  DEFAULT_MAX_PARALLEL,
  DEFAULT_OUTPUT_BUDGET,
  DEFAULT_SUBAGENT_DEPTH,
  type HookParts,
} from './factory-pieces.js';
import { queuedQuestions } from './question.js';
import { redactCredentials, secretsOf } from './secrets.js';
import { mcpServerApproved, type AgentSettings, type WorkspaceTrust } from './trust.js';
import { randomUUID } from 'node:crypto';

/**
 * The permission gate for `settings` (already the trusted ones: buildAgent gives no other), in the workspace of
 * `config`: permissionSetup's rules and mode, the person's questions one at a time (queuedQuestions, given), and a
 * mustAsk that turns a PreToolUse hook's ask about a call into a question even where a rule allows that call.
 */
export function gateFor(config: FactoryConfig, settings: AgentSettings): GateParts {
  // #region chapter 15: gateFor
  // 1. permissionSetup(config.options ?? {}, settings) gives the rules and the mode. queuedQuestions(config) gives
  //    the ask and approvePlan every agent of this run shares: one person answers, one question at a time.
  // 2. createPermissionGate with the workspace { root: cwd, home }, those rules and mode, that ask, and mustAsk: the
  //    reason hookAsks holds for the call's id, taken once (deleted as it is read).
  // 3. Return the gate, the queued ask and approvePlan, and the hookAsks map.
  const permissions = permissionSetup(config.options ?? {}, settings);
  const questions = queuedQuestions(config);
  const hookAsks = new Map<string, string>();
  const gate = createPermissionGate({
    workspace: { root: config.cwd, home: config.home },
    rules: permissions.rules,
    mode: permissions.mode,
    ask: questions.ask,
    mustAsk: (call) => {
      const reason = hookAsks.get(call.id);
      hookAsks.delete(call.id);
      return reason;
    },
  });
  return { gate, ask: questions.ask, approvePlan: questions.approvePlan, hookAsks };
  // #endregion
}

/** The saved session a build runs on, and what is known of it. */
export interface SessionParts {
  store: SessionStore;
  /** The secrets of the environment: never written to the session file, never kept in .agent/outputs. */
  secrets: string[];
  /** The saved session (undefined with --no-session). */
  session?: OpenSession;
  /** True when an earlier session goes on (--resume, --continue). */
  resumed: boolean;
  /** The saved session's id, or config.sessionId, or a new random one. */
  sessionId: string;
}

/**
 * The saved session: a SessionStore for the person's home and this project that never writes the environment's
 * secrets, and the session the options ask for (openSavedSession). An opened session is closed by the build's
 * clean-ups, its warnings are the build's, and it is priced at the model of this run.
 */
export function savedSessionFor(config: FactoryConfig, life: Lifetime): SessionParts {
  // #region chapter 15: savedSessionFor
  // 1. The store: new SessionStore({ home, cwd, secrets: secretsOf(config.env ?? {}), and newId giving
  //    config.sessionId when there is one }).
  // 2. openSavedSession(store, options, config.models?.model). When it opens one: its close() is a clean-up, its
  //    warnings are warnings, and when there is a model it becomes the session's model (usage is priced at it).
  // 3. resumed: --resume or --continue was given. sessionId: the session's id, else config.sessionId, else
  //    randomUUID().
  const options = config.options ?? {};
  const secrets = secretsOf(config.env ?? {});
  const store = new SessionStore({
    home: config.home,
    cwd: config.cwd,
    secrets,
    ...(config.sessionId ? { newId: () => config.sessionId! } : {}),
  });
  const session = openSavedSession(store, options, config.models?.model);
  if (session) {
    life.cleanups.push(() => session.close());
    life.warnings.push(...session.warnings);
    if (config.models?.model) session.session.model = config.models.model;
  }
  const resumed = options.resume !== undefined || Boolean(options.continue);
  const sessionId = session?.session.id ?? config.sessionId ?? randomUUID();
  return { store, secrets, session, resumed, sessionId };
  // #endregion
}

/**
 * The settings' command hooks, for Claude Code's hook scripts: the tool hooks (commandHooks) and the session's
 * (sessionHooks), both told which session this is and where its transcript is saved (when it is), the permission
 * mode as it is when each hook runs (not when the agent was built), and where a PreToolUse hook's ask goes (the
 * gate's hookAsks), with the config's runner and reporter.
 */
export function commandHooksFor(
  config: FactoryConfig,
  settings: AgentSettings,
  saved: SessionParts,
  gate: GateParts,
): { commands: ReturnType<typeof commandHooks>; around: SessionHooks } {
  // #region chapter 15: commandHooksFor
  // 1. The options for both: cwd, the sessionId, transcriptPath: the saved session's file (saved.store.file of its
  //    id; left out without a session), permissionMode: () => gate.gate.mode (read when each hook runs), asked:
  //    keep the reason in gate.hookAsks by call id, and config.runHook and config.report.
  // 2. Return commands: commandHooks(settings.hooks, those options), and around: sessionHooks(settings.hooks, them).
  const hookOptions = {
    cwd: config.cwd,
    sessionId: saved.sessionId,
    ...(saved.session ? { transcriptPath: saved.store.file(saved.session.session.id) } : {}),
    permissionMode: () => gate.gate.mode,
    asked: (callId: string, reason: string) => void gate.hookAsks.set(callId, reason),
    run: config.runHook,
    report: config.report,
  };
  return { commands: commandHooks(settings.hooks, hookOptions), around: sessionHooks(settings.hooks, hookOptions) };
  // #endregion
}

/**
 * The system prompt: chapter 12's (the kit's prompt or --system-prompt, the instruction files, --append-system-prompt),
 * then the text the SessionStart hooks gave, a blank line between. A saved session records it, and says so when a
 * resumed session now runs under another prompt.
 */
export async function systemPromptFor(
  config: FactoryConfig,
  saved: SessionParts,
  around: SessionHooks,
  life: Lifetime,
): Promise<{ system: string; files: string[] }> {
  // #region chapter 15: systemPromptFor
  // 1. buildSystemPrompt({ cwd, home, replace: options.systemPrompt, append: options.appendSystemPrompt }); its
  //    warnings are warnings.
  // 2. The SessionStart hooks: await around.onSessionStart('resume' when saved.resumed, else 'startup'). A text that
  //    is not empty goes after the prompt, a blank line between.
  // 3. With a saved session, saved.session.recorder.useSystem(system) (given) records it; a sentence it returns is a
  //    warning that starts "session: ".
  // 4. Return the system prompt and the prompt's instruction files.
  const options = config.options ?? {};
  const prompt = buildSystemPrompt({
    cwd: config.cwd,
    home: config.home,
    replace: options.systemPrompt,
    append: options.appendSystemPrompt,
  });
  life.warnings.push(...prompt.warnings);
  const started = await around.onSessionStart(saved.resumed ? 'resume' : 'startup');
  const system = started ? `${prompt.text}\n\n${started}` : prompt.text;
  const changed = saved.session?.recorder.useSystem(system);
  if (changed) life.warnings.push(`session: ${changed}`);
  return { system, files: prompt.files };
  // #endregion
}

/**
 * The MCP servers: those of --mcp-config, the settings and config.mcpServers (mcpServerList), a project's .mcp.json
 * server only when the person approved it (mcpServerApproved). They are started with the person's ask, so a
 * server's question waits in the same line as the gate's; each failure (`mcp: <name> failed: <error>`) and each
 * problem is a warning, and the servers left out are one warning naming them that says they need the folder trusted
 * and the person's approval (the folder's own settings never approve one). The build's clean-ups end them.
 * Undefined when no server is configured.
 */
export async function mcpFor(
  config: FactoryConfig,
  settings: AgentSettings,
  trust: WorkspaceTrust,
  ask: AskPermission | undefined,
  life: Lifetime,
): Promise<McpServers | undefined> {
  // #region chapter 15: mcpFor
  // 1. mcpServerList(cwd, options.mcpConfig ?? [], config.env ?? {}, config.mcpServers, approve), where approve(name)
  //    is mcpServerApproved(name, trust, settings). Its problems are warnings; its skipped servers are one warning
  //    that names them and says they need the folder trusted and the person's approval (--trust-workspace, the
  //    question of npm run agent, or the person's own ~/.claude/settings.json: the folder's settings files never
  //    approve a server).
  // 2. No server in the list: undefined. Otherwise McpServers.start(servers, { ask }); its close() is a clean-up,
  //    and each failure a warning `mcp: <name> failed: <error>`. Return it.
  const list = await mcpServerList(
    config.cwd,
    config.options?.mcpConfig ?? [],
    config.env ?? {},
    config.mcpServers,
    (name) => mcpServerApproved(name, trust, settings),
  );
  life.warnings.push(...list.problems);
  if (list.skipped?.length)
    life.warnings.push(
      `mcp: .mcp.json servers not started until you trust this folder and approve them (--trust-workspace, the question of npm run agent, or enabledMcpjsonServers in ~/.claude/settings.json; the folder's own settings cannot approve them): ${list.skipped.join(', ')}`,
    );
  if (Object.keys(list.servers).length === 0) return undefined;
  const hub = await McpServers.start(list.servers, { ask });
  life.cleanups.push(() => hub.close());
  for (const failure of hub.failures) life.warnings.push(`mcp: ${failure.name} failed: ${failure.error}`);
  return hub;
  // #endregion
}

/** What the agent is made of, from the parts before it. */
export interface AgentParts {
  config: FactoryConfig;
  /** The provider with retries. */
  provider: Provider;
  gate: GateParts;
  saved: SessionParts;
  commands: ReturnType<typeof commandHooks>;
  system: string;
  mcp?: McpServers;
}

/**
 * The agent: chapter 7's Agent on the retried provider, with the tools (agentTools: the built-in and the client's,
 * the MCP servers', the planning tools and the task tool) and the hooks (agentHooks: the servers', the command
 * hooks, the gate, plan mode, the output budget and compaction), its calls run by the parallel executor. A task
 * tool's children are built the same way, with the parent's hooks but compaction.
 *
 * - The task tool exists only while sub-agents may still nest (the options' nesting limit, else
 *   DEFAULT_SUBAGENT_DEPTH, above 0), and every task tool, a child's included, is marked read-only so that each call
 *   its child makes meets the gate on its own.
 * - Plans wait in the same line as the gate's questions; with nobody to ask, a plan is refused, and the
 *   feedback tells the model nobody can approve one here, so it should give the plan as its answer.
 * - The output budget (above 0; DEFAULT_OUTPUT_BUDGET when the options give none) redacts the saved parts' secrets
 *   (redactCredentials) before it keeps a long output in .agent/outputs. Compaction uses the small fast model.
 * - The options' turn limit and parallelism (DEFAULT_MAX_PARALLEL) apply; the result is the agent and its tools.
 */
export async function assembleAgent(parts: AgentParts): Promise<{ agent: Agent; tools: ToolSet }> {
  // #region chapter 15: assembleAgent
  // 1. The tools (agentTools): the planning tools are todoWriteTool() and exitPlanModeTool(gate, approve), where
  //    approve is the gate's approvePlan (plans wait in the same line as questions) or one that answers
  //    { approved: false, feedback } telling the model nobody can approve a plan here, so give the plan as the
  //    answer. The task tool, when the sub-agent depth (options, else DEFAULT_SUBAGENT_DEPTH) is above 0:
  //    createTaskTool with that maxDepth, tools: () => the agent's tools, and makeChild building a child with this
  //    same recipe: an Agent on the same provider, cwd and executor, the spec's tools, system and maxTurns, and the
  //    hooks of the parent except compaction (a child's history is short). A task tool is read-only
  //    ({ ...task, readOnly: true }): every call its child makes meets the gate. That holds for the task tool a
  //    child gets in its spec.tools too (at --subagent-depth 2 and more): mark it the same way.
  // 2. The hooks (agentHooks): the MCP servers' hooks(), the command hooks, the gate, planModeHooks(gate), the
  //    output budget when it is above 0 (options.outputBudget, else DEFAULT_OUTPUT_BUDGET; its redact is
  //    redactCredentials with the saved parts' secrets, so no key is kept in .agent/outputs), compactionHook with
  //    the provider, the small fast model, COMPACT_KEEP and threshold options.compactAt ?? DEFAULT_COMPACT_AT.
  // 3. The agent: new Agent({ provider, tools, cwd, system, maxTurns: options.maxTurns, hooks, executor:
  //    parallelExecutor({ concurrency: options.maxParallel ?? DEFAULT_MAX_PARALLEL }) }). Return it and its tools.
  const { config, provider, gate, saved, mcp } = parts;
  const options = config.options ?? {};
  const cwd = config.cwd;
  const approve: ApprovePlan =
    gate.approvePlan ??
    (async () => ({ approved: false, feedback: 'Nobody can approve a plan here: give your plan as your answer.' }));
  const executor = parallelExecutor({ concurrency: options.maxParallel ?? DEFAULT_MAX_PARALLEL });
  const budget = options.outputBudget ?? DEFAULT_OUTPUT_BUDGET;
  const hookParts: HookParts = {
    mcp: mcp?.hooks(),
    commands: parts.commands,
    gate: gate.gate,
    plan: planModeHooks(gate.gate),
    budget:
      budget > 0
        ? outputBudget({ cwd, maxChars: budget, redact: (text) => redactCredentials(text, saved.secrets) })
        : undefined,
    compaction: compactionHook({
      provider,
      model: config.models?.smallFastModel,
      keep: COMPACT_KEEP,
      threshold: options.compactAt ?? DEFAULT_COMPACT_AT,
    }),
  };
  const depth = options.subagentDepth ?? DEFAULT_SUBAGENT_DEPTH;
  let tools = new ToolSet();
  const readOnlyTask = (tool: Tool): Tool => (tool.name === TASK ? { ...tool, readOnly: true } : tool);
  const makeChild = (spec: ChildSpec) =>
    new Agent({
      provider,
      tools: new ToolSet([...spec.tools].map(readOnlyTask)),
      cwd,
      system: spec.system,
      maxTurns: spec.maxTurns,
      hooks: agentHooks({ ...hookParts, compaction: undefined }),
      executor,
    });
  const task = depth > 0 ? createTaskTool({ maxDepth: depth, tools: () => tools, makeChild }) : undefined;
  tools = new ToolSet(
    agentTools({
      client: config.clientTools,
      mcp: mcp ? await mcp.tools() : undefined,
      planning: [todoWriteTool(), exitPlanModeTool(gate.gate, approve)],
      task: task && readOnlyTask(task),
    }),
  );
  const agent = new Agent({
    provider,
    tools,
    cwd,
    system: parts.system,
    maxTurns: options.maxTurns,
    hooks: agentHooks(hookParts),
    executor,
  });
  return { agent, tools };
  // #endregion
}
