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
 * The events a provider would send for `turn`: each block in order, with `index` its position in turn.content;
 * text and thinking word by word, arguments as JSON in pieces of ARGUMENT_PIECE code units; one `finish` last.
 * Arguments that are a string are the text the model wrote (see parseArguments) and are sent as they are.
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
   * Adds one event. Throws an Error (a provider bug, not a cut) for an event after `finish`, a tool-call delta or
   * end with no start, or an event whose kind does not match the block already at its index.
   */
  add(event: StreamEvent): void {
    if (event.type === 'retry') return; // chapter 10's notice that a request is tried again: not part of the turn
    // #region chapter 6: TurnBuilder.add
    // Write it from the contract above. Step by step instead: npm run reset -- chapter6 --guided
    throw new TodoError(6, 'TurnBuilder.add');
    // #endregion
  }

  /**
   * The finished turn: blocks in index order, stop reason and usage from `finish`. Throws StreamCutError when no
   * `finish` arrived, or a tool call never ended in a turn that was not cut at the token limit. A turn that was
   * ('max_tokens') keeps such a call as it was written, not runnable: the agent runs no call of that turn.
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
