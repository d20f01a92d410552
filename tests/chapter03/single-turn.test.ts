import { describe, expect, test } from 'vitest';
import { singleTurn } from 'kit/agent';
import { assistantText, assistantToolCalls } from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import { requestOn, shape, transcript } from '../helpers/transcript.js';
import { loopTools } from './fixtures.js';

const ctx = { cwd: process.cwd() };

describe('singleTurn (src/agent.ts)', () => {
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
    expect(requestOn(provider, 1).tools, 'send tools.definitions() so the model knows what it may call').toEqual(tools.definitions());
  });

  test('offers the tools again on the second request', async () => {
    const { tools } = loopTools();
    const provider = new MockProvider([assistantToolCalls([{ id: 't1', name: 'echo', arguments: { text: 'x' } }]), assistantText('ok')]);
    await singleTurn(provider, tools, 'go', ctx);
    expect(
      requestOn(provider, 2).tools,
      'step 6: the second request carries tools.definitions() too; the model keeps nothing between requests, and without them it cannot call again',
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

  test('sends an unknown tool back as an error result and returns the recovered answer', async () => {
    const { tools } = loopTools();
    const provider = new MockProvider([
      assistantToolCalls([{ id: 'x1', name: 'teleport', arguments: {} }]),
      assistantText('Sorry, I cannot teleport.'),
    ]);
    expect(await singleTurn(provider, tools, 'beam me up', ctx)).toBe('Sorry, I cannot teleport.');
    expect(shape(requestOn(provider, 2).messages)).toEqual(['user', 'assistant call teleport#x1', 'tool teleport#x1 error']);
  });

  test('makes at most two model calls, even if the model asks for tools again', async () => {
    const { tools } = loopTools();
    const again = assistantToolCalls([{ id: 'r2', name: 'echo', arguments: { text: 'more' } }], 'one more');
    const provider = new MockProvider([assistantToolCalls([{ id: 'r1', name: 'echo', arguments: { text: 'x' } }]), again]);
    expect(await singleTurn(provider, tools, 'go', ctx), 'singleTurn returns the second answer text without looping').toBe('one more');
    expect(provider.requests).toHaveLength(2);
  });
});
