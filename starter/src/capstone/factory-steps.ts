/**
 * Chapter 15: the parts buildAgent (factory.ts) puts together, one function a part.
 *
 * Each part is made from the configuration and what the parts before it made: the permission gate first (everything
 * that asks the person goes through it), then the saved session, the command hooks, the system prompt and the MCP
 * servers, and last the agent itself, with its tools and hooks. A part that starts something (a session file, a
 * server) hands its clean-up to the build's Lifetime, so a later failure closes it again.
 */
import { TodoError } from '../todo.js';
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'gateFor');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'savedSessionFor');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'commandHooksFor');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'systemPromptFor');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'mcpFor');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'assembleAgent');
  // #endregion
}
