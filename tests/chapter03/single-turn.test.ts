import { describe, expect, test } from 'vitest';
import { singleTurn } from 'kit/simple-agent';
import { assistantText, assistantToolCalls, type AssistantMessage } from 'kit/messages';
import { defineTool, ToolSet } from 'kit/tool';
import { z } from 'zod';
import { MockProvider } from 'kit/mock-provider';
import { requestOn, shape, transcript } from '../helpers/transcript.js';
import { loopTools } from './fixtures.js';

const ctx = { cwd: process.cwd() };

describe('singleTurn (src/simple-agent.ts)', () => {
  test('returns the answer of a model that needs no tools, after one request', async () => {
    const { tools } = loopTools();
    const provider = new MockProvider([assistantText('Paris.')]);
    expect(await singleTurn(provider, tools, 'Capital of France?', ctx)).toBe('Paris.');
    expect(provider.requests, 'one model call').toHaveLength(1);
    expect(transcript(requestOn(provider, 1).messages)).toEqual(['user "Capital of France?"']);
  });

  test('offers the tool definitions with the request', async () => {
    const { tools } = loopTools();
    const provider = new MockProvider([assistantText('ok')]);
    await singleTurn(provider, tools, 'hi', ctx);
    expect(requestOn(provider, 1).tools, 'send tools.definitions() so the model knows what it may call').toEqual(
      tools.definitions(),
    );
  });

  test('offers the tools again on the second request', async () => {
    const { tools } = loopTools();
    const provider = new MockProvider([
      assistantToolCalls([{ id: 't1', name: 'echo', arguments: { text: 'x' } }]),
      assistantText('ok'),
    ]);
    await singleTurn(provider, tools, 'go', ctx);
    expect(
      requestOn(provider, 2).tools,
      'the second request carries tools.definitions() too; the model keeps nothing between requests, and without them it cannot call again (guided step 6)',
    ).toEqual(tools.definitions());
  });

  test('runs the requested tool and sends the turn, then its result, back', async () => {
    const { tools } = loopTools();
    const provider = new MockProvider([
      assistantToolCalls([{ id: 'call_1', name: 'echo', arguments: { text: 'pong' } }], 'Checking.'),
      assistantText('The tool said pong.'),
    ]);
    expect(await singleTurn(provider, tools, 'ping', ctx)).toBe('The tool said pong.');
    const second = requestOn(provider, 2);
    expect(
      shape(second.messages),
      'request 2: the prompt, the assistant turn with its call, then the result paired by id',
    ).toEqual(['user', 'assistant text + call echo#call_1', 'tool echo#call_1']);
    expect(second).toEndWithResultsFor(['call_1']);
    expect(second.messages[2]).toMatchObject({ content: 'pong', isError: false });
  });

  test('answers several calls of one turn in the order the model wrote them', async () => {
    const { tools } = loopTools();
    const provider = new MockProvider([
      assistantToolCalls([
        { id: 'b', name: 'echo', arguments: { text: 'second' } },
        { id: 'a', name: 'echo', arguments: { text: 'first' } },
      ]),
      assistantText('done'),
    ]);
    await singleTurn(provider, tools, 'go', ctx);
    expect(requestOn(provider, 2)).toEndWithResultsFor(['b', 'a']);
  });

  test('returns the text of a turn cut off by the token limit without running its half-written call', async () => {
    const { tools, calls } = loopTools();
    const cut: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me echo' },
        { type: 'tool_call', id: 'w1', name: 'echo', arguments: { text: 'half' } },
      ],
      stopReason: 'max_tokens',
    };
    const provider = new MockProvider([cut, assistantText('never asked for')]);
    const answer = await singleTurn(provider, tools, 'go', ctx);
    expect(
      calls,
      "singleTurn: decide by the stop reason, not by the calls: a 'max_tokens' turn's call must not run (guided step 3)",
    ).toEqual([]);
    expect(
      provider.requests,
      "singleTurn: a turn whose stop reason is not 'tool_use' is the answer; no second model call (guided step 3)",
    ).toHaveLength(1);
    expect(answer, "singleTurn: return the text of the turn that was not 'tool_use' (guided step 3)").toBe(
      'Let me echo',
    );
  });

  test('runs the calls one at a time: the second starts only after the first has finished', async () => {
    const events: string[] = [];
    let finishFirst = () => {};
    const gate = defineTool({
      name: 'gate',
      description: 'Waits for the test to let it finish',
      input: z.object({ label: z.string() }),
      execute: async ({ label }) => {
        events.push(`start ${label}`);
        if (label === 'first') await new Promise<void>((resolve) => (finishFirst = resolve));
        events.push(`end ${label}`);
        return label;
      },
    });
    const provider = new MockProvider([
      assistantToolCalls([
        { id: 'g1', name: 'gate', arguments: { label: 'first' } },
        { id: 'g2', name: 'gate', arguments: { label: 'second' } },
      ]),
      assistantText('done'),
    ]);
    const running = singleTurn(provider, new ToolSet([gate]), 'go', ctx);
    let settled = false;
    running.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let i = 0; i < 100 && !settled && !events.includes('start first'); i++)
      await new Promise((resolve) => setImmediate(resolve));
    if (!events.includes('start first')) await running; // it ended (or failed) without running the first call: show why
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(
      events,
      'singleTurn: await each executeToolCall before starting the next (in order, not all at once) (guided step 4)',
    ).toEqual(['start first']);
    finishFirst();
    expect(await running).toBe('done');
    expect(
      events,
      'singleTurn: the calls run one after another, in the order the model wrote them (guided step 4)',
    ).toEqual(['start first', 'end first', 'start second', 'end second']);
    expect(requestOn(provider, 2)).toEndWithResultsFor(['g1', 'g2']);
  });

  test('sends an unknown tool back as an error result and returns the recovered answer', async () => {
    const { tools } = loopTools();
    const provider = new MockProvider([
      assistantToolCalls([{ id: 'x1', name: 'teleport', arguments: {} }]),
      assistantText('Sorry, I cannot teleport.'),
    ]);
    expect(await singleTurn(provider, tools, 'beam me up', ctx)).toBe('Sorry, I cannot teleport.');
    expect(shape(requestOn(provider, 2).messages)).toEqual([
      'user',
      'assistant call teleport#x1',
      'tool teleport#x1 error',
    ]);
  });

  test('makes at most two model calls, even if the model asks for tools again', async () => {
    const { tools } = loopTools();
    const again = assistantToolCalls([{ id: 'r2', name: 'echo', arguments: { text: 'more' } }], 'one more');
    const provider = new MockProvider([
      assistantToolCalls([{ id: 'r1', name: 'echo', arguments: { text: 'x' } }]),
      again,
    ]);
    expect(
      await singleTurn(provider, tools, 'go', ctx),
      'singleTurn returns the second answer text without looping',
    ).toBe('one more');
    expect(provider.requests).toHaveLength(2);
  });
});
