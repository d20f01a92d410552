/**
 * Chapter 6: a turn as events, and events back into a turn.
 *
 * A streaming provider hands over the turn in small pieces: text a few words at a time, a tool call's arguments as
 * fragments of JSON cut anywhere (inside a string, an escape, a number). The TurnBuilder collects the pieces by
 * block index and, once the stream has finished, gives back exactly the AssistantMessage that complete() would
 * have returned. turnToEvents goes the other way: the MockProvider and the offline provider use it to stream a
 * turn they already have.
 */
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
  // 1. Walk turn.content with each block's position as its `index`.
  // 2. A text block: one text_delta per piece of wordPieces(block.text).
  // 3. A thinking block: one thinking_delta per piece of wordPieces(block.thinking), then a thinking_signature if
  //    the block has a signature.
  // 4. A tool call: tool_call_start { id, name }, then one tool_call_delta per piece of its arguments text cut
  //    with fixedPieces(text, ARGUMENT_PIECE), then tool_call_end. The text is JSON.stringify(block.arguments ?? {}),
  //    except for arguments that are a string: those are already the text the model wrote.
  // 5. Last, one finish with the turn's stopReason, and its usage when it has one.
  const events: StreamEvent[] = [];
  turn.content.forEach((block, index) => {
    switch (block.type) {
      case 'text':
        for (const text of wordPieces(block.text)) events.push({ type: 'text_delta', index, text });
        break;
      case 'thinking':
        for (const thinking of wordPieces(block.thinking)) events.push({ type: 'thinking_delta', index, thinking });
        if (block.signature !== undefined)
          events.push({ type: 'thinking_signature', index, signature: block.signature });
        break;
      case 'tool_call':
        events.push({ type: 'tool_call_start', index, id: block.id, name: block.name });
        const json = typeof block.arguments === 'string' ? block.arguments : JSON.stringify(block.arguments ?? {});
        for (const argumentsDelta of fixedPieces(json, ARGUMENT_PIECE)) {
          events.push({ type: 'tool_call_delta', index, argumentsDelta });
        }
        events.push({ type: 'tool_call_end', index });
        break;
    }
  });
  events.push({ type: 'finish', stopReason: turn.stopReason, ...(turn.usage ? { usage: turn.usage } : {}) });
  return events;
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
    // 1. Count the event. After a finish, any further event is a provider bug: throw an Error that says so.
    // 2. text_delta / thinking_delta: append to the draft at event.index, creating it ('' so far) the first time.
    //    thinking_signature: append to that thinking draft's signature.
    // 3. tool_call_start: a new draft { id, name, json: '', ended: false } at event.index.
    // 4. tool_call_delta: append argumentsDelta to that draft's json. Only concatenate: a piece is not JSON on its
    //    own (it may end inside a string, an escape or a number).
    // 5. tool_call_end: the JSON is whole now: parse it with parseArguments and mark the draft ended.
    // 6. finish: remember stopReason and usage.
    // 7. A delta, start or end that does not fit the block at its index (another kind of block, or no tool call at
    //    all) throws an Error naming the index and the kind of block already there.
    this.count++;
    if (this.finished) throw new Error(`stream event ${this.count} (${event.type}) came after the finish event`);
    if (event.type === 'finish') {
      this.finished = { stopReason: event.stopReason, ...(event.usage ? { usage: event.usage } : {}) };
      return;
    }
    const draft = this.drafts.get(event.index);
    const mismatch = () =>
      new Error(
        `${event.type} for block ${event.index}, which is ${draft ? `a ${draft.type} block` : 'not an open tool call'}`,
      );
    switch (event.type) {
      case 'text_delta':
        if (!draft) this.drafts.set(event.index, { type: 'text', text: event.text });
        else if (draft.type === 'text') draft.text += event.text;
        else throw mismatch();
        break;
      case 'thinking_delta':
      case 'thinking_signature': {
        const thinking = draft ?? { type: 'thinking', thinking: '' };
        if (thinking.type !== 'thinking') throw mismatch();
        if (event.type === 'thinking_delta') thinking.thinking += event.thinking;
        else thinking.signature = (thinking.signature ?? '') + event.signature;
        this.drafts.set(event.index, thinking);
        break;
      }
      case 'tool_call_start':
        if (draft) throw mismatch();
        this.drafts.set(event.index, { type: 'tool_call', id: event.id, name: event.name, json: '', ended: false });
        break;
      case 'tool_call_delta':
        if (draft?.type !== 'tool_call' || draft.ended) throw mismatch();
        draft.json += event.argumentsDelta;
        break;
      case 'tool_call_end':
        if (draft?.type !== 'tool_call' || draft.ended) throw mismatch();
        draft.arguments = parseArguments(draft.json);
        draft.ended = true;
        break;
    }
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
    // 1. No finish event yet: throw a StreamCutError saying the stream ended before its finish event (and after
    //    how many events).
    // 2. A tool call draft that never ended: throw a StreamCutError naming its id and name; its arguments may be
    //    half written. Except when the finish says 'max_tokens': the model was cut off, the turn is whole and says
    //    so; keep the call with parseArguments of the text that arrived.
    // 3. Sort the drafts by index and turn each into its content block: text, thinking (with the signature only
    //    when there is one), tool_call { id, name, arguments }.
    // 4. Return { role: 'assistant', content, stopReason } plus usage when the finish event had it.
    if (!this.finished) {
      throw new StreamCutError(
        `the stream ended before its finish event (after ${this.count} events): the turn is incomplete`,
      );
    }
    const cutOff = this.finished.stopReason === 'max_tokens';
    const entries = [...this.drafts.entries()].sort(([a], [b]) => a - b);
    const content: ContentBlock[] = entries.map(([, draft]) => {
      switch (draft.type) {
        case 'text':
          return { type: 'text', text: draft.text };
        case 'thinking':
          return {
            type: 'thinking',
            thinking: draft.thinking,
            ...(draft.signature !== undefined ? { signature: draft.signature } : {}),
          };
        case 'tool_call':
          if (!draft.ended && !cutOff) {
            throw new StreamCutError(
              `tool call ${draft.id} (${draft.name}) was started but never ended: its arguments may be incomplete`,
            );
          }
          return {
            type: 'tool_call',
            id: draft.id,
            name: draft.name,
            arguments: draft.ended ? draft.arguments : parseArguments(draft.json),
          };
      }
    });
    return {
      role: 'assistant',
      content,
      stopReason: this.finished.stopReason,
      ...(this.finished.usage ? { usage: this.finished.usage } : {}),
    };
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
