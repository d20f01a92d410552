import { describe, expect, test } from 'vitest';
import { DEFAULT_MAX_TURNS, SimpleAgent, TurnLimitError } from 'kit/agent';
import {
  assistantText,
  assistantToolCalls,
  historyProblems,
  toolResult,
  userMessage,
  type Message,
} from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import { defineTool, ToolSet } from 'kit/tool';
import { z } from 'zod';
import { requestOn, shape } from '../helpers/transcript.js';
import { settles } from '../helpers/assert.js';
import { loopTools } from './fixtures.js';

const echoCall = (id: string, text: string) => assistantToolCalls([{ id, name: 'echo', arguments: { text } }]);

function agentWith(script: ConstructorParameters<typeof MockProvider>[0], options: { system?: string; maxTurns?: number } = {}) {
  const { tools, calls } = loopTools();
  const provider = new MockProvider(script);
  return { agent: new SimpleAgent({ provider, tools, cwd: process.cwd(), ...options }), provider, tools, calls };
}

describe('SimpleAgent.run and chat (src/agent.ts)', () => {
  test('keeps looping through several tool rounds until the model answers', async () => {
    const { agent, provider } = agentWith([echoCall('c1', 'a'), echoCall('c2', 'b'), echoCall('c3', 'c'), assistantText('abc')]);
    expect(await agent.run('spell it'), 'run keeps looping until a turn without tool calls, and returns its text').toBe('abc');
    expect(provider.requests.length, 'one model call per round, plus the final one').toBe(4);
    expect(shape(requestOn(provider, 4).messages), 'request 4 holds every earlier turn, each followed by its result').toEqual([
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
    const { agent, provider, tools } = agentWith([echoCall('c1', 'x'), assistantText('done')], { system: 'You are terse.' });
    await agent.run('go');
    for (const [i, request] of provider.requests.entries()) {
      expect(request.system, `request ${i + 1} should carry the system prompt`).toBe('You are terse.');
      expect(request.tools, `request ${i + 1} should offer the tools`).toEqual(tools.definitions());
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
    expect(calls.map((c) => (c.input as { text: string }).text), 'each tool runs exactly once, in call order').toEqual([
      'slow one',
      'fast one',
    ]);
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
    expect(results, 'each result carries the toolCallId of the call it answers').toEqual([toolResult({ id: 'toolu_01', name: 'echo' }, 'one'), toolResult({ id: 'toolu_01b', name: 'echo' }, 'two')]);
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
    expect(await settles(agent.run('go'), 'bad arguments and unknown tools are error results, not a throw')).toBe('fixed');
    expect(shape(requestOn(provider, 2).messages).slice(2)).toEqual(['tool echo#b1 error', 'tool shout#b2 error']);
  });

  test('chat appends every turn and result to the given history, ending with the answer', async () => {
    const { agent } = agentWith([echoCall('c1', 'x'), assistantText('final')]);
    const history: Message[] = [userMessage('go')];
    expect(await agent.chat(history)).toBe('final');
    expect(shape(history), 'chat works on the caller\'s array in place').toEqual([
      'user',
      'assistant call echo#c1',
      'tool echo#c1',
      'assistant text',
    ]);
    expect(historyProblems(history)).toEqual([]);
  });

  test('chat continues a conversation: the second request carries the first exchange', async () => {
    const { agent, provider } = agentWith([assistantText('Hi Ada.'), assistantText('Your name is Ada.')]);
    const history: Message[] = [userMessage('I am Ada.')];
    await agent.chat(history);
    history.push(userMessage('What is my name?'));
    expect(await agent.chat(history)).toBe('Your name is Ada.');
    expect(shape(requestOn(provider, 2).messages)).toEqual(['user', 'assistant text', 'user']);
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
    const { agent, provider } = agentWith(Array.from({ length: 10 }, () => forever), { maxTurns: 3 });
    const history: Message[] = [userMessage('never stop')];
    const error = await agent.chat(history).catch((e: unknown) => e);
    expect(error, 'the loop must stop at the turn limit with a TurnLimitError').toBeInstanceOf(TurnLimitError);
    expect(provider.requests.length, 'exactly maxTurns model calls').toBe(3);
    expect(historyProblems(history), 'every call in the history has its result').toEqual([]);
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
    expect(shape(history), 'keep the finished round; add nothing for the failed call').toEqual(['user', 'assistant call echo#c1', 'tool echo#c1']);
    expect(historyProblems(history)).toEqual([]);
  });
});

describe('SimpleAgent.executeTools and pushResults (src/agent.ts)', () => {
  test('executeTools returns one result per call, in call order, without throwing', async () => {
    const { agent } = agentWith([]);
    const results = await settles(agent.executeTools([
      { type: 'tool_call', id: 'a', name: 'fail', arguments: {} },
      { type: 'tool_call', id: 'b', name: 'echo', arguments: { text: 'ok' } },
      { type: 'tool_call', id: 'c', name: 'nope', arguments: {} },
    ]), 'executeTools never throws: a failing or unknown tool is an error result, not a throw');
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ['a', true],
      ['b', false],
      ['c', true],
    ]);
  });

  test('executeTools runs every tool in the agent\'s workspace (ctx.cwd is the agent\'s cwd)', async () => {
    const where = defineTool({
      name: 'where',
      description: 'Says which workspace it runs in',
      input: z.object({}),
      execute: async (_input, ctx) => `cwd=${ctx.cwd}`,
    });
    const agent = new SimpleAgent({ provider: new MockProvider([]), tools: new ToolSet([where]), cwd: '/projects/demo' });
    const [result] = await settles(agent.executeTools([{ type: 'tool_call', id: 'w1', name: 'where', arguments: {} }]), 'executeTools never throws');
    expect(result?.content, 'pass { cwd: this.cwd } as the context of executeToolCall: tools resolve paths against it').toBe('cwd=/projects/demo');
  });

  test('pushResults appends the assistant turn first, then the results in order', () => {
    const { agent } = agentWith([]);
    const history: Message[] = [userMessage('go')];
    const turn = echoCall('c1', 'x');
    agent.pushResults(history, turn, [toolResult({ id: 'c1', name: 'echo' }, 'x')]);
    expect(shape(history), 'the assistant turn first, then the results it asked for').toEqual(['user', 'assistant call echo#c1', 'tool echo#c1']);
    expect(history[1], 'push the turn itself, unchanged').toBe(turn);
  });
});
