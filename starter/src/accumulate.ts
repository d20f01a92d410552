/**
 * Chapter 6: a turn as events, and events back into a turn.
 *
 * A streaming provider hands over the turn in small pieces: text a few words at a time, a tool call's arguments as
 * fragments of JSON cut anywhere (inside a string, an escape, a number). The TurnBuilder collects the pieces by
 * block index and, once the stream has finished, gives back exactly the AssistantMessage that complete() would
 * have returned. turnToEvents goes the other way: the MockProvider and the offline provider use it to stream a
 * turn they already have.
 */
import { TodoError } from './todo.js';
import type { AssistantMessage, ContentBlock, StopReason, Usage } from './messages.js';
import type { StreamEvent } from './stream-events.js';

/**
 * The stream stopped before the turn was whole: no `finish` event came, or a tool call was started and never
 * ended. What arrived is not a turn, and must not be added to a history.
 */
export class StreamCutError extends Error {
  override name = 'StreamCutError';
}

/** Words with the whitespace after them; '' gives one empty piece. Never splits a character. */
export function wordPieces(text: string): string[] {
  return text.match(/\s+|\S+\s*/g) ?? [''];
}

/** Pieces of `size` UTF-16 code units: cut anywhere, even inside an escape, a number or a surrogate pair. */
export function fixedPieces(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

/** How turnToEvents cuts a tool call's JSON arguments: in pieces this long. */
export const ARGUMENT_PIECE = 5;

/**
 * What a provider would stream for `turn`, as a StreamEvent list (stream-events.ts): it lets the MockProvider and
 * the offline provider stream a turn they already have. The TurnBuilder must give back exactly `turn` from them
 * (`accumulate(turnToEvents(turn))` is a round trip, an empty text block included).
 *
 * - Every event of a block carries that block's position in the turn as its `index`.
 * - Text and thinking are cut with wordPieces (given), one delta per piece; a thinking block that has a signature
 *   adds one `thinking_signature` after its deltas, and one without a signature sends none.
 * - A tool call is its start, its arguments' text cut with fixedPieces into pieces of ARGUMENT_PIECE code units,
 *   then its end. The text is the arguments' JSON (`{}` when there are none), except that arguments that are a
 *   string already are the text the model wrote (see parseArguments): they go out unchanged, never stringified a
 *   second time.
 * - Exactly one `finish` comes last, with the turn's stop reason, and its usage only when the turn has one.
 */
export function turnToEvents(turn: AssistantMessage): StreamEvent[] {
  // #region chapter 6: turnToEvents
  // Write it from the contract above. Step by step instead: npm run reset -- chapter6 --guided
  throw new TodoError(6, 'turnToEvents');
  // #endregion
}

/** A block while it is being written. A tool call keeps its raw JSON until its end event. */
type Draft =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'tool_call'; id: string; name: string; json: string; ended: boolean; arguments?: unknown };

/**
 * The JSON a model wrote for a tool call's arguments: '' (a call without arguments) is {}, valid JSON is its value,
 * anything else stays the raw string, so that the tool's schema check tells the model what went wrong. JSON whose
 * value is a string (the model wrote a string, often holding more JSON) also stays the raw text: a string argument
 * always means exactly what the model wrote, and goes back to it unchanged.
 */
export function parseArguments(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'string' ? json : value;
  } catch {
    return json;
  }
}

/**
 * Collects the events of one streamed turn. `add` each event as it arrives; `build` once the stream is over.
 * Events may interleave between blocks: each one goes to the block its `index` names.
 */
export class TurnBuilder {
  /** Blocks by index, as they stand so far. */
  private readonly drafts = new Map<number, Draft>();
  private finished: { stopReason: StopReason; usage?: Usage } | undefined;
  /** Events added so far, for error messages. */
  private count = 0;

  /**
   * Files one event under the block its `index` names: events of different blocks may interleave (parallel calls
   * do), so the index is the only thing that says where a piece belongs, never "the block started last".
   *
   * - Text and thinking arrive only as deltas, joined in order; the first one for an index creates its block.
   *   Signature pieces are joined onto their thinking block the same way (a provider may send one in pieces).
   * - A tool call's argument pieces are only joined, never parsed one by one: a piece may end inside a string, an
   *   escape, a number or a two-unit character. The JSON is whole at the call's end, and parsed then with
   *   parseArguments (given), which never throws: no text at all is `{}`, invalid JSON and a JSON string stay the
   *   raw text.
   * - `finish` records the stop reason and usage for build.
   * - A provider bug (not a cut stream) throws a plain Error: any event after `finish` (the message says it came
   *   after the finish), and a delta, start or end that does not fit what is at its index: argument pieces or an
   *   end for a call never started or already ended, a second start for an index that holds a block, ended or not,
   *   an event of another kind than the block there. That message names the index and the kind of block already
   *   there (`a text block`), so the bug can be found.
   */
  add(event: StreamEvent): void {
    if (event.type === 'retry') return; // chapter 10's notice that a request is tried again: not part of the turn
    // #region chapter 6: TurnBuilder.add
    // Write it from the contract above. Step by step instead: npm run reset -- chapter6 --guided
    throw new TodoError(6, 'TurnBuilder.add');
    // #endregion
  }

  /**
   * The turn, once the stream is over: exactly the AssistantMessage complete() would have returned, its blocks in
   * index order (not in order of arrival), the stop reason from `finish`, usage only when `finish` had it, and
   * thinking's signature only when one arrived (no field set to undefined).
   *
   * What is not whole must never reach the agent as one turn: it throws StreamCutError (given)
   * - when no `finish` arrived: the message says the finish event is missing and how many events came before the
   *   cut;
   * - when calls were started and never came to their end: their arguments may be half written. The message names
   *   the call by its id.
   *
   * One exception: in turns whose finish says `max_tokens`, the model was cut off at the token limit, the stream
   * did finish, and the turn says so. Unended calls are kept, with parseArguments of the text that arrived (no
   * text at all is `{}`); the agent runs no call of such turns.
   */
  build(): AssistantMessage {
    // #region chapter 6: TurnBuilder.build
    // Write it from the contract above. Step by step instead: npm run reset -- chapter6 --guided
    throw new TodoError(6, 'TurnBuilder.build');
    // #endregion
  }
}

/** Collects a whole stream into its turn. Rejects with what the stream throws, or with StreamCutError. */
export async function accumulate(
  events: AsyncIterable<StreamEvent> | Iterable<StreamEvent>,
): Promise<AssistantMessage> {
  const builder = new TurnBuilder();
  for await (const event of events) builder.add(event);
  return builder.build();
}
