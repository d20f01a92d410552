/**
 * Chapter 12: compaction, when the conversation outgrows the model's context window.
 *
 * Every request sends the whole history, so a long task grows each request until the model refuses it. Compaction
 * asks a small, fast model to summarise the oldest part of the conversation, and puts that summary in its place:
 * the first request stays (it says what the task is), the last turns stay (the model is in the middle of them),
 * and everything between becomes one user message that starts with SUMMARY_HEADER.
 *
 * It is a before-model-call hook (chapter 7), not a new loop. It changes the history itself, not only the
 * request: the next request, and the one after, should not pay for the old turns again, and the session file
 * records the same change (a compaction event, replayed on resume), so a resumed session is the compacted one.
 *
 * The cut never separates a call from its result: the kept tail starts at a user or assistant message, never at a
 * tool result, so every result stays right after the turn that asked for it.
 */
import type { CompactionEvent } from '../agent-events.js';
import type { Hooks } from '../hooks.js';
import { IMAGE_TOKEN_ESTIMATE, imageCount } from '../images.js';
import { textOf, userMessage, type Message, type UserMessage } from '../messages.js';
import type { ModelRequest, Provider } from '../provider.js';

/** The first line of the message that stands for the summarised turns. */
export const SUMMARY_HEADER = '[Summary of the earlier part of this conversation, written when it was compacted]';

/** The kit's own instructions to the model that writes the summary. */
export const SUMMARY_PROMPT = [
  'You summarise the earlier part of a conversation between a person and a coding agent, so that the agent can',
  'continue the work without it. The agent will see your summary in place of those messages. Write plain text with',
  'these sections, and keep every detail the agent would otherwise have to find out again:',
  '- Files: every file read, created or changed, with what was done to it (exact paths).',
  '- Decisions: what was decided and why, including approaches tried and rejected.',
  '- Open tasks: what is still to do, and what the person asked for that is not done yet.',
  '- Facts: commands that work, error messages that matter, names and values the work depends on.',
  'Do not continue the conversation and do not call tools. Do not invent anything that is not in the transcript.',
].join('\n');

/** Characters per token for the estimate (a rough average for English and code). */
export const CHARS_PER_TOKEN = 4;

/** The message that replaces the summarised turns. */
export function summaryMessage(summary: string): UserMessage {
  return userMessage(`${SUMMARY_HEADER}\n\n${summary}`);
}

/**
 * A rough token count for some messages: their JSON length over CHARS_PER_TOKEN, rounded up, with each image counted
 * as IMAGE_TOKEN_ESTIMATE (images.ts) instead of its base64, whose length says nothing about what the model reads.
 */
export function estimateTokens(messages: readonly Message[]): number {
  const words = messages.map((message) =>
    message.role === 'user' && message.images ? { ...message, images: undefined } : message,
  );
  return Math.ceil(JSON.stringify(words).length / CHARS_PER_TOKEN) + imageCount(messages) * IMAGE_TOKEN_ESTIMATE;
}

/**
 * The tokens a request to the model would hold. When an assistant turn of the history carries usage, the provider
 * has counted everything up to and including that turn (its input, cached or not, and its output): start from that
 * count and estimate only the messages after it. Otherwise estimate the whole request: the system prompt, the tool
 * definitions and the messages.
 */
export function contextTokens(request: Pick<ModelRequest, 'system' | 'tools' | 'messages'>): number {
  // #region chapter 12: contextTokens
  // 1. Find the last assistant message of request.messages that has usage.
  // 2. Found at index i: inputTokens + cacheReadTokens + cacheWriteTokens + outputTokens of that usage (missing
  //    cache counts are 0), plus estimateTokens of the messages after i.
  // 3. Not found: estimateTokens(messages) plus the system prompt's and the tools' JSON length over
  //    CHARS_PER_TOKEN, rounded up.
  const messages = request.messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'assistant' || !message.usage) continue;
    const usage = message.usage;
    const counted =
      usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0) + usage.outputTokens;
    return counted + estimateTokens(messages.slice(i + 1));
  }
  const rest = (request.system ?? '').length + JSON.stringify(request.tools).length;
  return estimateTokens(messages) + Math.ceil(rest / CHARS_PER_TOKEN);
  // #endregion
}

/**
 * Where the kept tail starts, for a history whose last `keep` messages at least must stay: the index
 * `messages.length - keep`, moved back while it points at a tool result (the tail then starts at the turn that
 * asked for them). Undefined when fewer than two messages would be summarised after the first request (index < 3):
 * there is nothing worth compacting.
 */
export function findCut(messages: readonly Message[], keep: number): number | undefined {
  // #region chapter 12: findCut
  // 1. Start at messages.length - keep (never below 1: the first request always stays).
  // 2. While the message there is a tool result, step back one.
  // 3. If the index is below 3 (the first request plus at least two messages to summarise), return undefined;
  //    else return it.
  let cut = Math.max(1, messages.length - keep);
  while (messages[cut]?.role === 'tool') cut--;
  return cut < 3 ? undefined : cut;
  // #endregion
}

/** The messages to summarise as a plain transcript, one block per message (long tool output clipped). */
export function transcriptOf(messages: readonly Message[], maxResult = 2000): string {
  const blocks: string[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      const images = message.images?.length ?? 0;
      blocks.push(
        `User: ${message.content}${images > 0 ? ` [${images} image${images === 1 ? '' : 's'} attached, not shown here]` : ''}`,
      );
    } else if (message.role === 'tool') {
      const content =
        message.content.length > maxResult ? `${message.content.slice(0, maxResult)}… (clipped)` : message.content;
      blocks.push(
        `Result of ${message.toolName} (${message.toolCallId})${message.isError ? ', an error' : ''}:\n${content}`,
      );
    } else {
      for (const block of message.content) {
        if (block.type === 'text' && block.text) blocks.push(`Assistant: ${block.text}`);
        if (block.type === 'tool_call')
          blocks.push(`Assistant called ${block.name} (${block.id}) with ${JSON.stringify(block.arguments)}`);
      }
    }
  }
  return blocks.join('\n\n');
}

export interface CompactOptions {
  /** The small, fast model's provider (the session's provider, asked with `model`). */
  provider: Provider;
  /** The model to ask, e.g. AnthropicProvider's smallFastModel. */
  model?: string;
  /** How many messages at the end must stay as they are (default 6). */
  keep?: number;
  signal?: AbortSignal;
}

/**
 * Replaces the oldest messages of `history` (in place) with one summary written by the small model, and returns
 * what it did as a CompactionEvent (turn 0 and not manual: the caller sets those; the token figures by
 * estimateTokens of the whole history before and after), or undefined, touching nothing, when findCut finds
 * nothing to compact (`keep` defaults to 6).
 *
 * - The first request and the kept tail stay as they are; everything between becomes summaryMessage(summary).
 * - One request to the small model: SUMMARY_PROMPT as its system prompt, one user message holding a transcript of
 *   the summarised messages only (transcriptOf), no tools (the summary must not call any), the options' model when
 *   given, and their signal (so Ctrl-C stops the summary too).
 * - The summary is the answer's text (textOf), trimmed. An empty summary throws an Error saying the model answered
 *   with `no text`: never replace turns with nothing. A failing small model throws too, and the history is
 *   changed only once a summary is in hand.
 */
export async function compact(history: Message[], options: CompactOptions): Promise<CompactionEvent | undefined> {
  // #region chapter 12: compact
  // 1. cut = findCut(history, options.keep ?? 6); undefined: return undefined, touching nothing.
  // 2. Ask options.provider.complete once: system SUMMARY_PROMPT, one user message holding "Summarise this part of
  //    the conversation:" and transcriptOf(history.slice(1, cut)), no tools, model options.model (when given), and
  //    the signal. The summary is the text of its answer (textOf), trimmed; an empty summary is an Error (never
  //    replace turns with nothing).
  // 3. Only now change the history: tokensBefore = estimateTokens(history); history.splice(1, cut - 1,
  //    summaryMessage(summary)); tokensAfter = estimateTokens(history).
  // 4. Return { type: 'compaction', turn: 0, from: 1, count: cut - 1, summary, tokensBefore, tokensAfter,
  //    manual: false }.
  const cut = findCut(history, options.keep ?? 6);
  if (cut === undefined) return undefined;
  const answer = await options.provider.complete({
    system: SUMMARY_PROMPT,
    messages: [userMessage(`Summarise this part of the conversation:\n\n${transcriptOf(history.slice(1, cut))}`)],
    tools: [],
    ...(options.model ? { model: options.model } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const summary = textOf(answer).trim();
  if (!summary) throw new Error('the summary model answered with no text: nothing was compacted');
  const tokensBefore = estimateTokens(history);
  history.splice(1, cut - 1, summaryMessage(summary));
  return {
    type: 'compaction',
    turn: 0,
    from: 1,
    count: cut - 1,
    summary,
    tokensBefore,
    tokensAfter: estimateTokens(history),
    manual: false,
  };
  // #endregion
}

export interface CompactionHookOptions extends CompactOptions {
  /** Compact when a request would hold more than this many tokens (contextTokens). */
  threshold: number;
}

/**
 * A before-model-call hook that compacts the run's history (compact, cancellable as the run is) when the request
 * would hold more than the threshold (contextTokens; exactly the threshold is not more), emits what compact
 * returns with the hook's turn, and returns the request with the shortened history. The history is the run's own
 * array (the context gives it read-only): compacting it there is what keeps the next requests short. Under the
 * threshold the small model is never asked; with nothing to compact, nothing changes and nothing is emitted.
 */
export function compactionHook(options: CompactionHookOptions): Hooks {
  return {
    async beforeModelCall(request, ctx) {
      // #region chapter 12: compactionHook
      // 1. If contextTokens(request) is not above options.threshold, return nothing (no change).
      // 2. Otherwise compact ctx.history (it is the run's own array: cast it to Message[]) with the options and
      //    ctx.signal. Nothing compacted: return nothing.
      // 3. ctx.emit the event with turn = ctx.turn, and return { ...request, messages: the history }.
      if (contextTokens(request) <= options.threshold) return undefined;
      const history = ctx.history as Message[];
      const event = await compact(history, { ...options, signal: ctx.signal });
      if (!event) return undefined;
      ctx.emit({ ...event, turn: ctx.turn });
      return { ...request, messages: history };
      // #endregion
    },
  };
}
