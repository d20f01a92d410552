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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter6 --guided
    throw new TodoError(6, 'OpenAIProvider.stream');
    // #endregion
  }
}
