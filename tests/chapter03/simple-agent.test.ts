import { describe, expect, test } from 'vitest';
import { DEFAULT_MAX_TURNS, SimpleAgent, TurnLimitError } from 'kit/simple-agent';
import {
  assistantText,
  assistantToolCalls,
  historyProblems,
  toolResult,
  userMessage,
  type AssistantMessage,
  type Message,
  type ToolResultMessage,
} from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import { defineTool, ToolSet } from 'kit/tool';
import { z } from 'zod';
import { requestOn, shape } from '../helpers/transcript.js';
import { settles } from '../helpers/assert.js';
import { loopTools } from './fixtures.js';

const echoCall = (id: string, text: string) => assistantToolCalls([{ id, name: 'echo', arguments: { text } }]);

function agentWith(
  script: ConstructorParameters<typeof MockProvider>[0],
  options: { system?: string; maxTurns?: number } = {},
) {
  const { tools, calls } = loopTools();
  const provider = new MockProvider(script);
  return { agent: new SimpleAgent({ provider, tools, cwd: process.cwd(), ...options }), provider, tools, calls };
}

describe('SimpleAgent.run and chat (src/simple-agent.ts)', () => {
  test('keeps looping through several tool rounds until the model answers', async () => {
    const { agent, provider } = agentWith([
      echoCall('c1', 'a'),
      echoCall('c2', 'b'),
      echoCall('c3', 'c'),
      assistantText('abc'),
    ]);
    expect(await agent.run('spell it'), 'run keeps looping until a turn without tool calls, and returns its text').toBe(
      'abc',
    );
    expect(provider.requests.length, 'one model call per round, plus the final one').toBe(4);
    expect(
      shape(requestOn(provider, 4).messages),
      'request 4 holds every earlier turn, each followed by its result',
    ).toEqual([
      'user',
      'assistant call echo#c1',
      'tool echo#c1',
      'assistant call echo#c2',
      'tool echo#c2',
      'assistant call echo#c3',
      'tool echo#c3',
    ]);
  });

  test('stops as soon as the model answers without tools', async () => {
    const { agent, provider } = agentWith([assistantText('hello'), assistantText('never used')]);
    expect(await agent.run('hi')).toBe('hello');
    expect(provider.remaining, 'the loop must return on a turn whose stop reason is not tool_use').toBe(1);
  });

  test('sends the system prompt and the tool definitions on every request', async () => {
    const { agent, provider, tools } = agentWith([echoCall('c1', 'x'), assistantText('done')], {
      system: 'You are terse.',
    });
    await agent.chat([userMessage('go')]);
    for (const [i, request] of provider.requests.entries()) {
      expect(
        request.system,
        `request ${i + 1} should carry the system prompt (chat guided step 1: on every request)`,
      ).toBe('You are terse.');
      expect(request.tools, `request ${i + 1} should offer the tools (chat guided step 1: on every request)`).toEqual(
        tools.definitions(),
      );
    }
  });

  test('runs each call once, in the order the model wrote them, and the results keep that order', async () => {
    const { agent, provider, calls } = agentWith([
      assistantToolCalls([
        { id: 's1', name: 'slow', arguments: { ms: 30, text: 'slow one' } },
        { id: 's2', name: 'slow', arguments: { ms: 1, text: 'fast one' } },
      ]),
      assistantText('ok'),
    ]);
    await agent.run('go');
    expect(
      calls.map((c) => (c.input as { text: string }).text),
      'each tool runs exactly once, in call order',
    ).toEqual(['slow one', 'fast one']);
    expect(requestOn(provider, 2)).toEndWithResultsFor(['s1', 's2']);
  });

  test('pairs every result with its own call id, even when ids look alike', async () => {
    const { agent, provider } = agentWith([
      assistantToolCalls([
        { id: 'toolu_01', name: 'echo', arguments: { text: 'one' } },
        { id: 'toolu_01b', name: 'echo', arguments: { text: 'two' } },
      ]),
      assistantText('ok'),
    ]);
    await agent.run('go');
    const results = requestOn(provider, 2).messages.slice(2);
    expect(results, 'each result carries the toolCallId of the call it answers').toEqual([
      toolResult({ id: 'toolu_01', name: 'echo' }, 'one'),
      toolResult({ id: 'toolu_01b', name: 'echo' }, 'two'),
    ]);
  });

  test('lets the model recover from a failing tool: the error reaches it as a result', async () => {
    const { agent, provider } = agentWith([
      assistantToolCalls([{ id: 'f1', name: 'fail', arguments: {} }]),
      echoCall('e1', 'plan B'),
      assistantText('Used plan B.'),
    ]);
    expect(await agent.run('do it')).toBe('Used plan B.');
    const failed = requestOn(provider, 2).messages[2];
    expect(failed, 'the failing tool becomes an error result the model can read').toMatchObject({
      role: 'tool',
      toolCallId: 'f1',
      isError: true,
    });
    expect((failed as { content: string }).content).toContain('disk on fire');
  });

  test('lets the model recover from bad arguments and from an unknown tool', async () => {
    const { agent, provider } = agentWith([
      assistantToolCalls([
        { id: 'b1', name: 'echo', arguments: { txt: 'typo' } },
        { id: 'b2', name: 'shout', arguments: {} },
      ]),
      echoCall('b3', 'fixed'),
      assistantText('fixed'),
    ]);
    expect(await settles(agent.run('go'), 'bad arguments and unknown tools are error results, not a throw')).toBe(
      'fixed',
    );
    expect(shape(requestOn(provider, 2).messages).slice(2)).toEqual(['tool echo#b1 error', 'tool shout#b2 error']);
  });

  test('chat appends every turn and result to the given history, ending with the answer', async () => {
    const { agent } = agentWith([echoCall('c1', 'x'), assistantText('final')]);
    const history: Message[] = [userMessage('go')];
    expect(await agent.chat(history)).toBe('final');
    expect(
      history.length,
      "chat appends to the caller's array in place (it still holds only the prompt)",
    ).toBeGreaterThan(1);
    expect(
      shape(history),
      'guided step 3 of SimpleAgent.chat: the round (turn, then its result) and, last, the final answer turn (push it before returning its text)',
    ).toEqual(['user', 'assistant call echo#c1', 'tool echo#c1', 'assistant text']);
    expect(history).toBeValidHistory('after chat');
  });

  test('chat continues a conversation: the second request carries the first exchange', async () => {
    const { agent, provider } = agentWith([assistantText('Hi Ada.'), assistantText('Your name is Ada.')]);
    const history: Message[] = [userMessage('I am Ada.')];
    await agent.chat(history);
    history.push(userMessage('What is my name?'));
    expect(await agent.chat(history)).toBe('Your name is Ada.');
    expect(
      shape(requestOn(provider, 2).messages),
      'guided step 3 of SimpleAgent.chat: the answer turn is pushed onto the history too (not only returned as text), so the next chat sends it',
    ).toEqual(['user', 'assistant text', 'user']);
  });

  test('run starts a fresh conversation each time', async () => {
    const { agent, provider } = agentWith([assistantText('one'), assistantText('two')]);
    await agent.run('first');
    await agent.run('second');
    expect(shape(requestOn(provider, 2).messages), 'run must not reuse an earlier history').toEqual(['user']);
  });

  test('gives up with TurnLimitError after maxTurns model calls, leaving a valid history', async () => {
    let n = 0;
    const forever = () => echoCall(`loop_${++n}`, 'again');
    const { agent, provider } = agentWith(
      Array.from({ length: 10 }, () => forever),
      { maxTurns: 3 },
    );
    const history: Message[] = [userMessage('never stop')];
    const error = await agent.chat(history).catch((e: unknown) => e);
    expect(error, 'the loop must stop at the turn limit with a TurnLimitError').toBeInstanceOf(TurnLimitError);
    expect(provider.requests.length, 'exactly maxTurns model calls').toBe(3);
    expect(historyProblems(history), 'every call in the history has its result').toEqual([]);
    expect(history).toBeValidHistory('after the turn limit');
  });

  test('defaults to a limit of 20 turns', async () => {
    let n = 0;
    const { agent, provider } = agentWith(Array.from({ length: 30 }, () => () => echoCall(`c${++n}`, 'x')));
    await expect(agent.run('loop')).rejects.toBeInstanceOf(TurnLimitError);
    expect(provider.requests).toHaveLength(DEFAULT_MAX_TURNS);
  });

  test('rejects with the provider error and leaves the history valid', async () => {
    const outage = new Error('529 overloaded');
    const { agent } = agentWith([echoCall('c1', 'x'), outage]);
    const history: Message[] = [userMessage('go')];
    await expect(agent.chat(history)).rejects.toBe(outage);
    expect(shape(history), 'keep the finished round; add nothing for the failed call').toEqual([
      'user',
      'assistant call echo#c1',
      'tool echo#c1',
    ]);
    expect(history).toBeValidHistory('after the provider failed');
  });
});

const NORMALIZE =
  'chat: pass every turn through normalizeTurn(turn, history) and use the turn it returns (guided step 2)';
const callIds = (turn: Message | undefined) =>
  turn?.role === 'assistant' ? turn.content.flatMap((block) => (block.type === 'tool_call' ? [block.id] : [])) : [];
const resultIds = (messages: readonly Message[]) =>
  messages.filter((m): m is ToolResultMessage => m.role === 'tool').map((m) => m.toolCallId);

describe('SimpleAgent.chat and the turn rules (src/simple-agent.ts, src/turn-rules.ts)', () => {
  test('two calls with the same id in one turn both run, and each gets a result of its own', async () => {
    const { agent, calls } = agentWith([
      assistantToolCalls([
        { id: 'dup', name: 'echo', arguments: { text: 'one' } },
        { id: 'dup', name: 'echo', arguments: { text: 'two' } },
      ]),
      assistantText('ok'),
    ]);
    const history: Message[] = [userMessage('go')];
    expect(await agent.chat(history)).toBe('ok');
    expect(history, NORMALIZE).toBeValidHistory('after a turn that used one id twice');
    expect(
      calls.map((c) => (c.input as { text: string }).text),
      'both calls run, in order',
    ).toEqual(['one', 'two']);
    const ids = callIds(history[1]);
    expect(new Set(ids).size, `${NORMALIZE}: the two calls must end up with different ids`).toBe(2);
    expect(resultIds(history), 'each result answers its own call').toEqual(ids);
  });

  test('an id the model reuses from an earlier turn is made new, so the history stays valid', async () => {
    const { agent, provider } = agentWith([echoCall('c1', 'first'), echoCall('c1', 'second'), assistantText('done')]);
    const history: Message[] = [userMessage('go')];
    expect(await agent.chat(history)).toBe('done');
    expect(history, NORMALIZE).toBeValidHistory('after an id was reused in a later turn');
    expect(callIds(history[3]), `${NORMALIZE}: the second turn's call gets an id not used before`).not.toEqual(['c1']);
    expect(requestOn(provider, 3).messages).toBeValidHistory('in the request sent after the reused id');
  });

  test('a call with an empty id gets one, and a call with an empty name gets an error result listing the tools', async () => {
    const { agent, calls } = agentWith([
      assistantToolCalls([
        { id: '', name: 'echo', arguments: { text: 'no id' } },
        { id: 'n1', name: '', arguments: {} },
      ]),
      assistantText('ok'),
    ]);
    const history: Message[] = [userMessage('go')];
    expect(await agent.chat(history)).toBe('ok');
    expect(history, NORMALIZE).toBeValidHistory('after calls with an empty id and an empty name');
    expect(
      calls.map((c) => c.tool),
      'the call with an empty id still runs',
    ).toEqual(['echo']);
    const turn = history[1] as AssistantMessage;
    const nameless = turn.content.find((b) => b.type === 'tool_call' && b.id === 'n1');
    expect(
      nameless && nameless.type === 'tool_call' && nameless.name,
      `${NORMALIZE}: no call in the history has an empty name`,
    ).toBeTruthy();
    const result = history[3] as ToolResultMessage;
    expect(result.isError, 'a call without a name is an unknown tool: an error result').toBe(true);
    expect(result.content, 'the error lists the real tools so the model can call again').toContain('echo, fail, slow');
  });

  test('a tool_use turn without any call is an answer: the run ends instead of asking again', async () => {
    const empty: AssistantMessage = {
      role: 'assistant',
      content: [{ type: 'text', text: 'All done.' }],
      stopReason: 'tool_use',
    };
    const { agent, provider } = agentWith([empty, assistantText('never asked for')]);
    const history: Message[] = [userMessage('go')];
    expect(await settles(agent.chat(history), 'chat must not fail on a tool_use turn without calls'), NORMALIZE).toBe(
      'All done.',
    );
    expect(
      provider.requests,
      `${NORMALIZE}: a tool_use turn with no call asks for nothing, so no second model call`,
    ).toHaveLength(1);
    expect(shape(history), 'the turn is the last message, as an answer').toEqual(['user', 'assistant text']);
    expect(history).toBeValidHistory('after a tool_use turn without calls');
  });

  test('a turn with no content at all still enters the history as a turn a provider accepts', async () => {
    const blank: AssistantMessage = { role: 'assistant', content: [], stopReason: 'end_turn' };
    const { agent } = agentWith([blank]);
    const history: Message[] = [userMessage('go')];
    await settles(agent.chat(history), 'chat must not fail on an empty turn');
    const last = history.at(-1) as AssistantMessage;
    expect(last?.role, 'the turn is still appended').toBe('assistant');
    expect(
      last.content.length,
      `${NORMALIZE}: providers refuse an empty assistant turn; normalizeTurn gives it a text block`,
    ).toBeGreaterThan(0);
    expect(history).toBeValidHistory('after an empty turn');
  });

  test('a turn cut off by the token limit never runs its half-written call, and the caller can see the cut', async () => {
    const cut: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me write the file' },
        { type: 'tool_call', id: 'w1', name: 'echo', arguments: '{"text": "half of it' },
      ],
      stopReason: 'max_tokens',
    };
    const { agent, provider, calls } = agentWith([cut, assistantText('never asked for')]);
    const history: Message[] = [userMessage('go')];
    expect(
      await settles(agent.chat(history), 'a cut turn ends the run like an answer'),
      "chat: every stop reason but 'tool_use' (here 'max_tokens') ends the run: push the turn and return its text (guided step 3)",
    ).toBe('Let me write the file');
    expect(calls, 'only a tool_use turn runs calls; a cut call must never run').toEqual([]);
    expect(
      provider.requests,
      "chat: the run ends on a turn that is not 'tool_use'; no second model call (guided step 3)",
    ).toHaveLength(1);
    expect(history, `${NORMALIZE}: it drops the calls of a turn that is not tool_use`).toBeValidHistory(
      'after a cut turn',
    );
    expect(history.at(-1), 'the cut turn is last, with its stop reason, so the caller sees it was cut').toMatchObject({
      role: 'assistant',
      stopReason: 'max_tokens',
    });
  });
});

describe('SimpleAgent.executeTools and pushResults (src/simple-agent.ts)', () => {
  test('executeTools returns one result per call, in call order, without throwing', async () => {
    const { agent } = agentWith([]);
    const results = await settles(
      agent.executeTools([
        { type: 'tool_call', id: 'a', name: 'fail', arguments: {} },
        { type: 'tool_call', id: 'b', name: 'echo', arguments: { text: 'ok' } },
        { type: 'tool_call', id: 'c', name: 'nope', arguments: {} },
      ]),
      'executeTools never throws: a failing or unknown tool is an error result, not a throw',
    );
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ['a', true],
      ['b', false],
      ['c', true],
    ]);
  });

  test('executeTools runs one call at a time, in the order the model wrote them', async () => {
    const { agent, calls } = agentWith([]);
    const results = await settles(
      agent.executeTools([
        { type: 'tool_call', id: 's1', name: 'slow', arguments: { ms: 30, text: 'slow one' } },
        { type: 'tool_call', id: 's2', name: 'slow', arguments: { ms: 1, text: 'fast one' } },
      ]),
      'executeTools never throws',
    );
    expect(
      calls.map((c) => (c.input as { text: string }).text),
      'executeTools: await each call before starting the next, so the tools finish in call order (guided step 1)',
    ).toEqual(['slow one', 'fast one']);
    expect(
      results.map((r) => r.toolCallId),
      'executeTools: the results keep the order of the calls (guided step 2)',
    ).toEqual(['s1', 's2']);
  });

  test("executeTools runs every tool in the agent's workspace (ctx.cwd is the agent's cwd)", async () => {
    const where = defineTool({
      name: 'where',
      description: 'Says which workspace it runs in',
      input: z.object({}),
      execute: async (_input, ctx) => `cwd=${ctx.cwd}`,
    });
    const agent = new SimpleAgent({
      provider: new MockProvider([]),
      tools: new ToolSet([where]),
      cwd: '/projects/demo',
    });
    const [result] = await settles(
      agent.executeTools([{ type: 'tool_call', id: 'w1', name: 'where', arguments: {} }]),
      'executeTools never throws',
    );
    expect(
      result?.content,
      'pass { cwd: this.cwd } as the context of executeToolCall: tools resolve paths against it',
    ).toBe('cwd=/projects/demo');
  });

  test('pushResults appends the assistant turn first, then the results in order', () => {
    const { agent } = agentWith([]);
    const history: Message[] = [userMessage('go')];
    const turn = echoCall('c1', 'x');
    agent.pushResults(history, turn, [toolResult({ id: 'c1', name: 'echo' }, 'x')]);
    expect(shape(history), 'the assistant turn first, then the results it asked for').toEqual([
      'user',
      'assistant call echo#c1',
      'tool echo#c1',
    ]);
    expect(history[1], 'push the turn itself, unchanged').toBe(turn);
  });
});
