/**
 * Resilience, proven: the whole agent (withRetries around the real SDK providers, chapter 7's Agent) runs twenty
 * scripted multi-tool tasks against a fake API on 127.0.0.1 that fails at random (seeded): 429 with and without
 * retry-after, 529, 500, connections reset before the answer, streams cut in the middle, and error events inside a
 * stream. Every task must end with the right answer or a clear error, with a valid history, and no tool may run
 * twice for the same call.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AgentEvent } from 'kit/agent-events';
import { Agent } from 'kit/agent';
import type { Message } from 'kit/messages';
import { AnthropicProvider } from 'kit/providers/anthropic';
import { OpenAIProvider } from 'kit/providers/openai';
import { defineTool, ToolSet } from 'kit/tool';
import { withRetries } from 'kit/retry/with-retries';
import { expectCutMessage } from './fixtures.js';

type Fault = 'ok' | '429' | '429-retry-after' | '529' | '500' | 'reset' | 'cut-early' | 'cut-late' | 'error-event';
const FAULTS: Fault[] = ['429', '429-retry-after', '529', '500', 'reset', 'cut-early', 'cut-late', 'error-event'];

/** mulberry32: the same faults in the same order on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Task k: 1 + k % 3 rounds of 1 + k % 2 lookup calls each, then an answer that quotes every result. */
const plan = (task: number) => ({ rounds: 1 + (task % 3), calls: 1 + (task % 2) });
const key = (task: number, round: number, call: number) => `t${task}r${round}c${call}`;
const expectedAnswer = (task: number) => {
  const { rounds, calls } = plan(task);
  const values: string[] = [];
  for (let r = 0; r < rounds; r++) for (let c = 0; c < calls; c++) values.push(`value of ${key(task, r, c)}`);
  return `task ${task} done: ${values.join(', ')}`;
};

/** What the scripted model says next, read from the request alone: its next tool calls, or its answer. */
function nextTurn(
  wire: 'anthropic' | 'openai',
  body: any,
): { text?: string; calls: Array<{ id: string; key: string }>; task: number } {
  const messages: any[] = body.messages;
  const first = messages.find((m) => m.role === 'user');
  const firstText =
    typeof first.content === 'string' ? first.content : first.content.map((b: any) => b.text ?? '').join('');
  const task = Number(/task (\d+)/.exec(firstText)?.[1]);
  const results =
    wire === 'openai'
      ? messages.filter((m) => m.role === 'tool').length
      : messages
          .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
          .filter((b: any) => b.type === 'tool_result').length;
  const { rounds, calls } = plan(task);
  const round = results / calls;
  if (round >= rounds) return { task, text: expectedAnswer(task), calls: [] };
  return {
    task,
    text: `Round ${round}.`,
    calls: Array.from({ length: calls }, (_, c) => ({ id: `call_${key(task, round, c)}`, key: key(task, round, c) })),
  };
}

const sse = (wire: 'anthropic' | 'openai', data: { type?: string; [k: string]: unknown }) =>
  wire === 'anthropic' ? `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n` : `data: ${JSON.stringify(data)}\n\n`;

/** The frames of a whole turn, in the wire format. */
function frames(wire: 'anthropic' | 'openai', turn: ReturnType<typeof nextTurn>): string[] {
  if (wire === 'anthropic') {
    const out = [
      sse(wire, {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'm',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      }),
      sse(wire, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      sse(wire, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: turn.text } }),
      sse(wire, { type: 'content_block_stop', index: 0 }),
    ];
    turn.calls.forEach((call, i) => {
      out.push(
        sse(wire, {
          type: 'content_block_start',
          index: i + 1,
          content_block: { type: 'tool_use', id: call.id, name: 'lookup', input: {} },
        }),
        sse(wire, {
          type: 'content_block_delta',
          index: i + 1,
          delta: { type: 'input_json_delta', partial_json: `{"key":"${call.key}"}` },
        }),
        sse(wire, { type: 'content_block_stop', index: i + 1 }),
      );
    });
    out.push(
      sse(wire, {
        type: 'message_delta',
        delta: { stop_reason: turn.calls.length ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: 5 },
      }),
      sse(wire, { type: 'message_stop' }),
    );
    return out;
  }
  const chunk = (delta: object, finish_reason: string | null = null) =>
    sse(wire, {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta, finish_reason }],
    });
  const out = [chunk({ role: 'assistant', content: '' }), chunk({ content: turn.text })];
  turn.calls.forEach((call, i) => {
    out.push(
      chunk({
        tool_calls: [
          { index: i, id: call.id, type: 'function', function: { name: 'lookup', arguments: `{"key":"${call.key}"}` } },
        ],
      }),
    );
  });
  out.push(chunk({}, turn.calls.length ? 'tool_calls' : 'stop'), 'data: [DONE]\n\n');
  return out;
}

function faultServer(seed: number) {
  const random = seeded(seed);
  const seen: Record<Fault, number> = Object.fromEntries([...FAULTS, 'ok'].map((f) => [f, 0])) as Record<Fault, number>;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const wire = req.url?.includes('chat/completions') ? 'openai' : 'anthropic';
    const turn = nextTurn(wire, JSON.parse(raw));
    const fault: Fault = random() < 0.5 ? 'ok' : FAULTS[Math.floor(random() * FAULTS.length)]!;
    seen[fault]++;
    const json = (status: number, body: object, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const errorBody = (type: string, message: string) =>
      wire === 'anthropic' ? { type: 'error', error: { type, message } } : { error: { message, type, code: null } };
    switch (fault) {
      case '429':
        return json(429, errorBody('rate_limit_error', 'rate limited'));
      case '429-retry-after':
        return json(429, errorBody('rate_limit_error', 'rate limited'), { 'retry-after': '1' });
      case '529':
        return json(529, errorBody('overloaded_error', 'Overloaded'));
      case '500':
        return json(500, errorBody('api_error', 'Internal server error'));
      case 'reset':
        req.socket.destroy();
        return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const all = frames(wire, turn);
    if (fault === 'error-event') {
      res.write(all[0]);
      res.end(
        wire === 'anthropic'
          ? sse(wire, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })
          : `data: ${JSON.stringify({ error: { message: 'server busy', type: 'server_error' } })}\n\n`,
      );
      return;
    }
    // cut-early: only the opening frame (no content yet), cut-late: after the text
    const upTo = fault === 'cut-early' ? 1 : fault === 'cut-late' ? 3 : all.length;
    for (const frame of all.slice(0, upTo)) res.write(frame);
    if (fault === 'ok') res.end();
    else setTimeout(() => res.socket?.destroy(), 5);
  });
  return { server, seen };
}

describe('withRetries under injected faults (src/retry/with-retries.ts)', () => {
  const { server, seen } = faultServer(2026);
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('twenty multi-tool tasks over both wire formats: the right answer or a clear error, a valid history, no tool run twice', async () => {
    const ran = new Map<string, number>();
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look a key up',
      input: z.object({ key: z.string() }),
      execute: async ({ key }) => {
        ran.set(key, (ran.get(key) ?? 0) + 1);
        return `value of ${key}`;
      },
    });
    const retries: string[] = [];
    const outcomes: string[] = [];
    for (let task = 0; task < 20; task++) {
      const inner =
        task % 2 === 0
          ? new AnthropicProvider(
              { baseURL: url },
              { ANTHROPIC_API_KEY: 'sk-ant-fault-0000', ANTHROPIC_MODEL: 'claude-fault' },
            )
          : new OpenAIProvider(
              { baseURL: `${url}/v1` },
              { OPENAI_API_KEY: 'sk-fault-0000', OPENAI_MODEL: 'gpt-fault' },
            );
      const provider = withRetries(inner, {
        maxAttempts: 6,
        baseDelayMs: 1,
        maxDelayMs: 4,
        maxWaitMs: 5000,
        sleep: async () => {},
      });
      const agent = new Agent({ provider, tools: new ToolSet([lookup]), cwd: process.cwd(), maxTurns: 10 });
      const history: Message[] = [{ role: 'user', content: `Please do task ${task}.` }];
      const events: AgentEvent[] = [];
      for await (const event of agent.run(history)) events.push(event);
      const done = events.at(-1);
      if (done?.type !== 'done') expect.fail(`task ${task}: the run must end with a done event`);
      for (const event of events) if (event.type === 'retry') retries.push(event.reason);
      expect(history).toBeValidHistory(
        `after task ${task} (${inner.name}) ended with ${done.reason}: ${done.message ?? ''}`,
      );
      if (done.reason === 'end_turn') {
        expect(done.text, `task ${task}: a task that completes gives the right answer`).toBe(expectedAnswer(task));
        outcomes.push('answer');
      } else {
        expect(done.reason, `task ${task}: a task that does not complete ends with an error (${done.message})`).toBe(
          'error',
        );
        // The retries' end is worded by RetryError (given); a cut stream's message is the learner's own words
        // (stream step 3 says what it conveys): checked for its facts.
        const gaveUp = /gave up after 6 attempts/.test(done.message ?? '');
        if (!gaveUp)
          expectCutMessage(
            done.message,
            `task ${task}: the error is clear: the retries were spent, or the stream was cut after it began`,
          );
        outcomes.push(gaveUp ? 'gave up' : 'cut');
      }
    }
    const twice = [...ran].filter(([, times]) => times > 1);
    expect(twice, 'no tool may run twice for the same call: a retried request must never re-run a call').toEqual([]);
    expect(
      outcomes.filter((o) => o === 'answer').length,
      `most tasks complete in spite of the faults: ${outcomes.join(', ')}`,
    ).toBeGreaterThanOrEqual(10);
    expect(outcomes, 'a stream cut after its text ends a run with a clear error').toContain('cut');
    expect(new Set(retries), 'the retries happened for every kind of retryable fault').toEqual(
      new Set([
        'rate limited (429)',
        'overloaded (529)',
        'server error (500)',
        'connection failed',
        'overloaded',
        'server_error',
      ]),
    );
    for (const fault of FAULTS) expect(seen[fault], `the server injected ${fault} at least once`).toBeGreaterThan(0);
  });
});
