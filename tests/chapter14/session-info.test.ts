import type * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, test } from 'vitest';
import { sessionInfo, UpdateTranslator } from 'kit/acp/updates';
import type { AgentEvent } from 'kit/agent-events';
import { assistantText, assistantToolCalls } from 'kit/messages';
import { tempWorkspace } from '../helpers/workspace.js';
import { editor, testFactory } from './fixtures.js';

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const e of open.splice(0)) e.close();
});
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const done: AgentEvent = {
  type: 'done',
  reason: 'end_turn',
  turns: 1,
  text: '',
  usage: { inputTokens: 0, outputTokens: 0 },
};
type Info = Extract<acp.SessionUpdate, { sessionUpdate: 'session_info_update' }>;

describe('sessionInfo (src/acp/updates.ts)', () => {
  test("carries the title and the session's tokens, every column, with their total", () => {
    const info = sessionInfo(
      { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 30, cacheWriteTokens: 4 },
      'Fix the bug',
    ) as Info;
    expect(info, 'sessionInfo: a session_info_update with the title and _meta.usage (guided step 2)').toEqual({
      sessionUpdate: 'session_info_update',
      title: 'Fix the bug',
      _meta: {
        usage: { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 30, cacheWriteTokens: 4, totalTokens: 1234 },
      },
    });
  });

  test('no title is null; missing cache columns are 0; the cost is there only with a price', () => {
    const bare = sessionInfo({ inputTokens: 5, outputTokens: 7 }, undefined) as Info;
    expect(bare.title, 'sessionInfo: no title → null (guided step 2)').toBeNull();
    expect(
      bare._meta,
      'sessionInfo: absent cache columns are 0, the total adds what there is; no price, no costUsd (guided step 1)',
    ).toEqual({ usage: { inputTokens: 5, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 12 } });
    const priced = sessionInfo(
      { inputTokens: 1_000_000, outputTokens: 100_000, cacheReadTokens: 0, cacheWriteTokens: 0 },
      'x',
      PRICE,
    ) as Info;
    expect(priced._meta?.costUsd, 'sessionInfo: costUsd = costOf(usage, price) (guided step 2)').toBeCloseTo(4.5, 6);
  });
});

describe('UpdateTranslator.updates: done (src/acp/updates.ts)', () => {
  test("the end of a run becomes a session_info_update with the session's usage so far; a sub-agent's end becomes nothing", () => {
    const t = new UpdateTranslator({
      cwd: '/w',
      contextWindow: 1000,
      usage: { inputTokens: 100, outputTokens: 10 },
      title: 'Hello there',
    });
    t.updates({ type: 'usage', turn: 1, usage: { inputTokens: 20, outputTokens: 5 } } as AgentEvent);
    t.updates({
      type: 'usage',
      turn: 2,
      usage: { inputTokens: 30, outputTokens: 6, cacheReadTokens: 40 },
    } as AgentEvent);
    expect(
      t.updates({ type: 'subagent', callId: 'task1', event: done } as AgentEvent),
      "UpdateTranslator.updates: a sub-agent's done is its own business (guided step 7)",
    ).toEqual([]);
    const [info, ...rest] = t.updates(done) as Info[];
    expect(rest, 'UpdateTranslator.updates: done → exactly one update (guided step 8)').toEqual([]);
    expect(
      info,
      'UpdateTranslator.updates: done → sessionInfo(the session usage: before + every usage event, options.title) (guided step 8)',
    ).toMatchObject({
      sessionUpdate: 'session_info_update',
      title: 'Hello there',
      _meta: { usage: { inputTokens: 150, outputTokens: 21, cacheReadTokens: 40, totalTokens: 211 } },
    });
  });
});

describe('AcpServer.prompt: session_info_update (src/acp/server.ts)', () => {
  test('each prompt ends with the title (the first request) and the usage of the whole session, counted on across prompts', async () => {
    const script = [
      {
        ...assistantToolCalls([{ id: 'c1', name: 'glob', arguments: { pattern: '*.md' } }]),
        usage: { inputTokens: 100, outputTokens: 10 },
      },
      assistantText('None.', { inputTokens: 120, outputTokens: 5 }),
      assistantText('Sure.', { inputTokens: 300, outputTokens: 20 }),
    ];
    const e = editor({ openSession: testFactory({ script }).openSession, price: PRICE });
    open.push(e);
    const { sessionId } = await e.open(tempWorkspace().root);
    await e.prompt(sessionId, 'Find   the\nmarkdown files');
    const first = e.of(sessionId);
    expect(
      first.at(-1),
      "AcpServer.prompt: the run's done becomes the last update, a session_info_update, sent before the prompt answers",
    ).toMatchObject({
      sessionUpdate: 'session_info_update',
      title: 'Find the markdown files',
      _meta: { usage: { inputTokens: 220, outputTokens: 15, totalTokens: 235 } },
    });
    expect(
      first.filter((update) => update.sessionUpdate === 'session_info_update'),
      'AcpServer.prompt: one session_info_update per prompt',
    ).toHaveLength(1);
    await e.prompt(sessionId, 'And the text files?');
    const second = e.of(sessionId).at(-1) as Info;
    expect(
      second.title,
      'AcpServer.prompt: the title stays the first request (sessionTitle of the history) (guided step 4)',
    ).toBe('Find the markdown files');
    expect(
      second._meta?.usage,
      'AcpServer.prompt: handle.usage = translator.sessionUsage, so the second prompt counts on from the first (guided step 6)',
    ).toMatchObject({ inputTokens: 520, outputTokens: 35, totalTokens: 555 });
    expect(second._meta?.costUsd, 'AcpServer.prompt: with a price, the cost of the whole session').toBeCloseTo(
      (520 * 3 + 35 * 15) / 1e6,
      9,
    );
  });
});
