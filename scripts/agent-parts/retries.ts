/**
 * `npm run agent`: the part of chapter 10, retries.
 *
 * The provider is wrapped with chapter 10's withRetries: 429, 529, 5xx, connection failures and overloaded events
 * before the first token are tried again, up to `--max-retries N` times (default 4, so 5 tries; 0 turns retries
 * off), with the server's retry-after honoured up to `--max-wait S` seconds (default 60). After three overloaded
 * answers in a row the request falls back to the small fast model (ANTHROPIC_SMALL_FAST_MODEL) when there is one.
 * Every retry gets a line: `overloaded (529), retrying in 2.1 s (attempt 2 of 5)`.
 */
import type { AgentEvent } from '../../solution/src/agent-events.js';
import type { AgentPart } from './part.js';

export const DEFAULT_MAX_RETRIES = 4;
export const DEFAULT_MAX_WAIT_S = 60;

/** A whole number from an option's value, or an Error that names the option. */
function wholeNumber(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const text = String(value);
  const number = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(number))
    throw new Error(`--${name} takes a whole number of at least 0, not "${text}"`);
  return number;
}

/** The line for a retry event. */
export function retryLine(event: {
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  reason: string;
  model?: string;
}): string {
  const model = event.model ? `, with ${event.model}` : '';
  return `${event.reason}, retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt} of ${event.maxAttempts}${model})`;
}

export const part: AgentPart = {
  name: 'retries',
  chapter: 10,
  options: [
    {
      name: 'max-retries',
      value: true,
      help: `N  try a failed model call again up to N times (default ${DEFAULT_MAX_RETRIES}; 0: never)`,
    },
    {
      name: 'max-wait',
      value: true,
      help: `S  wait at most S seconds when the server asks for a wait (default ${DEFAULT_MAX_WAIT_S})`,
    },
  ],
  async setup(ctx) {
    const retries = wholeNumber(ctx.options['max-retries'], 'max-retries', DEFAULT_MAX_RETRIES);
    const maxWait = wholeNumber(ctx.options['max-wait'], 'max-wait', DEFAULT_MAX_WAIT_S);
    const { kit } = ctx;
    const fallbackModel = ctx.smallFastModel && ctx.smallFastModel !== ctx.model ? ctx.smallFastModel : undefined;
    if (ctx.own) {
      // The learner's tree: go through every stub once now (a fake provider that is overloaded once), so an
      // unfinished chapter 10 is noted at start-up and the agent runs without retries, not failing mid-run.
      const once = () => {
        let calls = 0;
        return {
          name: 'probe',
          async complete() {
            if (calls++ === 0)
              throw Object.assign(new Error('overloaded'), {
                status: 529,
                headers: { 'retry-after': 'Mon, 23 Nov 2026 12:00:00 GMT' },
              });
            return kit.assistantText('ok');
          },
        };
      };
      const probe = { sleep: (ms: number, signal?: AbortSignal) => kit.sleep(0 * ms, signal), random: () => 0 };
      await kit.withRetries(once(), probe).complete({ messages: [], tools: [] });
      for await (const _event of kit.withRetries(once(), probe).stream({ messages: [], tools: [] }));
      kit.backoffMs(1, { baseDelayMs: 1, maxDelayMs: 1, maxWaitMs: 1 }, Math.random);
    }
    const provider = kit.withRetries(ctx.provider, {
      maxAttempts: retries + 1,
      maxWaitMs: maxWait * 1000,
      fallbackModel,
    });
    const render = (event: AgentEvent): string | undefined =>
      event.type === 'retry' ? ctx.paint.yellow(`  ↻ ${retryLine(event)}`) : undefined;
    return {
      provider,
      render,
      banner:
        retries === 0
          ? 'retries: off'
          : `retries: up to ${retries} (waits of up to ${maxWait} s)${fallbackModel ? `; falls back to ${fallbackModel} when overloaded` : ''}`,
    };
  },
};
