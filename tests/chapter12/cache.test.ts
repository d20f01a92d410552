import { describe, expect, test } from 'vitest';
import type Anthropic from '@anthropic-ai/sdk';
import { AnthropicProvider, anthropicRequest } from 'kit/providers/anthropic';
import { addCacheBreakpoints, countBreakpoints, MAX_BREAKPOINTS, promptCachingFetch } from 'kit/session/cache';
import { fakeApi } from '../helpers/fake-http.js';
import { ANTHROPIC_URL, anthropicEnv, anthropicResponse, history, tools } from '../chapter05/fixtures.js';

const api = fakeApi();
const EPHEMERAL = { type: 'ephemeral' };
const body = (): Anthropic.MessageCreateParamsNonStreaming =>
  anthropicRequest(
    { system: 'You are a coding agent.', messages: history, tools },
    { model: 'claude-test-model', maxTokens: 1024 },
  );

/** Where the breakpoints are, as short paths: tools[1], system[0], messages[4].content[0]. */
function breakpoints(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => breakpoints(v, `${at}[${i}]`));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === 'cache_control' ? [at] : breakpoints(inner, at ? `${at}.${key}` : key),
  );
}
const where = (value: unknown) => breakpoints(value).sort();

describe('addCacheBreakpoints (src/session/cache.ts)', () => {
  test('the last tool, the system prompt and the last block of the last message; the original is not changed', () => {
    const original = body();
    const copy = structuredClone(original);
    const cached = addCacheBreakpoints(original);
    expect(
      where(cached),
      'addCacheBreakpoints: three breakpoints, on the last tool, the system prompt, the last message (guided steps 2-4)',
    ).toEqual(['messages[4].content[0]', 'system[0]', 'tools[1]']);
    expect(
      cached.system,
      'addCacheBreakpoints: a string system prompt becomes one text block with cache_control (guided step 3)',
    ).toEqual([{ type: 'text', text: 'You are a coding agent.', cache_control: EPHEMERAL }]);
    expect(
      (cached.messages[4]!.content as Anthropic.ToolResultBlockParam[])[0],
      'addCacheBreakpoints: the last block keeps what it was, plus cache_control (guided step 4)',
    ).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_C',
      content: 'Edited a.ts',
      is_error: false,
      cache_control: EPHEMERAL,
    });
    expect(original, 'addCacheBreakpoints: work on a copy; the body given is not changed (guided step 1)').toEqual(
      copy,
    );
  });

  test(`never more than ${MAX_BREAKPOINTS} in all, counting those the body already had`, () => {
    const given = body();
    (given.tools![0] as { cache_control?: unknown }).cache_control = EPHEMERAL;
    (given.tools![1] as { cache_control?: unknown }).cache_control = EPHEMERAL;
    given.system = [
      { type: 'text', text: 'a', cache_control: EPHEMERAL as never },
      { type: 'text', text: 'b' },
    ];
    const cached = addCacheBreakpoints(given);
    expect(
      countBreakpoints(cached),
      `addCacheBreakpoints: 3 already set, so only one more (${MAX_BREAKPOINTS} at most) (guided step 1)`,
    ).toBe(MAX_BREAKPOINTS);
    expect(
      where(cached),
      'addCacheBreakpoints: the last tool had one already; the last system block gets the fourth; none left for the message (guided steps 2-3)',
    ).toEqual(['system[0]', 'system[1]', 'tools[0]', 'tools[1]']);
  });

  test('a string message becomes a text block; thinking is never marked; nothing empty is marked', () => {
    const plain = addCacheBreakpoints({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] });
    expect(
      plain.messages[0]!.content,
      'addCacheBreakpoints: a string content becomes one text block with cache_control (guided step 4)',
    ).toEqual([{ type: 'text', text: 'hello', cache_control: EPHEMERAL }]);
    expect(plain.system, 'addCacheBreakpoints: no system prompt, none added (guided step 3)').toBeUndefined();
    expect(plain.tools, 'addCacheBreakpoints: no tools, none added (guided step 2)').toBeUndefined();
    const thinking = addCacheBreakpoints({
      model: 'm',
      max_tokens: 10,
      system: '',
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'so' },
            { type: 'thinking', thinking: 'hm', signature: 's' },
          ],
        },
      ],
    });
    expect(
      where(thinking),
      'addCacheBreakpoints: the last block that is not thinking; step 3: an empty system prompt gets nothing (guided step 4)',
    ).toEqual(['messages[0].content[0]']);
    expect(thinking.system, 'addCacheBreakpoints: an empty system prompt stays as it was (guided step 3)').toBe('');
  });
});

describe('addCacheBreakpoints (src/session/cache.ts): the limit and odd bodies', () => {
  const marked = (text: string) => ({ type: 'text' as const, text, cache_control: EPHEMERAL as never });
  const withMarks = (n: number): Anthropic.MessageCreateParams => ({
    model: 'm',
    max_tokens: 10,
    system: [
      { type: 'text', text: 's1' },
      { type: 'text', text: 's2' },
      { type: 'text', text: 's3' },
    ],
    tools: [{ name: 't', description: 'd', input_schema: { type: 'object' } }],
    messages: [
      { role: 'user', content: Array.from({ length: n }, (_, i) => marked(`old ${i}`)) },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'new' },
    ],
  });

  test('the marks a body already has count: 4 leave none, 2 leave the tool and the system prompt, 3 only the tool', () => {
    expect(
      where(addCacheBreakpoints(withMarks(4))),
      'addCacheBreakpoints: four already set: nothing more (guided step 1)',
    ).toEqual(['messages[0].content[0]', 'messages[0].content[1]', 'messages[0].content[2]', 'messages[0].content[3]']);
    expect(
      where(addCacheBreakpoints(withMarks(3))),
      'addCacheBreakpoints: one left: the last tool takes it (guided steps 1-2)',
    ).toEqual(['messages[0].content[0]', 'messages[0].content[1]', 'messages[0].content[2]', 'tools[0]']);
    expect(
      where(addCacheBreakpoints(withMarks(2))),
      'addCacheBreakpoints: two left: the tool and the LAST system block; none for the last message (guided steps 2-3)',
    ).toEqual(['messages[0].content[0]', 'messages[0].content[1]', 'system[2]', 'tools[0]']);
    expect(
      where(addCacheBreakpoints(withMarks(0))),
      'addCacheBreakpoints: none set: tool, last system block, last message',
    ).toEqual(['messages[2].content[0]', 'system[2]', 'tools[0]']);
  });

  test('the limit holds for a string system prompt too, and a marked last system block is not marked again', () => {
    const stringSystem = (n: number): Anthropic.MessageCreateParams => ({ ...withMarks(n), system: 'be brief' });
    expect(
      where(addCacheBreakpoints(stringSystem(3))),
      'addCacheBreakpoints: none left after the tool: the string system prompt stays a string (guided step 3)',
    ).toEqual(['messages[0].content[0]', 'messages[0].content[1]', 'messages[0].content[2]', 'tools[0]']);
    expect(
      addCacheBreakpoints(stringSystem(3)).system,
      'addCacheBreakpoints: no breakpoint left, no change (guided step 3)',
    ).toBe('be brief');
    expect(
      where(addCacheBreakpoints(stringSystem(2))),
      'addCacheBreakpoints: two left: the tool and the system prompt take them, none for the last message (guided steps 2-4)',
    ).toEqual(['messages[0].content[0]', 'messages[0].content[1]', 'system[0]', 'tools[0]']);
    const lastMarked: Anthropic.MessageCreateParams = {
      ...withMarks(0),
      system: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }, marked('c')],
    };
    expect(
      where(addCacheBreakpoints(lastMarked)),
      'addCacheBreakpoints: the LAST system block already has one: leave the system prompt alone (not block [1]) (guided step 3)',
    ).toEqual(['messages[2].content[0]', 'system[2]', 'tools[0]']);
    const tight: Anthropic.MessageCreateParams = {
      ...withMarks(1),
      system: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }, marked('c')],
    };
    expect(
      where(addCacheBreakpoints(tight)),
      'addCacheBreakpoints: two set (one on the last system block), two left: the tool and the last message, none spent on the system prompt again (guided step 3)',
    ).toEqual(['messages[0].content[0]', 'messages[2].content[0]', 'system[2]', 'tools[0]']);
  });

  test('empty parts and thinking-only turns get nothing, and nothing breaks', () => {
    const body: Anthropic.MessageCreateParams = {
      model: 'm',
      max_tokens: 10,
      system: [],
      messages: [
        { role: 'user', content: '' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 's' }] },
      ],
    };
    const cached = addCacheBreakpoints(body);
    expect(
      cached,
      'addCacheBreakpoints: an empty system array and a turn of thinking only carry no breakpoint (guided steps 3-4)',
    ).toEqual(body);
    const empty = addCacheBreakpoints({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: '' }] });
    expect(
      empty.messages[0]!.content,
      'addCacheBreakpoints: an empty string content stays as it is (guided step 4)',
    ).toBe('');
  });
});

describe('addCacheBreakpoints through the real SDK (src/session/cache.ts)', () => {
  test('the request body the Anthropic API receives carries the breakpoints, and cache usage comes back', async () => {
    api.answer(
      ANTHROPIC_URL,
      anthropicResponse([{ type: 'text', text: 'ok' }], 'end_turn', {
        input_tokens: 20,
        output_tokens: 3,
        cache_read_input_tokens: 4000,
        cache_creation_input_tokens: 100,
      }),
    );
    const provider = new AnthropicProvider({ fetch: promptCachingFetch() }, anthropicEnv);
    const turn = await provider.complete({ system: 'You are a coding agent.', messages: history, tools });
    expect(api.requests.length, 'one request reached the fake API').toBe(1);
    const sent = api.requests[0]!.body;
    expect(
      where(sent),
      'the recorded request body: cache_control on the last tool, the system prompt and the last message (addCacheBreakpoints)',
    ).toEqual(['messages[4].content[0]', 'system[0]', 'tools[1]']);
    expect(countBreakpoints(sent) <= MAX_BREAKPOINTS, 'at most four breakpoints').toBe(true);
    expect(turn.usage, 'the cache counts come back in the usage (chapter 5), for the session totals').toEqual({
      inputTokens: 20,
      outputTokens: 3,
      cacheReadTokens: 4000,
      cacheWriteTokens: 100,
    });
  });
});
