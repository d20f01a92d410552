import { describe, expect, test } from 'vitest';
import { assistantText, assistantToolCalls, userMessage, type Message } from 'kit/messages';
import { MockProvider, ScriptExhaustedError } from 'kit/mock-provider';
import type { ModelRequest } from 'kit/provider';

const readDef = { name: 'read', description: 'Read a file', inputSchema: { type: 'object', properties: {} } };
const ask = (messages: Message[], extra: Partial<ModelRequest> = {}): ModelRequest => ({ messages, tools: [readDef], ...extra });

describe('MockProvider.complete (src/mock-provider.ts)', () => {
  test('returns the scripted turns in order', async () => {
    const provider = new MockProvider([assistantText('first'), assistantText('second')]);
    const history = [userMessage('hi')];
    expect(await provider.complete(ask(history))).toEqual(assistantText('first'));
    expect(await provider.complete(ask(history))).toEqual(assistantText('second'));
  });

  test('records every request it receives, in order', async () => {
    const provider = new MockProvider([assistantText('a'), assistantText('b')]);
    await provider.complete(ask([userMessage('one')], { system: 'be brief' }));
    await provider.complete(ask([userMessage('two')]));
    expect(provider.requests, 'one recorded request per call').toHaveLength(2);
    expect(provider.requests[0]).toMatchObject({ system: 'be brief', messages: [userMessage('one')], tools: [readDef] });
    expect(provider.requests[1]!.messages).toEqual([userMessage('two')]);
  });

  test('records a copy: changing the history afterwards does not change what was recorded', async () => {
    const provider = new MockProvider([assistantText('ok')]);
    const history: Message[] = [userMessage('original')];
    await provider.complete(ask(history));
    history.push(assistantText('later'));
    (history[0] as { content: string }).content = 'rewritten';
    expect(
      provider.requests[0]!.messages,
      'the recorded request must be a deep copy made when the request arrived',
    ).toEqual([userMessage('original')]);
  });

  test('does not keep the abort signal in the recorded request', async () => {
    const provider = new MockProvider([assistantText('ok')]);
    await provider.complete(ask([userMessage('hi')], { signal: new AbortController().signal }));
    expect(provider.requests[0]).not.toHaveProperty('signal');
  });

  test('hands out copies: changing a returned turn does not change the script', async () => {
    const turn = assistantToolCalls([{ id: 'c1', name: 'read', arguments: { path: 'a' } }]);
    const provider = new MockProvider([turn]);
    const got = await provider.complete(ask([userMessage('hi')]));
    got.content.length = 0;
    expect(turn.content, 'the scripted turn must be unchanged').toHaveLength(1);
  });

  test('throws ScriptExhaustedError when the script runs out, and says how long it was', async () => {
    const provider = new MockProvider([assistantText('only one')]);
    await provider.complete(ask([userMessage('hi')]));
    const error = await provider.complete(ask([userMessage('again')])).catch((e: unknown) => e);
    expect(error, 'a third call must fail loudly, not return undefined').toBeInstanceOf(ScriptExhaustedError);
    const message = String((error as Error).message);
    expect(message, 'the message should say how many turns the script had (1)').toMatch(/\b1 turn/);
    expect(message, 'the message should say which turn the agent asked for (the 2nd): count from 1, not from 0').toMatch(/turn 2\b/);
    expect(provider.requests, 'the request that ran out is still recorded').toHaveLength(2);
  });

  test('throws a scripted error, then goes on with the next step', async () => {
    const failure = new Error('503 overloaded');
    const provider = new MockProvider([failure, assistantText('recovered')]);
    await expect(provider.complete(ask([userMessage('hi')]))).rejects.toBe(failure);
    expect(await provider.complete(ask([userMessage('hi')]))).toEqual(assistantText('recovered'));
  });

  test('calls a function step with the request and returns what it builds', async () => {
    const provider = new MockProvider([
      (request) => assistantText(`you said ${(request.messages[0] as { content: string }).content}`),
    ]);
    expect(await provider.complete(ask([userMessage('ping')]))).toEqual(assistantText('you said ping'));
  });

  test('awaits an async function step', async () => {
    const provider = new MockProvider([async () => assistantText('later')]);
    expect(await provider.complete(ask([userMessage('hi')]))).toEqual(assistantText('later'));
  });

  test('rejects with the abort reason when the signal is already aborted, using no step', async () => {
    const provider = new MockProvider([assistantText('unused')]);
    const controller = new AbortController();
    const reason = new Error('user pressed Ctrl-C');
    controller.abort(reason);
    await expect(provider.complete(ask([userMessage('hi')], { signal: controller.signal }))).rejects.toBe(reason);
    expect(provider.remaining, 'an aborted call must not use up a scripted turn').toBe(1);
  });

  test('remaining counts the steps not used yet', async () => {
    const provider = new MockProvider([assistantText('a'), assistantText('b'), assistantText('c')]);
    await provider.complete(ask([userMessage('hi')]));
    expect(provider.remaining).toBe(2);
  });
});
