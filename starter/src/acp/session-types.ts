/**
 * Chapter 14, given: what the ACP server is given and keeps.
 *
 * The factory's side of a session (SessionSetup in, SessionHandle out), the server's options, and one session as
 * the server keeps it. server.ts and session-admin.ts share them.
 */
import * as acp from '@agentclientprotocol/sdk';
import type { AgentEvent, ApprovePlan } from '../agent-events.js';
import { type Message, type Usage } from '../messages.js';
import type { McpServerConfig } from '../mcp/config.js';
import type { AskPermission } from '../permissions/gate.js';
import type { ModeControl } from '../planning/plan-mode.js';
import { type ModelPrice } from '../session/cost.js';
import type { Tool } from '../tool.js';
import { type SystemPromptChoice } from './session-setup.js';
import { type SavedSessions } from './saved-sessions.js';
import { type ModelControl } from './config-options.js';
import { type SessionCommand } from './commands.js';

/** What the factory is given to build a session's agent. */
export interface SessionSetup {
  /** The session's id: made by the server for session/new, the client's for load and resume. */
  sessionId: string;
  /** True for session/load and session/resume: continue the saved session `sessionId`; and for session/fork. */
  resume: boolean;
  /** For session/fork: the saved session this one starts as a copy of (sessionId is the copy's new id). */
  forkedFrom?: string;
  cwd: string;
  /** The client's MCP servers, as chapter 11 configures them. */
  mcpServers: Record<string, McpServerConfig>;
  /** From `_meta.systemPrompt`. */
  systemPrompt?: SystemPromptChoice;
  /** Chapter 8's question, asked in the editor. */
  ask: AskPermission;
  /** Chapter 13's plan approval, asked in the editor. */
  approvePlan: ApprovePlan;
  /** Tools that take the place of the built-in ones of the same name (the client's files). */
  tools: Tool[];
}

/** What the factory builds: the session's agent and what the server needs around it. */
export interface SessionHandle {
  /** The history the agent continues (a loaded session's saved messages; [] for a new one). */
  history: Message[];
  /** Chapter 7's Agent, or anything that runs like it (the factory may wrap it to record the session). */
  run(history: Message[], options: { signal: AbortSignal }): AsyncIterable<AgentEvent>;
  /** Where the permission mode lives (chapter 8's gate). */
  modes: ModeControl;
  /**
   * What the session has used so far, for the cost in usage_update and the tokens of session_info_update: a loaded
   * session's at first; the server sets it after each prompt.
   */
  usage?: Usage;
  /** The session's models, when the person may switch them (the model config options). */
  models?: ModelControl;
  /**
   * False when the person has not trusted the session's folder (chapter 15's trust): the mode may not be raised
   * from the editor there. Left out: the factory has no such rule (a test's), and every mode may be chosen.
   */
  trusted?: boolean;
  /** The session's own slash commands (chapter 15's .claude/commands), besides the server's built-ins. */
  commands?: SessionCommand[];
  /** Ends the session: saves it, stops its MCP servers. */
  close(): Promise<void>;
}

export interface AcpServerOptions {
  /** Builds a session's agent; throws when a session to load does not exist. */
  openSession(setup: SessionSetup): Promise<SessionHandle>;
  /** Whether sessions can be loaded and resumed (default true). */
  loadSession?: boolean;
  /** Chapter 12's saved sessions, for session/list and session/delete (not given: neither is offered). */
  sessions?: SavedSessions;
  /**
   * Whether the sessions' model reads images (the provider's imageInput): advertised in initialize, and an image in a
   * prompt is refused when it is not true (fail closed).
   */
  imageInput?: boolean;
  /** The agent's name and version, for initialize. */
  name?: string;
  version?: string;
  /** The model's context window in tokens (default 200,000) and its price, for usage_update. */
  contextWindow?: number;
  price?: ModelPrice;
  /** Makes session ids (default: random UUIDs). */
  newId?: () => string;
  /**
   * Turns an error a handler threw into the one the client gets (the kit's CLI turns an unfinished stub into advice
   * the editor shows). The SDK sends a RequestError as it is and any other error as a bare internal error.
   */
  mapError?(error: unknown): unknown;
}

/** One session as the server keeps it. */
export interface LiveSession {
  id: string;
  cwd: string;
  handle: SessionHandle;
  /** The running prompt's controller, while one runs. */
  running?: AbortController;
  /** The exit_plan_mode calls of the running turn, oldest first (the plan question answers the first). */
  planCalls: string[];
}

/** The client as the handlers see it: chapter 14 only sends requests and notifications through it. */
export type Client = Pick<acp.AgentContext, 'request' | 'notify'>;

/** True for an absolute path on this system. */
export function isAbsolutePath(value: string): boolean {
  return typeof value === 'string' && (value.startsWith('/') || /^[A-Za-z]:[\\/]/.test(value));
}
