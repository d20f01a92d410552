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

import { TodoError } from '../todo.js';
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

  async complete(request: ModelRequest): Promise<AssistantMessage> {
    // #region chapter 5: OpenAIProvider.complete
    // 1. Build the body with openaiRequest(request, { model: this.model, maxTokens: this.maxTokens }).
    // 2. await this.client.chat.completions.create(body, { signal: request.signal }) and convert the answer with
    //    fromOpenAICompletion.
    // 3. If the call throws: when request.signal is aborted, throw request.signal.reason; otherwise throw
    //    toProviderError(this.name, error, [this.secret]).
    throw new TodoError(5, 'OpenAIProvider.complete');
    // #endregion
  }

  /**
   * The same turn as events (chapter 6), from the SDK's chunk stream. Text, reasoning and each tool call (told
   * apart by `index`, or by `id` when a compatible server leaves `index` out) get kit indices in the order they
   * first appear. OpenAI marks no end of a tool call: they all
   * end when the finish reason arrives. Usage comes in a last chunk with no choices. Rejects with a ProviderError
   * when the stream ends before a finish reason, and with the abort reason when request.signal aborts.
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
    throw new TodoError(6, 'OpenAIProvider.stream');
    // #endregion
  }
}
