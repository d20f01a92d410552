/**
 * Chapter 1: a provider that replays a script.
 *
 * Tests need a model that answers the same way every time. The MockProvider takes the turns it should return, in
 * order, and keeps a copy of every request it received so that a test can check exactly what the agent sent: which
 * messages, in which order, with which tools. Chapter 6 adds stream(): the same script, as events.
 */
import { TodoError } from './todo.js';
import { turnToEvents } from './accumulate.js';
import type { AssistantMessage } from './messages.js';
import type { ModelRequest, Provider } from './provider.js';
import type { StreamEvent } from './stream-events.js';

/**
 * A turn written as stream events (chapter 6), replayed as they are by stream(). An Error in the list is thrown at
 * that point: the stream is cut there. complete() cannot replay such a step and throws.
 */
export type ScriptedStream = Array<StreamEvent | Error>;

/** A step complete() can replay: a turn, an error to throw, or a function that builds the turn from the request. */
export type TurnStep =
  | AssistantMessage
  | Error
  | ((request: ModelRequest) => AssistantMessage | Promise<AssistantMessage>);

/**
 * One step of a script: the turn to return, an error to throw (a provider failure), a function that builds
 * the turn from the request it answers, or (chapter 6) the exact events of a streamed turn.
 */
export type ScriptStep = TurnStep | ScriptedStream;

/** A request as the MockProvider recorded it: a deep copy, without the abort signal. */
export type RecordedRequest = Omit<ModelRequest, 'signal'>;

/** Thrown when the agent asks for more turns than the script has. */
export class ScriptExhaustedError extends Error {
  override name = 'ScriptExhaustedError';
}

export interface MockOptions {
  /** Whether the scripted model takes images (default false: turnEvents refuses a request with images, as for a text-only model). */
  imageInput?: boolean;
}

export class MockProvider implements Provider {
  readonly name = 'mock';
  readonly imageInput: boolean;
  /** Every request received, in order, copied at the moment it arrived. */
  readonly requests: RecordedRequest[] = [];
  private readonly script: TurnStep[];
  /** The steps written as events, by position in the script; in `script` they stand as an error for complete(). */
  private readonly streams = new Map<number, ScriptedStream>();
  private next = 0;

  constructor(script: ScriptStep[], options: MockOptions = {}) {
    this.imageInput = options.imageInput ?? false;
    this.script = script.map((step, i) => {
      if (!Array.isArray(step)) return step;
      this.streams.set(i, [...step]);
      return new Error(
        `MockProvider: turn ${i + 1} of the script is written as stream events; only stream() can replay it`,
      );
    });
  }

  /** How many scripted steps have not been used yet. */
  get remaining(): number {
    return this.script.length - this.next;
  }

  /**
   * Answers with the script's steps, one per call, in order, as a provider would: a turn is returned, an error is
   * thrown (a provider failure; it uses up its step all the same), a step that builds the turn from the request is
   * called with it and what it gives, awaited, is the turn. A test then reads what was recorded to see exactly what
   * the agent sent, so:
   *
   * - Every call is recorded, in order, as a deep copy made the moment it arrives (a RecordedRequest: without the
   *   signal, which cannot be copied and says nothing about what was asked): the agent keeps appending to the same
   *   history, and a kept reference would show later messages as sent.
   * - A call whose signal has already fired was never really made: it rejects with the signal's own reason, before
   *   anything is recorded or any step used.
   * - A call past the end of the script was made: it is recorded, then fails loudly with ScriptExhaustedError,
   *   whose message says how many turns the script held and which turn was asked for, counted from 1 as a person
   *   would (a script of `1 turn` asked again: `turn 2`; of `2 turns`: `turn 3`), never a quiet undefined.
   * - What it returns is always a deep copy, whichever kind of step built it: the agent changing the turn it got
   *   must never change the script.
   */
  async complete(request: ModelRequest): Promise<AssistantMessage> {
    // #region chapter 1: MockProvider.complete
    // Write it from the contract above. Step by step instead: npm run reset -- chapter1 --guided
    throw new TodoError(1, 'MockProvider.complete');
    // #endregion
  }

  /**
   * The same script as complete(), streamed (chapter 6): each call uses up one step of it, whether or not the
   * stream is read to its end.
   *
   * - Before anything else it behaves as complete() does, with the same guarantees: a signal that has fired
   *   already throws its reason, nothing recorded and no step used up; the request is recorded as a copy without
   *   its signal, even one that then finds the script used up or an error step; a used-up script throws
   *   ScriptExhaustedError with complete()'s message (how many turns, counting from 1: a script of 1 turn asked
   *   for a second says `1 turn` and `turn 2`, and one of `2 turns` asked for a third `turn 3`).
   * - Steps the constructor kept as StreamEvent lists (`this.streams`, by where they stand in the script) are
   *   replayed as they are, in order, and an error placed among them is thrown where it stands: a stream cut in
   *   the middle. Any other step gives what complete() would give (an error step is thrown), streamed as
   *   turnToEvents of that turn.
   * - The signal is looked at again before each one it yields, not only at the start: once it aborts, the stream
   *   throws the signal's reason and yields nothing more.
   * - It yields copies: the caller changing what it got must not change the script.
   */
  async *stream(request: ModelRequest): AsyncIterable<StreamEvent> {
    // #region chapter 6: MockProvider.stream
    // Write it from the contract above. Step by step instead: npm run reset -- chapter6 --guided
    throw new TodoError(6, 'MockProvider.stream');
    // #endregion
  }
}
