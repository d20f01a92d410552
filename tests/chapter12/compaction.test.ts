import { describe, expect, test } from 'vitest';
import { assistantText, assistantToolCalls, toolResult, userMessage, type Message } from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import { IMAGE_TOKEN_ESTIMATE } from 'kit/images';
import type { AgentEvent } from 'kit/agent-events';
import {
  compact,
  compactionHook,
  contextTokens,
  estimateTokens,
  findCut,
  summaryMessage,
  SUMMARY_HEADER,
  SUMMARY_PROMPT,
} from 'kit/session/compaction';
import { historyRuleBreaks } from '../helpers/matchers.js';
import { rejection } from '../helpers/assert.js';
import { agentWith, echoCall } from '../chapter07/fixtures.js';
import { fileRecords, longHistory, recordShape, testStore } from './fixtures.js';

const summarizer = (text = 'Read file1-file3; decided to patch file2; open: run the tests.') =>
  new MockProvider([assistantText(text)]);

describe('findCut (src/session/compaction.ts)', () => {
  test('no cut point ever separates a call from its result, whatever is kept', () => {
    const history = longHistory(4);
    for (let keep = 1; keep <= history.length; keep++) {
      const cut = findCut(history, keep);
      if (cut === undefined) continue;
      const after = [history[0]!, summaryMessage('s'), ...history.slice(cut)];
      expect(
        historyRuleBreaks(after),
        `findCut: with keep = ${keep} the cut is ${cut}, and replacing 1..${cut - 1} by a summary must leave a valid history (guided steps 1-2)`,
      ).toEqual([]);
      expect(
        history[cut]!.role,
        `findCut: the kept tail starts at a turn, never at a tool result (keep = ${keep}) (guided step 2)`,
      ).not.toBe('tool');
      expect(
        history.length - cut >= Math.min(keep, history.length - 1),
        `findCut: at least the last ${keep} messages stay (guided step 1)`,
      ).toBe(true);
    }
  });

  test('the cut steps back over tool results to the turn that asked for them', () => {
    const history = longHistory(3); // [0] user, [1] turn, [2] [3] results, [4] turn, [5] [6], [7] turn, [8] [9], [10] answer
    expect(findCut(history, 3), 'findCut: keeping 3 would start at [8], a result: step back to its turn at [7]').toBe(
      7,
    );
    expect(findCut(history, 4), 'findCut: keeping 4 starts at [7], a turn: keep it').toBe(7);
    expect(findCut(history, 1), 'findCut: keeping 1 starts at the final answer [10]').toBe(10);
  });

  test('keeping nothing summarises everything after the first request', () => {
    const history = longHistory(2);
    expect(
      findCut(history, 0),
      'findCut: keep 0 starts past the end (messages.length); there is no message there to step back over (guided step 1)',
    ).toBe(history.length);
  });

  test('too little to summarise: undefined', () => {
    const history = longHistory(3);
    expect(findCut(history, 9), 'findCut: a cut at [1] would summarise nothing (guided step 3)').toBeUndefined();
    expect(
      findCut(history.slice(0, 4), 1),
      'findCut: [0] user, [1] turn, [2] [3] results: keeping 1 steps back to [1]: nothing to summarise (guided step 3)',
    ).toBeUndefined();
    expect(
      findCut(history, 8),
      'findCut: the cut at 3 would summarise two messages, but [3] is a result: back to [1]: undefined (guided step 3)',
    ).toBeUndefined();
    expect(
      findCut([userMessage('a'), assistantText('b'), userMessage('c'), assistantText('d')], 1),
      'findCut: a cut at [3] summarises [1] and [2] (guided step 3)',
    ).toBe(3);
  });
});

describe('compact (src/session/compaction.ts)', () => {
  test('the small model gets the kit prompt and a transcript of the middle only, with its own model name', async () => {
    const history = longHistory(4);
    const small = summarizer();
    await compact(history, { provider: small, model: 'claude-haiku-4-5', keep: 4 });
    expect(small.requests.length, 'compact: exactly one request to the small model (guided step 2)').toBe(1);
    const request = small.requests[0]!;
    expect(request.system, 'compact: the system prompt is SUMMARY_PROMPT (guided step 2)').toBe(SUMMARY_PROMPT);
    expect(SUMMARY_PROMPT, 'SUMMARY_PROMPT says what to keep').toMatch(/files[\s\S]*decisions[\s\S]*open tasks/i);
    expect(request.model, 'compact: the request names the small model (guided step 2)').toBe('claude-haiku-4-5');
    expect(request.tools, 'compact: no tools (the summary must not call any) (guided step 2)').toEqual([]);
    expect(request.messages.length, 'compact: one user message holding the transcript (guided step 2)').toBe(1);
    const text = (request.messages[0] as { content: string }).content;
    expect(
      text,
      'compact: the transcript holds the summarised turns (round 1 is in the middle) (guided step 2)',
    ).toContain('Round 1.');
    expect(text, 'compact: ...their tool results too (guided step 2)').toContain('match 1');
    expect(
      text,
      'compact: the kept tail (round 4, the last 4 messages) is not summarised (guided step 2)',
    ).not.toContain('Round 4.');
    expect(
      text,
      'compact: the first request stays as it is, so it is not in the transcript (guided step 2)',
    ).not.toContain('Fix the failing tests');
  });

  test('the first request and the last turns stay; the middle becomes one summary message; the event says so', async () => {
    const history = longHistory(4);
    const original = structuredClone(history);
    const event = await compact(history, { provider: summarizer('the summary'), keep: 4 });
    expect(history[0], 'compact: the first request is kept (guided step 3)').toEqual(original[0]);
    expect(
      history[1],
      'compact: the summary message comes right after it, starting with SUMMARY_HEADER (guided step 3)',
    ).toEqual(summaryMessage('the summary'));
    expect((history[1] as { content: string }).content.startsWith(SUMMARY_HEADER), 'summaryMessage').toBe(true);
    expect(history.slice(2), 'compact: the last turns are kept unchanged (the cut is at [10]) (guided step 3)').toEqual(
      original.slice(10),
    );
    expect(history).toBeValidHistory('after compact');
    expect(event, 'compact: the event gives from, count, the summary, manual false (guided step 4)').toMatchObject({
      type: 'compaction',
      turn: 0,
      from: 1,
      count: 9,
      summary: 'the summary',
      manual: false,
    });
    expect(
      event!.tokensBefore,
      'compact: tokensBefore is estimateTokens of the whole history before (guided step 3)',
    ).toBe(estimateTokens(original));
    expect(event!.tokensAfter, 'compact: tokensAfter is estimateTokens after (guided step 3)').toBe(
      estimateTokens(history),
    );
  });

  test('the summary is the text of the answer only, and the signal goes with the request', async () => {
    const history = longHistory(4);
    const seen: Array<AbortSignal | undefined> = [];
    const provider = {
      name: 'small',
      complete: async (request: { signal?: AbortSignal }) => {
        seen.push(request.signal);
        return {
          role: 'assistant' as const,
          content: [
            { type: 'thinking' as const, thinking: 'hmm' },
            { type: 'text' as const, text: ' Part one' },
            { type: 'text' as const, text: ', part two. ' },
          ],
          stopReason: 'end_turn' as const,
        };
      },
    };
    const controller = new AbortController();
    const event = await compact(history, { provider, keep: 4, signal: controller.signal });
    expect(
      event!.summary,
      'compact: the text blocks joined without separators (textOf), trimmed; thinking is not summary (guided step 2)',
    ).toBe('Part one, part two.');
    expect(
      seen[0],
      'compact: the signal is passed to the small model, so Ctrl-C stops the summary (guided step 2)',
    ).toBe(controller.signal);
  });

  test('an empty summary or a failing small model changes nothing', async () => {
    const history = longHistory(4);
    const before = structuredClone(history);
    const empty = await rejection(
      compact(history, { provider: summarizer('   '), keep: 4 }),
      'compact: an empty summary must be an error, not turns replaced by nothing (guided step 2)',
    );
    expect(String(empty), 'compact: the error says the summary was empty (guided step 2)').toMatch(/no text/);
    expect(history, 'compact: the history is only changed after a summary came back (guided step 3)').toEqual(before);
    await rejection(
      compact(history, { provider: new MockProvider([new Error('overloaded')]), keep: 4 }),
      'compact: the small model failing is an error',
    );
    expect(history, 'compact: a failed summary leaves the history as it was').toEqual(before);
    expect(history).toBeValidHistory('after a failed compaction');
    const short = longHistory(1);
    expect(
      await compact(short, { provider: summarizer(), keep: 4 }),
      'compact: nothing to compact gives undefined (guided step 1)',
    ).toBeUndefined();
  });
});

describe('contextTokens (src/session/compaction.ts)', () => {
  test('starts from the usage the provider reported, and estimates only what came after', () => {
    const after: Message[] = [toolResult({ id: 'c1', name: 'echo' }, 'x'.repeat(400))];
    const messages: Message[] = [
      userMessage('hi'),
      {
        ...assistantToolCalls([echoCall('c1', 'a')]),
        usage: { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 3000, cacheWriteTokens: 200 },
      },
      ...after,
    ];
    expect(
      contextTokens({ messages, tools: [] }),
      'contextTokens: 1000 + 3000 + 200 + 50 reported, plus the estimate of the result after it (guided step 2)',
    ).toBe(4250 + estimateTokens(after));
    const later: Message[] = [...messages, { ...assistantText('ok'), usage: { inputTokens: 7, outputTokens: 1 } }];
    expect(
      contextTokens({ messages: later, tools: [] }),
      'contextTokens: the LAST assistant turn with usage counts (7 + 1, and nothing after it) (guided step 1)',
    ).toBe(8 + estimateTokens([]));
  });

  test('a usage on the very first message counts too; no system prompt counts as empty', () => {
    const only: Message[] = [{ ...assistantText('x'), usage: { inputTokens: 40, outputTokens: 2 } }];
    expect(contextTokens({ messages: only, tools: [] }), 'contextTokens: search down to index 0 (guided step 1)').toBe(
      42 + estimateTokens([]),
    );
    const messages = [userMessage('a'.repeat(40))];
    expect(
      contextTokens({ messages, tools: [] }),
      'contextTokens: no system prompt adds nothing but the tools ("[]") (guided step 3)',
    ).toBe(estimateTokens(messages) + 1);
  });

  test('a picture counts as a fixed estimate, not as the length of its base64', () => {
    const image = { type: 'image' as const, mimeType: 'image/png', data: 'A'.repeat(400_000) };
    const words = [userMessage('What is this?')];
    const withImage = [userMessage('What is this?', [image])];
    expect(
      contextTokens({ messages: withImage, tools: [] }),
      `contextTokens: estimateTokens (given) counts a picture as ${IMAGE_TOKEN_ESTIMATE} tokens; 400,000 characters of base64 over 4 would be 100,000 and compact at once (guided step 3)`,
    ).toBe(contextTokens({ messages: words, tools: [] }) + IMAGE_TOKEN_ESTIMATE);
    const reported: Message[] = [
      userMessage('hi'),
      { ...assistantText('ok'), usage: { inputTokens: 10, outputTokens: 2 } },
      ...withImage,
    ];
    expect(
      contextTokens({ messages: reported, tools: [] }),
      'contextTokens: the picture after the reported turn is estimated the same way (guided step 2)',
    ).toBe(12 + estimateTokens(words) + IMAGE_TOKEN_ESTIMATE);
  });

  test('with no usage yet, estimates the system prompt, the tools and the messages', () => {
    const messages = [userMessage('a'.repeat(400))];
    const tools = [{ name: 'read', description: 'Read a file', inputSchema: { type: 'object' } }];
    const system = 's'.repeat(80);
    expect(contextTokens({ messages, tools, system }), 'contextTokens guided step 3').toBe(
      estimateTokens(messages) + Math.ceil((80 + JSON.stringify(tools).length) / 4),
    );
  });
});

describe('compactionHook (src/session/compaction.ts)', () => {
  const bigTurn = () => ({
    ...assistantToolCalls([echoCall('c1', 'x'.repeat(50))]),
    usage: { inputTokens: 90_000, outputTokens: 100 },
  });

  test('over the threshold: the run compacts, emits the event, and the next request is the short history', async () => {
    const small = summarizer('earlier: echoed things');
    const history = longHistory(4);
    history.push(userMessage('now echo once more'));
    const { agent, provider } = agentWith([bigTurn(), assistantText('Done.')], {
      hooks: compactionHook({ provider: small, threshold: 50_000, keep: 4 }),
    });
    const events: AgentEvent[] = [];
    for await (const event of agent.run(history)) events.push(event);
    expect(provider.requests.length, 'the run went on after compacting').toBe(2);
    expect(
      provider.requests[0]!.messages.length,
      'compactionHook: under the threshold at first (no usage, small estimate): no compaction (guided step 1)',
    ).toBe(15);
    expect(
      small.requests.length,
      'compactionHook: 90k reported tokens passed the 50k threshold before the second call: one summary',
    ).toBe(1);
    const compaction = events.find((e) => e.type === 'compaction');
    expect(compaction, 'compactionHook: ctx.emit the compaction event with the turn (guided step 3)').toMatchObject({
      type: 'compaction',
      turn: 2,
      from: 1,
    });
    const second = provider.requests[1]!.messages;
    expect(second[1], 'compactionHook: the second request carries the summary (guided step 3)').toEqual(
      summaryMessage('earlier: echoed things'),
    );
    expect(second.length, 'compactionHook: the second request is the short history').toBeLessThan(10);
    expect(history, 'compactionHook: the run history itself is compacted (guided step 2)').toBeValidHistory(
      'after a compacted run',
    );
    expect(history.length, 'compactionHook: the caller’s history is the short one (guided step 2)').toBe(
      second.length + 1,
    );
  });

  test('exactly at the threshold, or with nothing to compact, the hook changes nothing and emits nothing', async () => {
    const small = summarizer();
    const history = longHistory(4);
    const request = { messages: history, tools: [] };
    const emitted: unknown[] = [];
    const ctx = { signal: new AbortController().signal, turn: 3, history, emit: (e: unknown) => void emitted.push(e) };
    const atThreshold = compactionHook({ provider: small, threshold: contextTokens(request), keep: 4 });
    expect(
      await atThreshold.beforeModelCall!(request, ctx as never),
      'compactionHook: compact only ABOVE the threshold (guided step 1)',
    ).toBeUndefined();
    const nothing = compactionHook({ provider: small, threshold: 0, keep: 100 });
    expect(
      await nothing.beforeModelCall!(request, ctx as never),
      'compactionHook: compact found nothing to do: return nothing (guided step 2)',
    ).toBeUndefined();
    expect(emitted, 'compactionHook: no compaction, no event (guided step 2)').toEqual([]);
    expect(small.requests.length, 'no summary was asked for').toBe(0);
  });

  test('under the threshold nothing happens and the small model is never asked', async () => {
    const small = summarizer();
    const { agent, provider } = agentWith([assistantText('Hi.')], {
      hooks: compactionHook({ provider: small, threshold: 1_000_000 }),
    });
    const history = longHistory(4);
    history.push(userMessage('hi'));
    for await (const _ of agent.run(history)) void _;
    expect(small.requests.length, 'compactionHook: not above the threshold: no summary (guided step 1)').toBe(0);
    expect(provider.requests[0]!.messages.length, 'compactionHook: the request unchanged (guided step 1)').toBe(15);
  });
});

describe('SessionRecorder.record (src/session/session.ts)', () => {
  const bigTurn = () => ({
    ...assistantToolCalls([echoCall('c1', 'x'.repeat(50))]),
    usage: { inputTokens: 90_000, outputTokens: 100 },
  });

  test('the session file records the compaction, and resuming gives the compacted history', async () => {
    const { store } = testStore();
    const open = store.create();
    open.session.messages.push(...longHistory(4));
    open.recorder.record({
      type: 'done',
      reason: 'end_turn',
      turns: 1,
      text: '',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    open.session.messages.push(userMessage('once more'));
    const { agent } = agentWith([bigTurn(), assistantText('Done.')], {
      hooks: compactionHook({ provider: summarizer('S'), threshold: 50_000, keep: 4 }),
    });
    for await (const _ of open.recorder.watch(agent.run(open.session.messages))) void _;
    const live = structuredClone(open.session.messages);
    open.close();
    const shape = recordShape(fileRecords(store.file('s1')));
    expect(
      shape.filter((s) => s.startsWith('compaction')),
      'SessionRecorder.record: the compaction is a record of the file (guided step 2)',
    ).toEqual(['compaction 1+12']);
    expect(
      store.load('s1').session.messages,
      'SessionRecorder.record guided step 2 and sessionFromRecords: replaying the file gives the compacted history, message for message',
    ).toEqual(live);
  });
});
