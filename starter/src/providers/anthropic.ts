/**
 * Chapter 5: Claude through the official Anthropic SDK.
 *
 * The provider is a translator. Going out, the kit's history becomes the Messages API's: the system prompt is a
 * top-level field, tool calls are `tool_use` blocks, and tool results travel in a *user* message, all the results of
 * one turn together. Coming back, content blocks, the stop reason and the usage become the kit's types again.
 * Chapter 6 adds `stream`, the same turn as events.
 *
 * The conversions are pure functions in anthropic-convert.ts (exported from here too); this file holds the
 * provider class: the SDK client, complete (chapter 5) and stream (chapter 6).
 */

import { TodoError } from '../todo.js';
import Anthropic from '@anthropic-ai/sdk';
import type { AssistantMessage } from '../messages.js';
import type { ModelRequest, Provider } from '../provider.js';
import type { StreamEvent } from '../stream-events.js';
import { anthropicConfig, type AnthropicOptions, type Env } from './config.js';
import { ProviderError, toProviderError } from './errors.js';
import { turnStopReason } from './turn.js';
import {
  type AnthropicUsageFields,
  anthropicRequest,
  anthropicStopReason,
  anthropicUsage,
  fromAnthropicMessage,
} from './anthropic-convert.js';

export * from './anthropic-convert.js';

export class AnthropicProvider implements Provider {
  readonly name = 'anthropic';
  /** Every current Claude model reads images. */
  readonly imageInput = true;
  readonly model: string;
  /** For side jobs such as summaries (chapter 12) and as a fallback (chapter 10). */
  readonly smallFastModel: string;
  readonly maxTokens: number;
  private readonly client: Anthropic;
  /** Kept only to scrub it from error messages. */
  private readonly secret: string;

  /** Throws ProviderConfigError when the key or the model is missing. `env` defaults to process.env. */
  constructor(options: AnthropicOptions = {}, env: Env = process.env) {
    const config = anthropicConfig(options, env);
    this.model = config.model;
    this.smallFastModel = config.smallFastModel;
    this.maxTokens = config.maxTokens;
    this.secret = config.credential.value;
    this.client = new Anthropic({
      ...(config.credential.kind === 'apiKey'
        ? { apiKey: config.credential.value }
        : { authToken: config.credential.value }),
      // null, not undefined: undefined would make the SDK read ANTHROPIC_BASE_URL from process.env behind our back.
      baseURL: config.baseURL ?? null,
      // The kit's own retry policy (chapter 10) is the only one that runs.
      maxRetries: 0,
      ...(config.fetch ? { fetch: config.fetch } : {}),
    });
  }

  async complete(request: ModelRequest): Promise<AssistantMessage> {
    // #region chapter 5: AnthropicProvider.complete
    // 1. Build the body with anthropicRequest(request, { model: this.model, maxTokens: this.maxTokens }).
    // 2. await this.client.messages.create(body, { signal: request.signal }) and convert the answer with
    //    fromAnthropicMessage.
    // 3. If the call throws: when request.signal is aborted, throw request.signal.reason (an abort is not a provider
    //    failure); otherwise throw toProviderError(this.name, error, [this.secret]).
    throw new TodoError(5, 'AnthropicProvider.complete');
    // #endregion
  }

  /**
   * The same turn as events (chapter 6), from the SDK's raw stream. Anthropic numbers its content blocks; the kit's
   * `index` counts only the blocks the finished turn keeps. Rejects with a ProviderError on an `error` event or when
   * the stream ends before `message_stop`, and with the abort reason when request.signal aborts.
   */
  async *stream(request: ModelRequest): AsyncIterable<StreamEvent> {
    // #region chapter 6: AnthropicProvider.stream
    // 1. Call this.client.messages.create({ ...anthropicRequest(...), stream: true }, { signal }) and iterate the
    //    raw events it returns with for await. Wrap the call AND the loop in try/catch, as in complete().
    // 2. message_start: remember message.usage. message_delta: remember delta.stop_reason and merge the non-null
    //    fields of event.usage over the usage you have (output_tokens only arrives here).
    // 3. content_block_start: give text, thinking and tool_use blocks the next kit index (a Map from Anthropic's
    //    index to yours, and the block's kind); skip other types. A tool_use yields tool_call_start { id, name };
    //    a text or thinking block that starts with some text yields it as a delta.
    // 4. content_block_delta: text_delta -> text_delta, thinking_delta -> thinking_delta, signature_delta ->
    //    thinking_signature, input_json_delta -> tool_call_delta with partial_json (skip empty pieces).
    // 5. content_block_stop of a tool_use block: tool_call_end. message_stop: the turn is complete. ping: ignore.
    // 6. After the loop: if request.signal is aborted, throw its reason (the SDK ends the loop quietly on abort);
    //    if message_stop never came, throw a ProviderError saying the stream ended early.
    // 7. Yield one finish: turnStopReason(anthropicStopReason(stop reason), whether any tool call started), with
    //    anthropicUsage(usage).
    throw new TodoError(6, 'AnthropicProvider.stream');
    // #endregion
  }
}
