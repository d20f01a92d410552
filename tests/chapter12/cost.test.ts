import { describe, expect, test } from 'vitest';
import { costOf, formatCost, priceFor, PRICES, type PriceTable } from 'kit/session/cost';
import { sessionFromRecords } from 'kit/session/session';

const table: PriceTable = {
  asOf: '2026-01',
  sources: ['https://example.test/pricing'],
  models: {
    'big-1': { input: 10, output: 50, cacheRead: 1, cacheWrite: 12.5 },
    'big-1-mini': { input: 2, output: 8, cacheRead: 0.2, cacheWrite: 2.5 },
  },
};

describe('priceFor (src/session/cost.ts)', () => {
  test('an exact model id gets its own entry', () => {
    expect(priceFor('big-1-mini', table), 'priceFor: an exact entry wins (guided step 2)').toEqual(
      table.models['big-1-mini'],
    );
    expect(
      priceFor('claude-sonnet-4-5', PRICES),
      'priceFor: the kit table prices claude-sonnet-4-5 (guided step 2)',
    ).toEqual({
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
    });
  });

  test('a dated id is priced as the longest id it starts with, followed by "-"', () => {
    expect(priceFor('big-1-20260101', table), 'priceFor: "big-1-20260101" is big-1 (guided step 3)').toEqual(
      table.models['big-1'],
    );
    expect(
      priceFor('big-1-mini-20260101', table),
      'priceFor: take the LONGEST matching id ("big-1-mini-…" is big-1-mini, not big-1) (guided step 3)',
    ).toEqual(table.models['big-1-mini']);
    const reversed: PriceTable = {
      ...table,
      models: { 'big-1-mini': table.models['big-1-mini']!, 'big-1': table.models['big-1']! },
    };
    expect(
      priceFor('big-1-mini-20260101', reversed),
      'priceFor: the longest id wins whatever order the table lists them in (guided step 3)',
    ).toEqual(table.models['big-1-mini']);
    expect(
      priceFor('claude-haiku-4-5-20251001'),
      'priceFor: the default table is PRICES, and a dated Claude id finds its entry',
    ).toEqual(PRICES.models['claude-haiku-4-5']);
  });

  test('an unknown model, or none, has no price (never a guess)', () => {
    expect(
      priceFor('big-10', table),
      'priceFor: "big-10" only starts with "big-1" without a "-" after it: unknown (guided step 3)',
    ).toBeUndefined();
    expect(
      priceFor('llama-3', table),
      'priceFor: a model the table does not know: undefined (guided step 3)',
    ).toBeUndefined();
    expect(priceFor(undefined, table), 'priceFor: no model, no price (guided step 1)').toBeUndefined();
    expect(priceFor('', table), 'priceFor: an empty model name, no price (guided step 1)').toBeUndefined();
  });

  // A model id is untrusted text (the provider's response, a settings file), and `models` is a plain object.
  const inherited = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

  test('a model named like something every object inherits has no price, dated or not', () => {
    for (const model of inherited) {
      expect(
        priceFor(model, table),
        `priceFor: "${model}" is not an own entry of the table (Object.hasOwn), so it has no price (guided step 2)`,
      ).toBeUndefined();
      expect(
        priceFor(model),
        `priceFor: "${model}" is not an own entry of PRICES (Object.hasOwn), so it has no price (guided step 2)`,
      ).toBeUndefined();
      expect(
        priceFor(`${model}-2025`, table),
        `priceFor: "${model}-2025" starts with no own id of the table followed by "-": undefined (guided step 3)`,
      ).toBeUndefined();
    }
    const usage = { inputTokens: 1000, outputTokens: 100 };
    expect(
      costOf(usage, priceFor('constructor', table)),
      'priceFor: a usage for model "constructor" has an unknown cost (undefined), not NaN (only an own entry of the table is a price) (guided step 2)',
    ).toBeUndefined();
    // The given formatCost is a second line: a cost that is not a finite number is written as unknown, never "$NaN".
    expect(formatCost(Number.NaN), 'formatCost (given, session/cost.ts) writes NaN as "cost unknown"').toBe(
      'cost unknown',
    );
    const session = sessionFromRecords(
      [
        { type: 'session', at: '2026-01-01T00:00:00.000Z', version: 1, id: 's1', cwd: '/project' },
        { type: 'usage', at: '2026-01-01T00:00:01.000Z', usage, model: 'toString-x' },
      ],
      table,
    );
    expect(
      session.cost,
      'priceFor: a session whose model is "toString-x" has an unknown cost (undefined), not NaN (guided step 3)',
    ).toBeUndefined();
  });

  test('a table that really has an entry with such a name still finds it', () => {
    const own: PriceTable = {
      ...table,
      models: {
        ...table.models,
        toString: table.models['big-1']!,
        constructor: table.models['big-1-mini']!,
        undefined: table.models['big-1']!,
      },
    };
    expect(Object.hasOwn(own.models, 'toString'), 'the test table has its own toString entry').toBe(true);
    expect(
      priceFor('toString', own),
      'priceFor: the table\'s own "toString" entry is a price like any other (guided step 2)',
    ).toEqual(table.models['big-1']);
    expect(
      priceFor('constructor', own),
      'priceFor: the table\'s own "constructor" entry is a price like any other (guided step 2)',
    ).toEqual(table.models['big-1-mini']);
    expect(
      priceFor('llama-3', own),
      'priceFor: no id matched, so no price, even in a table with an entry named "undefined" (never look up table.models[best] while best is undefined) (guided step 3)',
    ).toBeUndefined();
    expect(
      priceFor('toString-20260101', own),
      'priceFor: "toString-20260101" is the table\'s own "toString" entry (guided step 3)',
    ).toEqual(table.models['big-1']);
  });
});

describe('costOf (src/session/cost.ts)', () => {
  const price = table.models['big-1']!;

  test('input and output tokens at their prices per million', () => {
    expect(
      costOf({ inputTokens: 1_000_000, outputTokens: 0 }, price),
      'costOf: a million input tokens cost the input price (guided step 2)',
    ).toBe(10);
    expect(
      costOf({ inputTokens: 200_000, outputTokens: 100_000 }, price),
      'costOf: 0.2M in at $10 + 0.1M out at $50 = $7 (guided step 2)',
    ).toBeCloseTo(7, 10);
  });

  test('cache reads and cache writes are priced separately, at their own prices', () => {
    const read = costOf({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 1_000_000 }, price);
    const write = costOf({ inputTokens: 0, outputTokens: 0, cacheWriteTokens: 1_000_000 }, price);
    expect(
      read,
      'costOf: a million cache-read tokens cost the cacheRead price ($1 here), not nothing and not the input price (guided step 2)',
    ).toBeCloseTo(1, 10);
    expect(
      write,
      'costOf: a million cache-write tokens cost the cacheWrite price ($12.50 here) (guided step 2)',
    ).toBeCloseTo(12.5, 10);
    const all = costOf(
      { inputTokens: 100_000, outputTokens: 10_000, cacheReadTokens: 2_000_000, cacheWriteTokens: 40_000 },
      price,
    );
    expect(
      all,
      'costOf: 0.1M in ($1) + 0.01M out ($0.50) + 2M cache read ($2) + 0.04M cache write ($0.50) = $4 (guided step 2)',
    ).toBeCloseTo(4, 10);
  });

  test('an unknown price gives an unknown cost, not zero, and says so', () => {
    const cost = costOf({ inputTokens: 5000, outputTokens: 100 }, undefined);
    expect(
      cost,
      'costOf: no price means the cost is unknown (undefined); $0 would be a lie (guided step 1)',
    ).toBeUndefined();
    expect(formatCost(cost), 'formatCost of an unknown cost').toBe('cost unknown');
    expect(
      costOf({ inputTokens: 0, outputTokens: 0 }, price),
      'costOf: nothing used costs exactly 0 when the price is known',
    ).toBe(0);
  });
});
