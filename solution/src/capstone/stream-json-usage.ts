/**
 * Chapter 15, given: a run's usage in the two shapes stream-json writes it: the Messages API's names (every
 * assistant line and the result's `usage`) and Claude Code's `modelUsage` (the result's, per model, with its cost).
 */
import type { Usage } from '../messages.js';
import { costOf, priceFor } from '../session/cost.js';
import type { ApiUsage, ModelUsage } from './stream-json-lines.js';

/** The kit's usage in the Messages API's names (cache counts only when there are some). */
export function apiUsage(usage: Usage): ApiUsage {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    ...(usage.cacheReadTokens !== undefined ? { cache_read_input_tokens: usage.cacheReadTokens } : {}),
    ...(usage.cacheWriteTokens !== undefined ? { cache_creation_input_tokens: usage.cacheWriteTokens } : {}),
  };
}

/** The model's usage in Claude Code's modelUsage shape: one entry under `model`, none without one. */
export function modelUsageOf(usage: Usage, model: string | undefined): Record<string, ModelUsage> {
  if (!model) return {};
  return {
    [model]: {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheReadInputTokens: usage.cacheReadTokens ?? 0,
      cacheCreationInputTokens: usage.cacheWriteTokens ?? 0,
      webSearchRequests: 0,
      costUSD: costOf(usage, priceFor(model)) ?? null,
    },
  };
}
