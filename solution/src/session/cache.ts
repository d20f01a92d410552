/**
 * Chapter 12: prompt caching for Anthropic.
 *
 * Each request of a session repeats everything before it: the system prompt, the tools, the history. Anthropic can
 * keep that prefix and charge a tenth of the input price to read it back, but only where the request says so, with
 * `cache_control: { type: 'ephemeral' }` on a block: everything up to and including that block is cached. A request
 * may carry at most four such breakpoints. The kit puts three: on the last tool (the tools come first in the
 * prefix), on the system prompt, and on the last block of the last message, so the next request, which repeats
 * this one and adds a little, reads all of it from the cache.
 *
 * The body is chapter 5's anthropicRequest; the breakpoints are added on the way out, in the `fetch` the SDK is
 * given (`new AnthropicProvider({ fetch: promptCachingFetch(globalThis.fetch) })`): the provider's own code does not
 * change, and a provider without caching sends exactly what it sent before.
 */
import type Anthropic from '@anthropic-ai/sdk';

/** Anthropic's limit of cache breakpoints per request. */
export const MAX_BREAKPOINTS = 4;

const EPHEMERAL = { type: 'ephemeral' } as const;

type Body = Anthropic.MessageCreateParams;

/** How many blocks of the body already carry cache_control. */
export function countBreakpoints(body: unknown): number {
  let count = 0;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'cache_control' && inner) count++;
        else visit(inner);
      }
    }
  };
  visit(body);
  return count;
}

/**
 * A copy of `body` (the original is not changed) with cache breakpoints, in this order, while fewer than
 * MAX_BREAKPOINTS are set (counting those the body already had): the last tool; the system prompt (a string
 * becomes one text block; an array has its last block marked); the last block of the last message that can carry
 * one (a string content becomes one text block; thinking blocks cannot be cached, so the last block that is not
 * thinking). A part that is missing or empty gets none and stays as it was, and a part whose last block already
 * has cache_control is left as it is, without spending a breakpoint on it.
 */
export function addCacheBreakpoints(body: Body): Body {
  // #region chapter 12: addCacheBreakpoints
  // 1. copy = structuredClone(body); left = MAX_BREAKPOINTS - countBreakpoints(body).
  // 2. The last tool, when there are tools and it has no cache_control: add { type: 'ephemeral' } (left--).
  // 3. The system prompt, when left > 0: a non-empty string becomes [{ type: 'text', text, cache_control }];
  //    a non-empty array gets cache_control on its last block (unless it has one).
  // 4. The last message, when left > 0: a non-empty string content becomes [{ type: 'text', text, cache_control }];
  //    an array gets cache_control on its last block whose type is not thinking or redacted_thinking.
  // 5. Return the copy.
  const copy = structuredClone(body);
  let left = MAX_BREAKPOINTS - countBreakpoints(body);
  const tool = copy.tools?.at(-1) as { cache_control?: unknown } | undefined;
  if (left > 0 && tool && !tool.cache_control) {
    tool.cache_control = EPHEMERAL;
    left--;
  }
  if (left > 0 && typeof copy.system === 'string' && copy.system) {
    copy.system = [{ type: 'text', text: copy.system, cache_control: EPHEMERAL }];
    left--;
  } else if (left > 0 && Array.isArray(copy.system) && copy.system.length > 0 && !copy.system.at(-1)!.cache_control) {
    copy.system.at(-1)!.cache_control = EPHEMERAL;
    left--;
  }
  const last = copy.messages.at(-1);
  if (left > 0 && last) {
    if (typeof last.content === 'string') {
      if (last.content) last.content = [{ type: 'text', text: last.content, cache_control: EPHEMERAL }];
    } else {
      const block = last.content.findLast((b) => b.type !== 'thinking' && b.type !== 'redacted_thinking') as
        | { cache_control?: unknown }
        | undefined;
      if (block && !block.cache_control) block.cache_control = EPHEMERAL;
    }
  }
  return copy;
  // #endregion
}

/**
 * A fetch for the Anthropic SDK that adds cache breakpoints to every Messages API request (a POST whose URL path
 * ends in /v1/messages with a JSON string body) and passes everything else through unchanged.
 */
export function promptCachingFetch(
  fetch: typeof globalThis.fetch = (...args) => globalThis.fetch(...args),
): typeof globalThis.fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (init?.method === 'POST' && typeof init.body === 'string' && new URL(url).pathname.endsWith('/v1/messages')) {
      return fetch(input, { ...init, body: JSON.stringify(addCacheBreakpoints(JSON.parse(init.body) as Body)) });
    }
    return fetch(input, init);
  };
}
