/**
 * Chapter 5: GPT models, and any OpenAI-compatible server, through the official OpenAI SDK.
 *
 * The Chat Completions API sees a conversation differently from Anthropic: the system prompt is the first message,
 * a tool call's arguments travel as a JSON *string*, and each tool result is its own `role: 'tool'` message. The
 * same class serves Ollama, vLLM, LM Studio and hosted gateways: only the base URL changes. Chapter 6 adds `stream`.
 *
 * The conversions are pure functions in openai-convert.ts (exported from here too); this file holds the provider
 * class: the SDK client, complete (chapter 5) and stream (chapter 6).
 */

import OpenAI from 'openai';
import type { AssistantMessage, Usage } from '../messages.js';
import type { ModelRequest, Provider } from '../provider.js';
import type { StreamEvent } from '../stream-events.js';
import { openaiConfig, type Env, type OpenAIOptions } from './config.js';
import { ProviderError, toProviderError } from './errors.js';
import { turnStopReason } from './turn.js';
import { fromOpenAICompletion, openaiRequest, openaiStopReason, openaiUsage, reasoningOf } from './openai-convert.js';

export * from './openai-convert.js';

export class OpenAIProvider implements Provider {
  readonly name = 'openai';
  readonly model: string;
  readonly maxTokens: number | undefined;
  /** OpenAI's own API: yes; another server: only when the person said so (openaiConfig). */
  readonly imageInput: boolean;
  private readonly client: OpenAI;
  /** Kept only to scrub it from error messages. */
  private readonly secret: string;

  /** Throws ProviderConfigError when the key or the model is missing. `env` defaults to process.env. */
  constructor(options: OpenAIOptions = {}, env: Env = process.env) {
    const config = openaiConfig(options, env);
    this.model = config.model;
    this.maxTokens = config.maxTokens;
    this.imageInput = config.imageInput;
    this.secret = config.apiKey;
    this.client = new OpenAI({
      apiKey: config.apiKey,
      // null, not undefined: undefined would make the SDK read OPENAI_BASE_URL from process.env behind our back.
      baseURL: config.baseURL ?? null,
      // The kit's own retry policy (chapter 10) is the only one that runs.
      maxRetries: 0,
      ...(config.fetch ? { fetch: config.fetch } : {}),
    });
  }

  /**
   * One Chat Completions call: what openaiRequest makes with this provider's defaults, sent by the SDK with the
   * request's signal, and the answer read back with fromOpenAICompletion. The SDK never retries
   * (chapter 10 does), so one call is one request.
   *
   * - A failure of the call is a ProviderError made by toProviderError, with this provider's name and its key among
   *   the secrets: the status and the API's own sentence are kept, the key never appears.
   * - An abort is not a provider failure: when the signal has fired, the call rejects with the signal's reason.
   */
  async complete(request: ModelRequest): Promise<AssistantMessage> {
    // #region chapter 5: OpenAIProvider.complete
    // 1. Build the body with openaiRequest(request, { model: this.model, maxTokens: this.maxTokens }).
    // 2. await this.client.chat.completions.create(body, { signal: request.signal }) and convert the answer with
    //    fromOpenAICompletion.
    // 3. If the call throws: when request.signal is aborted, throw request.signal.reason; otherwise throw
    //    toProviderError(this.name, error, [this.secret]).
    const body = openaiRequest(request, { model: this.model, maxTokens: this.maxTokens });
    let completion: OpenAI.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(body, { signal: request.signal });
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw toProviderError(this.name, error, [this.secret]);
    }
    return fromOpenAICompletion(completion);
    // #endregion
  }

  /**
   * The turn chapter 5's provider returns, as the kit's StreamEvent list (stream-events.ts), translated
   * from the SDK's chunk stream: chapter 5's request, asked for as a stream with the usage included
   * (a stream carries none unless asked: `stream_options: { include_usage: true }`). Chat Completions has no
   * block starts or ends: text, reasoning (reasoningOf, given) and tool calls come as pieces, one part after another.
   *
   * - Text, thinking and each tool call get the kit's indices in the order they first appear, reasoning before
   *   text within one part (as in chapter 5).
   * - Tool-call pieces belong to the calls their `index` names, even when pieces of parallel calls interleave. Some
   *   compatible servers leave `index` out: then the one with the same `id`; with neither, the one of the piece
   *   before it (the first of them when nothing came before, so a later piece with index 0 continues it).
   * - Each of them starts exactly once, with its id and its name (`''` for what the server leaves out; a piece
   *   may come with neither a name nor arguments), and each non-empty piece of its arguments goes on as it is.
   * - Nothing marks the end of calls but the finish reason: when the first one arrives, all of them end, in
   *   order, once (a server may send it again later; the first one counts). One `finish` comes last, with the stop
   *   reason decided as in chapter 5 (openaiStopReason, then turnStopReason with whether there were calls:
   *   `stop` after calls still means `tool_use`, `length` is `max_tokens`) and the usage, which may come last, in a
   *   part with no choices.
   * - Failures surface while the stream is read too: every one is a ProviderError through toProviderError, as in
   *   chapter 5 (the server's own words kept, the credentials scrubbed). A stream that closes before any finish
   *   reason is a ProviderError saying the stream ended early, and never yields a finish.
   * - A signal that aborts rejects with its reason, never a ProviderError, even when the stream ends quietly; the
   *   signal goes to the SDK so that it closes the connection.
   */
  async *stream(request: ModelRequest): AsyncIterable<StreamEvent> {
    // #region chapter 6: OpenAIProvider.stream
    // 1. Call this.client.chat.completions.create({ ...openaiRequest(...), stream: true,
    //    stream_options: { include_usage: true } }, { signal }) and iterate the chunks with for await. Wrap the call
    //    AND the loop in try/catch, as in complete().
    // 2. A chunk with usage: remember openaiUsage(usage). A chunk with no choices has nothing else.
    // 3. In choices[0].delta: reasoning (reasoningOf) -> thinking_delta and content -> text_delta, each block
    //    taking the next kit index the first time it appears.
    // 4. Each entry of delta.tool_calls belongs to the call its `index` names. Some compatible servers leave
    //    `index` out: then the call with its `id`, and with neither, the call of the entry before it (the call of
    //    index 0 when no entry came before). The first time a call appears, give it the next kit index and yield
    //    tool_call_start with its id and function.name ('' for either one the server leaves out); every
    //    non-empty function.arguments piece is a tool_call_delta. An entry may come without `function` at all.
    // 5. When choices[0].finish_reason arrives: remember it, and yield tool_call_end for every tool call, in order.
    // 6. After the loop: if request.signal is aborted, throw its reason; if no finish reason came, throw a
    //    ProviderError saying the stream ended early.
    // 7. Yield one finish: turnStopReason(openaiStopReason(finish reason), whether there was a tool call), with
    //    the usage.
    const body = {
      ...openaiRequest(request, { model: this.model, maxTokens: this.maxTokens }),
      stream: true as const,
      stream_options: { include_usage: true },
    };
    let next = 0;
    let textIndex: number | undefined;
    let thinkingIndex: number | undefined;
    /** Kit index of each tool call, by `#index` (or `id:…` when the server sends no index). */
    const calls = new Map<string, number>();
    let lastCall: string | undefined;
    let finishReason: string | undefined;
    let usage: Usage | undefined;
    try {
      const chunks = await this.client.chat.completions.create(body, { signal: request.signal });
      for await (const chunk of chunks) {
        if (chunk.usage) usage = openaiUsage(chunk.usage);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = choice.delta ?? {};
        const reasoning = reasoningOf(delta);
        if (reasoning) yield { type: 'thinking_delta', index: (thinkingIndex ??= next++), thinking: reasoning };
        if (delta.content) yield { type: 'text_delta', index: (textIndex ??= next++), text: delta.content };
        for (const call of delta.tool_calls ?? []) {
          const key =
            typeof call.index === 'number' ? `#${call.index}` : call.id ? `id:${call.id}` : (lastCall ?? '#0');
          lastCall = key;
          let index = calls.get(key);
          if (index === undefined) {
            index = next++;
            calls.set(key, index);
            yield { type: 'tool_call_start', index, id: call.id ?? '', name: call.function?.name ?? '' };
          }
          if (call.function?.arguments)
            yield { type: 'tool_call_delta', index, argumentsDelta: call.function.arguments };
        }
        if (choice.finish_reason && finishReason === undefined) {
          finishReason = choice.finish_reason;
          for (const index of calls.values()) yield { type: 'tool_call_end', index };
        }
      }
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw toProviderError(this.name, error, [this.secret]);
    }
    if (request.signal?.aborted) throw request.signal.reason;
    if (finishReason === undefined) {
      throw new ProviderError(
        this.name,
        'the stream ended before a finish_reason: the connection was cut or the server stopped early',
      );
    }
    yield {
      type: 'finish',
      stopReason: turnStopReason(openaiStopReason(finishReason), calls.size > 0),
      ...(usage ? { usage } : {}),
    };
    // #endregion
  }
}
