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
   * Continues the conversation in `history` (appending to it in place) and yields the run's events, ending with
   * exactly one `done`. Never throws: failures, cancels and the turn limit are `done` reasons, and the history is
   * valid afterwards (except for the calls a `paused_for_client_tool` run leaves open), also when the consumer
   * stops reading early (`break`, `return()`): the calls it left open get a cancelled result then.
   */
  async *run(history: Message[], options: AgentRunOptions = {}): AsyncGenerator<AgentEvent, void, undefined> {
    // #region chapter 7: Agent.run
    // Write it from the contract above. Step by step instead: npm run reset -- chapter7 --guided
    throw new TodoError(7, 'Agent.run');
    // #endregion
  }

  /**
   * One model call, streamed: yields an agent event for every piece as it arrives (text after the onText hooks saw
   * it, thinking, a tool call's start and its argument pieces, a retry notice) and returns the whole turn. Throws what the stream throws, the signal's reason
   * after an abort, and StreamCutError for a stream that stopped early. Does not touch the history.
   */
  async *streamTurn(request: ModelRequest, run: RunContext): AsyncGenerator<AgentEvent, AssistantMessage, undefined> {
    // #region chapter 7: Agent.streamTurn
    // Write it from the contract above. Step by step instead: npm run reset -- chapter7 --guided
    throw new TodoError(7, 'Agent.streamTurn');
    // #endregion
  }
}
