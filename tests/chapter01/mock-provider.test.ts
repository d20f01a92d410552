import { describe, expect, test } from 'vitest';
import { assistantText, assistantToolCalls, userMessage, type Message } from 'kit/messages';
import { MockProvider, ScriptExhaustedError } from 'kit/mock-provider';
import type { ModelRequest } from 'kit/provider';
import { rejection } from '../helpers/assert.js';

const readDef = { name: 'read', description: 'Read a file', inputSchema: { type: 'object', properties: {} } };
const ask = (messages: Message[], extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages,
  tools: [readDef],
  ...extra,
});

describe('MockProvider.complete (src/mock-provider.ts)', () => {
  test('returns the scripted turns in order', async () => {
    const provider = new MockProvider([assistantText('first'), assistantText('second')]);
    const history = [userMessage('hi')];
    expect(await provider.complete(ask(history)), 'the first call returns turn 1 of the script').toEqual(
      assistantText('first'),
    );
    expect(
      await provider.complete(ask(history)),
      'the second call returns turn 2: each call takes the next step of the script (guided step 4)',
    ).toEqual(assistantText('second'));
  });

  test('records every request it receives, in order', async () => {
    const provider = new MockProvider([assistantText('a'), assistantText('b')]);
    await provider.complete(ask([userMessage('one')], { system: 'be brief' }));
    await provider.complete(ask([userMessage('two')]));
    expect(provider.requests, 'one recorded request per call').toHaveLength(2);
    expect(provider.requests[0], 'request 1 recorded with its system prompt, messages and tools').toMatchObject({
      system: 'be brief',
      messages: [userMessage('one')],
      tools: [readDef],
    });
    expect(provider.requests[1]!.messages, 'request 2 recorded second').toEqual([userMessage('two')]);
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
    expect(provider.requests[0], 'record the request without its signal (guided step 2)').not.toHaveProperty('signal');
  });

  test('hands out copies: changing a returned turn does not change the script', async () => {
    const turn = assistantToolCalls([{ id: 'c1', name: 'read', arguments: { path: 'a' } }]);
    const provider = new MockProvider([turn]);
    const got = await provider.complete(ask([userMessage('hi')]));
    got.content.length = 0;
    expect(turn.content, 'the scripted turn must be unchanged').toHaveLength(1);
  });

  test('throws ScriptExhaustedError when the script runs out, saying how long it was and which turn was asked for', async () => {
    const provider = new MockProvider([assistantText('only one')]);
    await provider.complete(ask([userMessage('hi')]));
    const error = await provider.complete(ask([userMessage('again')])).catch((e: unknown) => e);
    expect(
      error,
      'a call past the end of the script must fail loudly with ScriptExhaustedError, not return undefined',
    ).toBeInstanceOf(ScriptExhaustedError);
    const message = String((error as Error).message);
    expect(message, 'the message says how many turns the script had ("1 turn") (guided step 3)').toMatch(
      /\b1 turn\b(?![(s])/,
    );
    expect(message, 'the message says which turn was asked for, counting from 1 ("turn 2") (guided step 3)').toMatch(
      /turn 2\b/,
    );
    expect(
      provider.requests,
      'the request that ran out of script is still recorded: record first, then look for its turn (guided steps 2 and 3)',
    ).toHaveLength(2);
    const two = new MockProvider([assistantText('one'), assistantText('two')]);
    await two.complete(ask([userMessage('1')]));
    await two.complete(ask([userMessage('2')]));
    const longer = String(await two.complete(ask([userMessage('3')])).catch((e: unknown) => e));
    expect(longer, 'a script of two turns says "2 turns", a plural as a person writes it (guided step 3)').toMatch(
      /\b2 turns\b/,
    );
    expect(longer, 'and the turn asked for is the third (guided step 3)').toMatch(/turn 3\b/);
  });

  test('throws a scripted error, then goes on with the next step', async () => {
    const failure = new Error('503 overloaded');
    const provider = new MockProvider([failure, assistantText('recovered')]);
    expect(
      await rejection(provider.complete(ask([userMessage('hi')])), 'an Error step is thrown (guided step 4)'),
      'the scripted Error itself is thrown',
    ).toBe(failure);
    expect(
      await provider.complete(ask([userMessage('hi')])),
      'the Error used up its step: the next call gets the next turn',
    ).toEqual(assistantText('recovered'));
  });

  test('calls a function step with the request and returns what it builds', async () => {
    const provider = new MockProvider([
      (request) => assistantText(`you said ${(request.messages[0] as { content: string }).content}`),
    ]);
    expect(
      await provider.complete(ask([userMessage('ping')])),
      'a function step is called with the request (guided step 4)',
    ).toEqual(assistantText('you said ping'));
  });

  test('awaits an async function step', async () => {
    const provider = new MockProvider([async () => assistantText('later')]);
    expect(await provider.complete(ask([userMessage('hi')])), 'await what a function step returns').toEqual(
      assistantText('later'),
    );
  });

  test('rejects with the abort reason when the signal is already aborted, using no step', async () => {
    const provider = new MockProvider([assistantText('unused')]);
    const controller = new AbortController();
    const reason = new Error('user pressed Ctrl-C');
    controller.abort(reason);
    expect(
      await rejection(
        provider.complete(ask([userMessage('hi')], { signal: controller.signal })),
        'an aborted signal must reject (guided step 1)',
      ),
      'reject with signal.reason itself (guided step 1)',
    ).toBe(reason);
    expect(provider.remaining, 'an aborted call must not use up a scripted turn').toBe(1);
    expect(
      provider.requests,
      'an aborted call is not recorded: the signal is checked before anything else (guided steps 1 and 2)',
    ).toHaveLength(0);
  });

  test('remaining counts the steps not used yet', async () => {
    const provider = new MockProvider([assistantText('a'), assistantText('b'), assistantText('c')]);
    await provider.complete(ask([userMessage('hi')]));
    expect(provider.remaining, 'one of three steps used: 2 remain').toBe(2);
  });

  test('hands out copies of what a function step built, too', async () => {
    const built = assistantToolCalls([{ id: 'c1', name: 'read', arguments: { path: 'a' } }]);
    const provider = new MockProvider([() => built]);
    const got = await provider.complete(ask([userMessage('hi')]));
    expect(got, 'the turn the function built').toEqual(built);
    expect(got, 'return a deep copy of the turn, whichever kind of step built it (guided step 4)').not.toBe(built);
  });
});
