/**
 * Chapter 6: the loop, streamed.
 *
 * The same loop as SimpleAgent, but each model turn arrives as events: text and thinking go to the caller the
 * moment they arrive, while a TurnBuilder collects the whole turn. Tools run only once the turn has finished,
 * because a tool call's arguments are not whole before that. If the stream is cut, the partial turn is dropped:
 * the caller has seen some text, but the history only ever holds whole turns, each call with its result.
 *
 * Callbacks, not an async iterable: the caller passes the handlers it wants (all optional) and awaits one promise.
 * Chapter 7 turns the whole loop into an async iterable of agent events.
 */
import { TurnBuilder, turnToEvents } from './accumulate.js';
import { DEFAULT_MAX_TURNS, TurnLimitError, type AgentOptions } from './agent.js';
import { executeToolCall } from './execute-tool.js';
import {
  textOf,
  toolCallsOf,
  toolResult,
  userMessage,
  type AssistantMessage,
  type Message,
  type ToolCall,
  type ToolResultMessage,
} from './messages.js';
import type { ModelRequest, Provider } from './provider.js';
import type { StreamEvent } from './stream-events.js';
import type { ToolSet } from './tool.js';

/** What the caller sees while a run goes on. Every handler is optional; none may be async. */
export interface StreamHandlers {
  /** A piece of the answer's text, as soon as it arrives (never empty). */
  onText?(text: string): void;
  /** A piece of the model's visible reasoning. */
  onThinking?(thinking: string): void;
  /** A tool call about to run (its turn has finished streaming). */
  onToolCall?(call: ToolCall): void;
  /** The result of a tool call, right after it ran. */
  onToolResult?(result: ToolResultMessage, call: ToolCall): void;
}

export interface StreamChatOptions extends StreamHandlers {
  /** Aborting stops the stream, skips the tools not yet started, and rejects the run with the signal's reason. */
  signal?: AbortSignal;
}

/** The result text of a call that never ran because the run was stopped first. */
export const CANCELLED_RESULT = 'Cancelled: the run was stopped before this tool ran.';

/** The events of one model turn: the provider's stream, or its whole turn as events when it cannot stream. */
export async function* turnEvents(provider: Provider, request: ModelRequest): AsyncIterable<StreamEvent> {
  if (provider.stream) yield* provider.stream(request);
  else yield* turnToEvents(await provider.complete(request));
}

/** SimpleAgent's loop over streamed turns. The history is kept by the caller, as with SimpleAgent.chat. */
export class StreamingAgent {
  readonly provider: Provider;
  readonly tools: ToolSet;
  readonly cwd: string;
  readonly system: string | undefined;
  readonly maxTurns: number;

  constructor(options: AgentOptions) {
    this.provider = options.provider;
    this.tools = options.tools;
    this.cwd = options.cwd;
    this.system = options.system;
    this.maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  }

  /** Runs one prompt in a fresh conversation and returns the final answer. */
  run(prompt: string, options: StreamChatOptions = {}): Promise<string> {
    return this.chat([userMessage(prompt)], options);
  }

  /**
   * One model call, streamed: hands each text and thinking piece to the handlers as it arrives and returns the
   * whole turn. Does not touch the history. Rejects with whatever the stream throws, with StreamCutError when the
   * stream stops early, and with the signal's reason when it is aborted.
   */
  async streamTurn(history: readonly Message[], options: StreamChatOptions = {}): Promise<AssistantMessage> {
    // #region chapter 6: StreamingAgent.streamTurn
    // 1. Build the request: { system: this.system, messages: history, tools: this.tools.definitions(),
    //    signal: options.signal }.
    // 2. for await each event of turnEvents(this.provider, request) (it falls back to complete() for a provider
    //    that cannot stream): add it to a TurnBuilder first, then hand a non-empty text_delta to options.onText and
    //    a non-empty thinking_delta to options.onThinking, right away.
    // 3. After the loop, if the signal was aborted, throw its reason.
    // 4. Return builder.build(): it throws StreamCutError if the stream ended early.
    const request: ModelRequest = { system: this.system, messages: history, tools: this.tools.definitions(), signal: options.signal };
    const builder = new TurnBuilder();
    for await (const event of turnEvents(this.provider, request)) {
      builder.add(event);
      switch (event.type) {
        case 'text_delta':
          if (event.text) options.onText?.(event.text);
          break;
        case 'thinking_delta':
          if (event.thinking) options.onThinking?.(event.thinking);
          break;
      }
    }
    if (options.signal?.aborted) throw options.signal.reason;
    return builder.build();
    // #endregion
  }

  /**
   * Runs the calls of one finished turn in order and returns one result per call, in call order. Never throws.
   * After an abort, the calls not yet started get an error result (CANCELLED_RESULT) instead of running.
   */
  async executeTools(calls: readonly ToolCall[], options: StreamChatOptions = {}): Promise<ToolResultMessage[]> {
    // #region chapter 6: StreamingAgent.executeTools
    // 1. For each call, in order: if options.signal is aborted, its result is toolResult(call, CANCELLED_RESULT,
    //    true) and it does not run.
    // 2. Otherwise call options.onToolCall, await executeToolCall(this.tools, call, { cwd: this.cwd, signal }),
    //    then call options.onToolResult with the result and the call.
    // 3. Return the results in call order: every call has exactly one.
    const results: ToolResultMessage[] = [];
    for (const call of calls) {
      if (options.signal?.aborted) {
        results.push(toolResult(call, CANCELLED_RESULT, true));
        continue;
      }
      options.onToolCall?.(call);
      const result = await executeToolCall(this.tools, call, { cwd: this.cwd, signal: options.signal });
      options.onToolResult?.(result, call);
      results.push(result);
    }
    return results;
    // #endregion
  }

  /**
   * Continues a conversation like SimpleAgent.chat, streaming each turn. Appends whole turns and their results to
   * `history` in place and returns the final text. Rejects with TurnLimitError, with the stream's error (a cut
   * stream: StreamCutError or the provider's error), or with the signal's reason; in every case the history stays
   * valid: a turn that did not finish is never added, and every added call has its result.
   */
  async chat(history: Message[], options: StreamChatOptions = {}): Promise<string> {
    // #region chapter 6: StreamingAgent.chat
    // 1. Loop at most this.maxTurns times. Each time, first throw the signal's reason if it is aborted
    //    (signal.throwIfAborted()), then get the turn with this.streamTurn(history, options). If that throws, let
    //    it: nothing has been added to the history for this turn.
    // 2. switch on the turn's stop reason:
    //    - 'tool_use': run its calls with this.executeTools, push the turn and then the results, and go round
    //      again. (If the signal was aborted meanwhile, the next round's check ends the run, with the history
    //      valid.)
    //    - anything else: push the turn and return its text.
    // 3. If the loop ends without an answer: throw the signal's reason if it was aborted, else
    //    new TurnLimitError(this.maxTurns).
    for (let turnNumber = 0; turnNumber < this.maxTurns; turnNumber++) {
      options.signal?.throwIfAborted();
      const turn = await this.streamTurn(history, options);
      switch (turn.stopReason) {
        case 'tool_use':
          history.push(turn, ...(await this.executeTools(toolCallsOf(turn), options)));
          break;
        default:
          history.push(turn);
          return textOf(turn);
      }
    }
    options.signal?.throwIfAborted();
    throw new TurnLimitError(this.maxTurns);
    // #endregion
  }
}
