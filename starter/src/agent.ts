/**
 * Chapter 7: the loop, the last time it is written.
 *
 * `Agent.run(history)` is chapter 6's loop as an async iterable of agent events: each model turn is streamed,
 * its calls run through the executor, and the run ends with exactly one `done`. Everything else plugs in from
 * outside: hooks (hooks.ts), how calls run (serial-executor.ts, hooked-call.ts), tools the client answers
 * (client-tools.ts). Later chapters add parts at those seams; none of them adds a branch here.
 */
import { TodoError } from './todo.js';
import { TurnBuilder } from './accumulate.js';
import { addUsage, streamedTurnEvents, type AgentEvent } from './agent-events.js';
import { DEFAULT_MAX_TURNS, type AgentOptions } from './simple-agent.js';
import { addClientResults } from './client-tools.js';
import { endingOf, finishRun, interruptRun, startRun } from './finish-run.js';
import { runSerially, type Executor } from './serial-executor.js';
import { composeHooks, type ComposedHooks, type Hooks } from './hooks.js';
import { textOf, toolCallsOf, type AssistantMessage, type Message, type ToolResultMessage } from './messages.js';
import type { ModelRequest, Provider } from './provider.js';
import { runToolCall, takeEmitted, type RunContext } from './hooked-call.js';
import { turnEvents } from './streaming-agent.js';
import type { ToolSet } from './tool.js';
import { normalizeTurn } from './turn-rules.js';

export interface AgentConfig extends AgentOptions {
  hooks?: Hooks | readonly Hooks[]; // one set of hooks, or several, called in order
  executor?: Executor; // how one turn's calls run (default: runSerially)
}

export interface AgentRunOptions {
  signal?: AbortSignal; // aborting ends the run with done: cancelled, its reason as the message
  clientResults?: readonly ToolResultMessage[]; // the client's results for the calls a paused run left open
}

export class Agent {
  readonly provider: Provider;
  readonly tools: ToolSet;
  readonly cwd: string;
  readonly system: string | undefined;
  readonly maxTurns: number;
  readonly hooks: ComposedHooks;
  readonly executor: Executor;

  constructor(config: AgentConfig) {
    this.provider = config.provider;
    this.tools = config.tools;
    this.cwd = config.cwd;
    this.system = config.system;
    this.maxTurns = config.maxTurns ?? DEFAULT_MAX_TURNS;
    this.hooks = composeHooks(config.hooks);
    this.executor = config.executor ?? runSerially;
  }

  /**
   * Chapter 6's loop as an async iterable of agent events (AgentEvent, agent-event-types.ts): continues the
   * conversation in `history` (appending to it in place) and yields the run's events, ending with exactly one
   * `done`. Never throws: a provider failure, a cut stream, a hook that throws, a cancel and the turn limit all
   * become `done` reasons (DoneReason), and the history is valid afterwards, every tool call answered, except those
   * a `paused_for_client_tool` run leaves open on purpose. The given parts do the detail: startRun makes the run's
   * state (with its own signal), finishRun ends it, interruptRun cleans up, runToolCall runs one tool call.
   *
   * - A resume comes first: the client's results (`options.clientResults`) go through addClientResults; if it
   *   refuses them, the run ends at once with `done` of reason `error` and its sentence, with no model call and
   *   nothing else touched (the history stays paused: not through finishRun, which would close the calls the
   *   client still owes).
   * - At most `maxTurns` model calls, counted from 1 as the turn. Each round announces itself with `turn_start`;
   *   what would be sent (chapter 3's prompt, history and tool list) goes through the beforeModelCall hook, and what
   *   it gives back is what streamTurn sends, with the run's signal. The turn, through normalizeTurn, enters the
   *   history; its usage is added up (addUsage) and reported with a `usage` event; then the afterModelCall hook sees
   *   it, every turn, an answer as well as a tool round, before any of its tool calls is requested.
   * - A `tool_use` turn: a `tool_call_requested` event for each tool call first, then they go to `this.executor`,
   *   which runs each with runToolCall and records what they give onto the history in their order. Tool calls left
   *   waiting for the client (`run.pending`) end the run as `paused_for_client_tool`; otherwise the next round. Any
   *   other stop reason ends the run as `end_turn`, answered by that turn.
   * - Events a hook emits (ctx.emit) are yielded right after it returned (takeEmitted).
   * - A stop or an abort is honoured wherever it happens: no round starts, no model call is made and no further
   *   tool runs once the run's signal has aborted: at the start of a round, after each model-call hook (a hook's
   *   ctx.stop aborts that signal with a RunStop), after the tools (so a cancelled run never comes back as paused).
   * - However it ends, endingOf (given) says from what was thrown how: a hook's stop as it asked (its answer, when
   *   it gives one, becomes the run's final words), another abort as `cancelled`, anything else as `error`. The turn
   *   limit is `turn_limit`, saying what the limit was.
   * - The clean-up runs however the run ends, also when the consumer stops reading early (`break`, `return()`,
   *   which run only the generator's `finally`): the tool calls it left open get a cancelled result then.
   */
  async *run(history: Message[], options: AgentRunOptions = {}): AsyncGenerator<AgentEvent, void, undefined> {
    // #region chapter 7: Agent.run
    // Write it from the contract above. Step by step instead: npm run reset -- chapter7 --guided
    throw new TodoError(7, 'Agent.run');
    // #endregion
  }

  /**
   * One model call, streamed, as chapter 6's streamTurn was: the whole turn it returns is what a TurnBuilder
   * rebuilds from all that turnEvents (given) yields, while the agent event for each piece is yielded as it arrives,
   * with the turn number: text and thinking, a call's start and its argument pieces (so a UI can show the call
   * being written), a retry notice (chapter 10). streamedTurnEvents (given) makes those, one per turn: it
   * remembers each call's id from its start.
   *
   * - A piece of text reaches the onText hook, awaited, before its agent event is yielded; an empty piece
   *   reaches neither.
   * - Throws what the stream throws, StreamCutError for a stream that stopped early, and the run's abort reason
   *   after an abort, even when the stream ended quietly. Never touches the history.
   */
  async *streamTurn(request: ModelRequest, run: RunContext): AsyncGenerator<AgentEvent, AssistantMessage, undefined> {
    // #region chapter 7: Agent.streamTurn
    // Write it from the contract above. Step by step instead: npm run reset -- chapter7 --guided
    throw new TodoError(7, 'Agent.streamTurn');
    // #endregion
  }
}
