import { describe, expect, test } from 'vitest';
import { assistantText, assistantToolCalls, userMessage, type AssistantMessage } from 'kit/messages';
import { sessionFromRecords, SessionRecorder, type SessionRecord } from 'kit/session/session';
import { summaryMessage } from 'kit/session/compaction';
import { agentWith, echoCall } from '../chapter07/fixtures.js';
import { fileRecords, recordShape, testStore } from './fixtures.js';
import { Agent } from 'kit/agent';
import { ToolSet } from 'kit/tool';
import { defineClientTool } from 'kit/client-tools';
import { MockProvider } from 'kit/mock-provider';
import { z } from 'zod';

const withUsage = (
  turn: AssistantMessage,
  inputTokens: number,
  outputTokens: number,
  cache: { cacheReadTokens?: number; cacheWriteTokens?: number } = {},
): AssistantMessage => ({
  ...turn,
  usage: { inputTokens, outputTokens, ...cache },
});

async function runRecorded(recorder: SessionRecorder, agent: Agent, prompt: string) {
  recorder.session.messages.push(userMessage(prompt));
  for await (const _ of recorder.watch(agent.run(recorder.session.messages))) void _;
}

describe('SessionRecorder.record (src/session/session.ts)', () => {
  test('a run is written as it goes: one record per message, the usage, and the status', async () => {
    const { store } = testStore();
    const open = store.create('claude-sonnet-4-5');
    const { agent } = agentWith([
      withUsage(assistantToolCalls([echoCall('c1', 'hi')]), 100, 10),
      withUsage(assistantText('Done.'), 150, 5),
    ]);
    await runRecorded(open.recorder, agent, 'echo hi');
    expect(
      recordShape(fileRecords(store.file('s1'))),
      'SessionRecorder.record: the records of one tool round, in order (guided steps 3-6)',
    ).toEqual([
      'session s1',
      'message user',
      'status running',
      'message assistant',
      'usage',
      'message tool',
      'message assistant',
      'usage',
      'status idle end_turn',
    ]);
    const records = fileRecords(store.file('s1'));
    expect(
      records[4],
      'SessionRecorder.record: a usage record holds the usage and the session model (guided step 5)',
    ).toMatchObject({ usage: { inputTokens: 100, outputTokens: 10 }, model: 'claude-sonnet-4-5' });
    expect(
      open.recorder.written,
      'SessionRecorder.record: written counts the messages in the file (guided step 3)',
    ).toBe(4);
  });

  test('usage totals and cost add up every model call, cache tokens included; status and times follow the run', async () => {
    const { store } = testStore();
    const open = store.create('claude-sonnet-4-5');
    const { agent } = agentWith([
      withUsage(assistantToolCalls([echoCall('c1', 'hi')]), 1000, 100, { cacheWriteTokens: 10_000 }),
      withUsage(assistantText('Done.'), 200, 50, { cacheReadTokens: 10_000 }),
    ]);
    await runRecorded(open.recorder, agent, 'echo hi');
    const session = open.session;
    expect(
      session.usage,
      'SessionRecorder.record: the totals add every usage event, field by field (guided step 5)',
    ).toEqual({
      inputTokens: 1200,
      outputTokens: 150,
      cacheReadTokens: 10_000,
      cacheWriteTokens: 10_000,
    });
    // sonnet 4.5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million
    expect(
      session.cost,
      'SessionRecorder.record: 1200 in ($0.0036) + 150 out ($0.00225) + 10k cache read ($0.003) + 10k cache write ($0.0375) (guided step 5)',
    ).toBeCloseTo(0.04635, 10);
    expect(session.status, 'SessionRecorder.record: after end_turn the session is idle (guided step 6)').toBe('idle');
    expect(session.endReason, 'SessionRecorder.record: the reason of the last run (guided step 6)').toBe('end_turn');
    expect(session.updatedAt, 'SessionRecorder.record: updatedAt is the time of the last record (guided step 1)').toBe(
      fileRecords(store.file('s1')).at(-1).at,
    );
    expect(session.updatedAt > session.createdAt, 'SessionRecorder.record: updatedAt moves on (guided step 1)').toBe(
      true,
    );
  });

  test('an unknown model makes the cost unknown, not zero', async () => {
    const { store } = testStore();
    const open = store.create('my-local-llama');
    const { agent } = agentWith([withUsage(assistantText('Hi.'), 10, 2)]);
    await runRecorded(open.recorder, agent, 'hi');
    expect(open.session.usage, 'SessionRecorder.record: the tokens are still counted (guided step 5)').toEqual({
      inputTokens: 10,
      outputTokens: 2,
    });
    expect(
      open.session.cost,
      'SessionRecorder.record: no price for the model: the cost is undefined (unknown) (guided step 5)',
    ).toBeUndefined();
  });

  test('a run that ends before any turn (bad client results) is recorded with its reason and message', () => {
    const open = testStore().store.create();
    open.recorder.record({
      type: 'done',
      reason: 'error',
      turns: 0,
      text: '',
      usage: { inputTokens: 0, outputTokens: 0 },
      message: 'no open call c7',
    });
    expect(
      open.session.status,
      'SessionRecorder.record: done without a turn_start still ends the run: idle (guided step 6)',
    ).toBe('idle');
    expect(open.session.endReason, 'SessionRecorder.record: the reason (guided step 6)').toBe('error');
    expect(
      fileRecords(open.writer.file).slice(1),
      'SessionRecorder.record: only the status record, with the message (no running status: there was no turn_start) (guided steps 4 and 6)',
    ).toEqual([
      { type: 'status', at: open.session.updatedAt, status: 'idle', reason: 'error', message: 'no open call c7' },
    ]);
    open.close();
  });

  test('a run paused for a client-side tool leaves the session paused', async () => {
    const { store } = testStore();
    const open = store.create();
    const ask = defineClientTool({
      name: 'ask_user',
      description: 'Ask the person',
      input: z.object({ question: z.string() }),
    });
    const provider = new MockProvider([
      assistantToolCalls([{ id: 'q1', name: 'ask_user', arguments: { question: 'Which?' } }]),
    ]);
    const agent = new Agent({ provider, tools: new ToolSet([ask]), cwd: process.cwd() });
    await runRecorded(open.recorder, agent, 'help');
    expect(open.session.status, 'SessionRecorder.record: paused_for_client_tool -> status paused (guided step 6)').toBe(
      'paused',
    );
    expect(
      fileRecords(store.file('s1')).at(-1),
      'SessionRecorder.record: the status record carries the reason (guided step 6)',
    ).toMatchObject({ type: 'status', status: 'paused', reason: 'paused_for_client_tool' });
  });
});

describe('sessionFromRecords (src/session/session.ts)', () => {
  test('resume gives back every message, the last turn included, and the next run continues it', async () => {
    const { store } = testStore();
    const open = store.create('claude-sonnet-4-5');
    const first = agentWith([
      withUsage(assistantToolCalls([echoCall('c1', 'hi')]), 100, 10),
      withUsage(assistantText('Done.'), 150, 5),
    ]);
    await runRecorded(open.recorder, first.agent, 'echo hi');
    const saved = structuredClone(open.session);
    open.close();

    const resumed = store.resume('s1');
    expect(
      resumed.session.messages,
      'sessionFromRecords: every message of the file, in order, the last turn included (guided step 2)',
    ).toEqual(saved.messages);
    expect(resumed.session.usage, 'sessionFromRecords: the usage records add up again (guided step 2)').toEqual(
      saved.usage,
    );
    expect(
      resumed.session.cost,
      'sessionFromRecords: the cost is priced again from the usage records (guided step 2)',
    ).toBeCloseTo(saved.cost!, 12);
    expect(resumed.session.model, 'sessionFromRecords: the model of the session record (guided step 1)').toBe(
      'claude-sonnet-4-5',
    );
    expect(resumed.session.createdAt, 'sessionFromRecords: createdAt is the session record time (guided step 1)').toBe(
      saved.createdAt,
    );

    const second = agentWith([assistantText('Still here.')]);
    await runRecorded(resumed.recorder, second.agent, 'and now?');
    expect(
      second.provider.requests[0]!.messages.map((m) => m.role),
      'the resumed session: the next request sends the whole saved history, then the new prompt',
    ).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    resumed.close();
    expect(store.load('s1').session.messages.length, 'the resumed run is appended to the same file').toBe(6);
  });

  test('a compaction record replays as the hook did it, and statuses come back', () => {
    const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
    const records: SessionRecord[] = [
      { type: 'session', at: at(0), version: 1, id: 'x', cwd: '/w' },
      ...['a', 'b', 'c', 'd'].map(
        (text, i): SessionRecord => ({ type: 'message', at: at(1 + i), message: userMessage(text) }),
      ),
      {
        type: 'compaction',
        at: at(6),
        turn: 2,
        from: 1,
        count: 2,
        summary: 'b and c happened',
        tokensBefore: 9,
        tokensAfter: 5,
        manual: false,
      },
      { type: 'status', at: at(7), status: 'paused', reason: 'paused_for_client_tool' },
    ];
    const session = sessionFromRecords(records);
    expect(
      session.messages,
      'sessionFromRecords: compaction -> messages.splice(from, count, summaryMessage(summary)) (guided step 2)',
    ).toEqual([userMessage('a'), summaryMessage('b and c happened'), userMessage('d')]);
    expect(session.status, 'sessionFromRecords: a status record sets the status (guided step 2)').toBe('paused');
    expect(session.endReason, 'sessionFromRecords: and its reason (guided step 2)').toBe('paused_for_client_tool');
    expect(session.updatedAt, 'sessionFromRecords: updatedAt is the last record time (guided step 2)').toBe(at(7));
  });

  test('a file that does not start with a session record is refused, and says what it starts with', () => {
    const failure = (records: SessionRecord[]) => {
      try {
        sessionFromRecords(records);
      } catch (e) {
        if (e instanceof Error && e.name === 'TodoError') throw e;
        return String(e);
      }
      return 'no error';
    };
    expect(
      failure([{ type: 'message', at: 'x', message: userMessage('hi') }]),
      'sessionFromRecords: names the record it found instead (guided step 1)',
    ).toMatch(/session record.*a message record/);
    expect(
      failure([]),
      'sessionFromRecords: an empty file has no session record (an Error, not a TypeError) (guided step 1)',
    ).toMatch(/^Error: .*session record.*nothing/);
  });

  test('forkedFrom comes back from the session record, and only when it is there', () => {
    const header: SessionRecord = {
      type: 'session',
      at: '2026-01-01T00:00:00.000Z',
      version: 1,
      id: 'f',
      cwd: '/w',
      forkedFrom: { id: 'o', messages: 2 },
    };
    expect(sessionFromRecords([header]).forkedFrom, 'sessionFromRecords: keep forkedFrom (guided step 1)').toEqual({
      id: 'o',
      messages: 2,
    });
    const { forkedFrom: _, ...plain } = header;
    expect(
      'forkedFrom' in sessionFromRecords([plain as SessionRecord]),
      'sessionFromRecords: no forkedFrom field for a session that is not a fork (guided step 1)',
    ).toBe(false);
  });
});
