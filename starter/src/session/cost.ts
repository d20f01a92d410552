/**
 * Chapter 12: what a session cost.
 *
 * Providers report tokens, not money. The price table turns tokens into dollars: per model, the price of a million
 * input, output, cache-read and cache-write tokens. Cache reads are much cheaper than input and cache writes a
 * little dearer, so a long session that caches well costs a fraction of one that does not, and a total that ignores
 * the cache columns is wrong in both directions. A model the table does not know has an unknown cost, never zero:
 * "$0.00" for a model that charged you is a lie.
 */
import { TodoError } from '../todo.js';
import type { Usage } from '../messages.js';

/** Dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface PriceTable {
  /** When the prices were copied from the source (they change: check before you rely on them). */
  asOf: string;
  /** Where they come from. */
  sources: readonly string[];
  /** By model id; a dated id ("claude-sonnet-4-5-20250929") is priced as the id it starts with. */
  models: Readonly<Record<string, ModelPrice>>;
}

/**
 * The kit's table. Anthropic's cache write is the 5-minute write (1.25x input); OpenAI charges nothing extra to
 * write its automatic cache, so a write costs what input costs there.
 */
export const PRICES: PriceTable = {
  asOf: '2025-11',
  sources: ['https://docs.claude.com/en/docs/about-claude/pricing', 'https://openai.com/api/pricing/'],
  models: {
    'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
    'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
    'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
    'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
    'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0.4 },
    'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 2.5 },
    'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.15 },
  },
};

/**
 * The price of `model`: its own entry, else the entry with the longest id that the model's id starts with, followed
 * by "-" (a dated or suffixed id: "claude-haiku-4-5-20251001"), whatever order the table lists them in. Undefined
 * for no model, an empty one, or one the table does not know (never a guess). The id is untrusted text: a model
 * named like something every object inherits ("constructor", "toString") has no price, dated or not, unless the
 * table really has an entry of that name.
 */
export function priceFor(model: string | undefined, table: PriceTable = PRICES): ModelPrice | undefined {
  // #region chapter 12: priceFor
  // Write it from the contract above. Step by step instead: npm run reset -- chapter12 --guided
  throw new TodoError(12, 'priceFor');
  // #endregion
}

/**
 * Dollars for `usage` at `price`, each of the four token counts at its own price per million tokens (cache reads
 * and writes are neither free nor input). Undefined when the price is unknown: 0 would be a lie. Missing cache
 * counts count as 0.
 */
export function costOf(usage: Usage, price: ModelPrice | undefined): number | undefined {
  // #region chapter 12: costOf
  // Write it from the contract above. Step by step instead: npm run reset -- chapter12 --guided
  throw new TodoError(12, 'costOf');
  // #endregion
}

/** "$0.0123", or "cost unknown" (also for a cost that is not a finite number: a broken price is never "$NaN"). */
export function formatCost(cost: number | undefined): string {
  if (cost === undefined || !Number.isFinite(cost)) return 'cost unknown';
  return `$${cost < 1 ? cost.toFixed(4) : cost.toFixed(2)}`;
}

/** "1,200 in · 300 out · 5,000 cache read · 800 cache write". */
export function formatUsage(usage: Usage): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const parts = [`${n(usage.inputTokens)} in`, `${n(usage.outputTokens)} out`];
  if (usage.cacheReadTokens !== undefined) parts.push(`${n(usage.cacheReadTokens)} cache read`);
  if (usage.cacheWriteTokens !== undefined) parts.push(`${n(usage.cacheWriteTokens)} cache write`);
  return parts.join(' · ');
}
