/**
 * Chapter 7: what a run looks like from outside.
 *
 * The loop of chapter 7 does not print, does not call handlers, and does not return a string: it hands out one
 * event at a time, and every consumer (a test, the terminal, an editor over ACP, a parent agent) reads the same
 * events and keeps what it needs. Each event is a plain object tagged by `type`, in the naming style of the stream
 * events; everything about one call carries its `callId`, everything about one model call its `turn` (counting
 * from 1 in each run). No event holds a secret: no key, no headers, no thrown object, only data a UI can show or
 * a session can save as JSON.
 *
 * A tool call is told twice. While the model writes it, `tool_call_start` (its id and name) and `tool_call_delta`
 * (each piece of its JSON arguments, as it arrives) let a terminal show the call being written and an editor open
 * its card early; nothing is decided yet, and the pieces are not JSON on their own. Once the turn is whole,
 * `tool_call_requested` carries the parsed arguments, and everything after it (decision, result) follows. The id is
 * the same, except when the model wrote one id twice in a turn: normalizeTurn renames the second, so the renamed
 * call's requested event carries an id its start did not.
 *
 * A run ends with exactly one `done`, whatever happened. Its `reason` says why:
 * - `end_turn`: the model answered; `text` is the answer;
 * - `cancelled`: the signal aborted (or a hook stopped the run); `message` says why;
 * - `turn_limit`: the model was still asking for tools after `maxTurns` model calls;
 * - `error`: a provider failure, a cut stream or a hook that threw; `message` says what;
 * - `paused_for_client_tool`: the model called a tool the caller answers (client-tools.ts); `pending` lists the
 *   calls waiting for the caller's results.
 * In every case but the pause, every call the run added to the history has its result.
 */
import type { ToolCall, Usage } from './messages.js';
import type { RetryNotice } from './stream-events.js';

/** What a before-tool-call hook decided: run the call as written, never run it, or run it with other arguments. */
export type ToolDecision =
  | { type: 'allow'; permission?: PermissionNote }
  | { type: 'block'; message: string; permission?: PermissionNote }
  | { type: 'change'; arguments: unknown };

/** The person's answer to a permission question (ACP's option kinds). */
export type PermissionAnswer = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

/** Chapter 8: what the permission gate decided about a call, and why, for the UI and the session log. */
export interface PermissionNote {
  /** allowed without asking, asked (see answer), or denied without asking. */
  outcome: 'allowed' | 'asked' | 'denied';
  /** One sentence: the rule, the mode or the safety check that decided. */
  reason: string;
  /** The permission mode at the time. */
  mode: string;
  /** The rule that decided, as written (`Bash(npm test:*)`), and where it came from (a file, a flag, `session`). */
  rule?: string;
  source?: string;
  /** When asked: the person's answer, and the session rules it added. */
  answer?: PermissionAnswer;
  added?: string[];
}

export type DoneReason = 'end_turn' | 'cancelled' | 'turn_limit' | 'error' | 'paused_for_client_tool';

/** The last event of every run, and the only one a consumer that wants the answer needs. */
export interface DoneEvent {
  type: 'done';
  reason: DoneReason;
  /** Model calls made in this run. */
  turns: number;
  /** The text of the last whole turn this run added ('' if none): for end_turn, the answer. */
  text: string;
  /** The usage of every whole turn of this run, added up. */
  usage: Usage;
  /** Why the run stopped, for cancelled, turn_limit and error. */
  message?: string;
  /** For paused_for_client_tool: the calls that wait for the caller's results. */
  pending?: ToolCall[];
}

export type AgentEvent =
  | { type: 'turn_start'; turn: number }
  | { type: 'text_delta'; turn: number; text: string }
  | { type: 'thinking_delta'; turn: number; thinking: string }
  | { type: 'usage'; turn: number; usage: Usage }
  | { type: 'tool_call_start'; turn: number; callId: string; name: string }
  | { type: 'tool_call_delta'; turn: number; callId: string; argumentsDelta: string }
  | { type: 'tool_call_requested'; turn: number; callId: string; name: string; arguments: unknown }
  | { type: 'tool_call_decided'; turn: number; callId: string; name: string; decision: ToolDecision }
  | { type: 'tool_result'; turn: number; callId: string; name: string; content: string; isError: boolean }
  | ({ turn: number } & RetryNotice)
  | CompactionEvent
  | PlanningEvent
  | ToolProgressEvent
  | DoneEvent;

/**
 * Chapter 11: how far a running call has got, as the tool reports it while it runs (an MCP server's
 * notifications/progress), emitted through ToolContext.emit so `callId` is the call. `progress` only grows; `total`
 * is there when the tool knows it; `message` says what it is doing. A hint for the person, never part of the result.
 */
export interface ToolProgressEvent {
  type: 'tool_progress';
  turn: number;
  callId: string;
  progress: number;
  total?: number;
  message?: string;
}

/** Chapter 13: one entry of the model's task list (Claude Code's TodoWrite item; an ACP plan entry). */
export interface TodoItem {
  /** What to do, in the imperative: "Run the tests". */
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  /** The same task as it is being done: "Running the tests" (shown while in progress). */
  activeForm?: string;
  priority?: 'high' | 'medium' | 'low';
}

/**
 * Chapter 13: the person's answer to a plan (exit_plan_mode): approve it and go on in `default` or `acceptEdits`
 * mode, or keep planning, with feedback the model reads when there is some. The terminal asks in one way, an editor
 * (chapter 14, session/request_permission) in another; the tool only sees this answer.
 */
export type PlanDecision = { approved: true; mode: 'default' | 'acceptEdits' } | { approved: false; feedback?: string };

/** Asks the person about a plan. Rejects with the signal's reason when the run is cancelled while it waits. */
export type ApprovePlan = (plan: string, signal: AbortSignal) => Promise<PlanDecision>;

/**
 * Chapter 13's events, emitted by its tools while they run (ToolContext.emit), so `callId` is the call that emitted
 * them:
 * - `todo_list`: the whole task list after a change (chapter 14 sends it to the editor as a plan, chapter 15 draws it);
 * - `plan_proposed`: the plan an exit_plan_mode call carries, before the person is asked;
 * - `plan_decided`: the person's answer: approved (the run goes on in `mode`) or not (`feedback` is what the model
 *   reads, and the mode stays plan);
 * - `mode_changed`: the permission mode changed during the run (chapter 14 sends it as current_mode_update);
 * - `subagent`: one event of a child agent that a `task` call runs, as the child yielded it; a grandchild's events
 *   arrive wrapped twice.
 */
export type PlanningEvent =
  | { type: 'todo_list'; turn: number; callId: string; todos: TodoItem[] }
  | { type: 'plan_proposed'; turn: number; callId: string; plan: string }
  | { type: 'plan_decided'; turn: number; callId: string; approved: boolean; mode: string; feedback?: string }
  | { type: 'mode_changed'; turn: number; mode: string; previous: string }
  | { type: 'subagent'; turn: number; callId: string; event: AgentEvent };

/**
 * Chapter 12: the oldest messages of the history were replaced by one summary. `from` and `count` say which
 * (history.splice(from, count, summary message) replays it); the token figures are estimates before and after.
 * `turn` is 0 for a compaction asked for between runs (`/compact`).
 */
export interface CompactionEvent {
  type: 'compaction';
  turn: number;
  from: number;
  count: number;
  summary: string;
  tokensBefore: number;
  tokensAfter: number;
  manual: boolean;
}
