/**
 * Chapter 6: the loop, streamed.
 *
 * The same loop as SimpleAgent, but each model turn arrives as events: text and thinking go to the caller the
 * moment they arrive, while a TurnBuilder collects the whole turn. Tools run only once the turn has finished,
 * because a tool call's arguments are not whole before that. If the stream is cut, the partial turn is dropped:
 * the caller has seen some text, but the history only ever holds whole turns, each call with its result.
 *
 * Callbacks, not an async iterable: the caller passes the handlers it wants (all optional) and awaits one promise.
 * A handler that throws does not throw into the middle of a turn: guardHandlers (given) turns its error into an
 * abort of the run, so the run ends as it does on a cancel, with every tool that ran kept in the history.
 * Chapter 7 turns the whole loop into an async iterable of agent events.
 *
 * Exported names (stable): StreamingAgent, StreamHandlers, StreamChatOptions, turnEvents, guardHandlers, and
 * CANCELLED_RESULT (re-exported from safe-call.ts, where chapter 3 defines it).
 */
import { TodoError } from './todo.js';
import { TurnBuilder, turnToEvents } from './accumulate.js';
import { DEFAULT_MAX_TURNS, TurnLimitError, type AgentOptions } from './simple-agent.js';
import { CANCELLED_RESULT, executeToolCall } from './safe-call.js';
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
import { refuseImages } from './images.js';
import type { ModelRequest, Provider } from './provider.js';
import type { StreamEvent } from './stream-events.js';
import type { ToolSet } from './tool.js';
import { normalizeTurn } from './turn-rules.js';

export { CANCELLED_RESULT };

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
  /**
   * Aborting stops the stream, stops waiting for a running tool (which gets the signal too), gives every call that
   * did not finish CANCELLED_RESULT, and rejects the run with the signal's reason.
   */
  signal?: AbortSignal;
}

/**
 * The caller's options for one run, made safe for the loop. The handlers are the caller's, except that one that
 * throws no longer throws into the loop: its error aborts the run (it becomes the returned signal's reason) and no
 * handler is called after it. The loop then ends as it does on a cancel: the tools that already ran keep their
 * results, the calls not yet run get CANCELLED_RESULT, and the run rejects with the handler's error, so a retry
 * does not run a side effect twice. The returned signal also aborts, with the caller's reason, when the caller's
 * signal does.
 */
export function guardHandlers(options: StreamChatOptions): StreamChatOptions & { signal: AbortSignal } {
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  let failed = false;
  const guard = <A extends unknown[]>(handler: ((...args: A) => void) | undefined) =>
    handler &&
    ((...args: A) => {
      if (failed) return;
      try {
        handler(...args);
      } catch (error) {
        failed = true;
        controller.abort(error);
      }
    });
  return {
    signal,
    onText: guard(options.onText),
    onThinking: guard(options.onThinking),
    onToolCall: guard(options.onToolCall),
    onToolResult: guard(options.onToolResult),
  };
}

/**
 * The events of one model turn: the provider's stream, or its whole turn as events when it cannot stream. A request
 * with images to a provider whose model takes none is refused first (refuseImages): nothing is sent.
 */
export async function* turnEvents(provider: Provider, request: ModelRequest): AsyncIterable<StreamEvent> {
  refuseImages(provider, request.messages);
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
   * One model call, streamed: the whole turn it returns is what a TurnBuilder (given) rebuilds from everything the
   * stream yields, while each text and thinking piece reaches `onText` / `onThinking` the moment it arrives, with
   * the stream still running (showing it after the loop defeats the point of streaming; a test checks). An empty
   * piece is never handed on; thinking never goes to `onText`. It never touches the history.
   *
   * - What is sent is SimpleAgent's request (chapter 3) for `history`, with the signal in it: only the provider's
   *   client can close its connection on a cancel.
   * - turnEvents (given) gives the stream: it falls back to complete() for a model that cannot stream.
   * - Rejects with whatever the stream throws, with StreamCutError when it stopped early, and with the signal's
   *   reason when it aborts, even when the stream just ended quietly (the SDKs end it without an error on abort):
   *   a cancel is reported as a cancel, never as a cut.
   * - Works without options (no signal, no handlers): every handler is optional.
   */
  async streamTurn(history: readonly Message[], options: StreamChatOptions = {}): Promise<AssistantMessage> {
    // #region chapter 6: StreamingAgent.streamTurn
    // Write it from the contract above. Step by step instead: npm run reset -- chapter6 --guided
    throw new TodoError(6, 'StreamingAgent.streamTurn');
    // #endregion
  }

  /**
   * Runs the calls of one finished turn one after the other, with executeToolCall (chapter 3), and returns one
   * result for each of them, in the calls' order: the next request is invalid without them. Never throws, and works
   * without options.
   *
   * - `onToolCall` hears of each one before it runs, `onToolResult` gets what it gave (and the call it answers)
   *   right after.
   * - The tool gets the signal in its context. Once the signal aborts (checked before each of the calls: a tool
   *   may be what aborts it), the calls left do not run and are not reported to the handlers; each gets the error
   *   result CANCELLED_RESULT. executeToolCall already gives a tool that hangs past an abort that text.
   */
  async executeTools(calls: readonly ToolCall[], options: StreamChatOptions = {}): Promise<ToolResultMessage[]> {
    // #region chapter 6: StreamingAgent.executeTools
    // Write it from the contract above. Step by step instead: npm run reset -- chapter6 --guided
    throw new TodoError(6, 'StreamingAgent.executeTools');
    // #endregion
  }

  /**
   * Continues a conversation like SimpleAgent.chat (chapter 3's bounded loop, at most `maxTurns` model calls),
   * with turns from streamTurn. Appends whole turns and their results to `history` in place and returns the text
   * of the answer: the first turn whose stop reason asks for no tools (`max_tokens` included), whose calls never
   * run.
   *
   * - Every streamed turn goes through normalizeTurn (chapter 3) before anything looks at it, as in SimpleAgent.
   * - It uses guardHandlers(options) (given) and the options it returns, their abort included, everywhere in
   *   place of the caller's: a handler that throws aborts the loop instead of throwing out of the middle of a
   *   round, so the tools that ran keep their results and a retry never runs a side effect twice.
   * - No model call starts after an abort: it is checked at the start of every round, even when the provider
   *   ignores it.
   * - Rejects with the stream's error (a cut stream: StreamCutError or the provider's error), with the abort's
   *   reason (the caller's, or the error of a handler that threw), or with TurnLimitError when the turns run out;
   *   a cancel during the last allowed round's tools rejects with the cancel, not TurnLimitError.
   * - In every case the history stays valid: a turn is added only whole, together with every result of its
   *   calls; nothing of a turn that did not finish is ever added.
   */
  async chat(history: Message[], options: StreamChatOptions = {}): Promise<string> {
    // #region chapter 6: StreamingAgent.chat
    // Write it from the contract above. Step by step instead: npm run reset -- chapter6 --guided
    throw new TodoError(6, 'StreamingAgent.chat');
    // #endregion
  }
}
