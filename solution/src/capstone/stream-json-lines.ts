import { type StopReason } from '../messages.js';

/** Token counts in the Messages API's names. */
export interface ApiUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export type ApiContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface ApiToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error: boolean;
}

/** An MCP server as init lists it: its name, and whether it started (`connected`) or not (`failed`). */
export interface McpServerStatus {
  name: string;
  status: 'connected' | 'failed';
}

/** The first line: what this run works with. */
export interface InitLine {
  type: 'system';
  subtype: 'init';
  session_id: string;
  cwd: string;
  model: string;
  tools: string[];
  mcp_servers: McpServerStatus[];
  permissionMode: string;
  /** The slash commands a person can type, without the `/`. */
  slash_commands: string[];
  /** The kit's version (its package.json), in the field Claude Code names its own. */
  claude_code_version: string;
  uuid: string;
}

/** One model turn. */
export interface AssistantLine {
  type: 'assistant';
  message: { role: 'assistant'; content: ApiContentBlock[]; stop_reason: StopReason; usage?: ApiUsage };
  parent_tool_use_id: null;
  session_id: string;
}

/** The results of one turn's calls (or, rarely, a user message the run added). */
export interface UserLine {
  type: 'user';
  message: { role: 'user'; content: string | ApiToolResultBlock[] };
  parent_tool_use_id: null;
  session_id: string;
}

/** The oldest messages were replaced by a summary (chapter 12's compaction). */
export interface CompactBoundaryLine {
  type: 'system';
  subtype: 'compact_boundary';
  session_id: string;
  compact_metadata: { trigger: 'manual' | 'auto'; pre_tokens: number };
}

export type ResultSubtype = 'success' | 'error_max_turns' | 'error_during_execution';

/** A call that never ran because a hook or the permission gate blocked it, as Claude Code lists it. */
export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: unknown;
}

/** One model's share of the run, in Claude Code's names (`costUSD` null when the model has no price). */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number | null;
}

/** The last line: how the run ended, what it answered, what it cost. */
export interface ResultLine {
  type: 'result';
  subtype: ResultSubtype;
  is_error: boolean;
  result: string;
  num_turns: number;
  duration_ms: number;
  /** Why the last model turn of the run stopped; null when the run made none. */
  stop_reason: StopReason | null;
  /** Dollars, or null when the model's price is not known. */
  total_cost_usd: number | null;
  usage: ApiUsage;
  /** The usage by model (the kit runs one model a run: one entry, none without a model). */
  modelUsage: Record<string, ModelUsage>;
  /** The calls a hook or the gate blocked, in the order they were decided. */
  permission_denials: PermissionDenial[];
  session_id: string;
  uuid: string;
  /** What went wrong, for every subtype but success. */
  errors?: string[];
}

export type StreamJsonLine = InitLine | AssistantLine | UserLine | CompactBoundaryLine | ResultLine;
