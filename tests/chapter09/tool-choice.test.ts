import { describe, expect, test } from 'vitest';
import type { HookContext } from 'kit/hooks';
import { assistantText, assistantToolCalls, userMessage, type Message } from 'kit/messages';
import type { ModelRequest, ToolChoice } from 'kit/provider';
import { AnthropicProvider } from 'kit/providers/anthropic';
import { OpenAIProvider } from 'kit/providers/openai';
import { toolChoice, type ToolChoiceOptions } from 'kit/tool-choice';
import { fakeApi } from '../helpers/fake-http.js';
import { agentWith, ask, collect, theDone } from '../chapter07/fixtures.js';
import {
  ANTHROPIC_URL,
  OPENAI_URL,
  anthropicEnv,
  anthropicResponse,
  openaiEnv,
  openaiResponse,
  tools,
} from '../chapter05/fixtures.js';

const api = fakeApi();

const ctx = (turn: number): HookContext => ({
  signal: new AbortController().signal,
  turn,
  history: [],
  emit: () => {},
});
const baseRequest = (): ModelRequest => ({ system: 'be brief', messages: [userMessage('hi')], tools, maxTokens: 100 });

/** The request the hook leaves for model call number `turn`. */
function chosen(options: ToolChoiceOptions, turn: number, request = baseRequest()): ModelRequest {
  return toolChoice(options).beforeModelCall!(request, ctx(turn)) as ModelRequest;
}

describe('toolChoice.beforeModelCall (src/tool-choice.ts)', () => {
  test('first on the first model call, then on every later one', () => {
    const options: ToolChoiceOptions = { first: 'required', then: 'auto' };
    expect(chosen(options, 1).toolChoice, 'toolChoice: turn 1 gets options.first (guided step 1)').toBe('required');
    expect(chosen(options, 2).toolChoice, 'toolChoice: turn 2 gets options.then (guided step 1)').toBe('auto');
    expect(
      chosen(options, 7).toolChoice,
      'toolChoice: every turn after the first gets options.then (guided step 1)',
    ).toBe('auto');
  });

  test('keeps the rest of the request, and adds nothing that was not asked for', () => {
    const request = baseRequest();
    const out = chosen({ then: 'none' }, 1, request);
    expect(
      out,
      'toolChoice: with no choice for this turn and no parallel switch, the request is unchanged (no toolChoice key) (guided step 3)',
    ).toEqual(request);
    expect(
      'toolChoice' in out || 'parallelToolCalls' in out,
      'toolChoice: leave both fields out when they are not given (guided step 3)',
    ).toBe(false);
    const named = chosen({ first: { name: 'read' }, parallel: false }, 1, request);
    expect(
      named,
      'toolChoice: a copy with the choice and the switch; system, messages, tools and maxTokens as they were (guided step 3)',
    ).toEqual({ ...request, toolChoice: { name: 'read' }, parallelToolCalls: false });
    expect(
      request.toolChoice,
      'toolChoice: return a copy, do not change the request you were given (guided step 3)',
    ).toBeUndefined();
  });

  test('the parallel switch is set on every turn, true as well as false', () => {
    expect(
      chosen({ parallel: false }, 1).parallelToolCalls,
      'toolChoice: parallel false on turn 1 (guided step 3)',
    ).toBe(false);
    expect(
      chosen({ parallel: false }, 3).parallelToolCalls,
      'toolChoice: parallel false on later turns too (guided step 3)',
    ).toBe(false);
    expect(
      chosen({ parallel: true }, 2).parallelToolCalls,
      'toolChoice: parallel true is passed on as well (guided step 3)',
    ).toBe(true);
  });

  test('a named tool that the request does not have is refused with a message that names it and lists the tools', () => {
    expect(
      () => chosen({ first: { name: 'delete_everything' } }, 1),
      "toolChoice: throw an Error naming the unknown tool and listing the request's tools (guided step 2)",
    ).toThrow(/delete_everything.*read/);
  });

  test('a named choice whose name an object inherits (toString, constructor, __proto__) is refused too', () => {
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(
        () => chosen({ first: { name } }, 1),
        `toolChoice.beforeModelCall: no tool of the request is named "${name}": compare with the names of request.tools, not with the keys of a plain object (which inherits "${name}") (guided step 2)`,
      ).toThrow(name);
    }
  });

  test('per run: every run of the agent starts again with the first choice', async () => {
    const script = [
      assistantToolCalls([{ id: 'c1', name: 'echo', arguments: { text: 'a' } }]),
      assistantText('one'),
      assistantToolCalls([{ id: 'c2', name: 'echo', arguments: { text: 'b' } }]),
      assistantText('two'),
    ];
    const { agent, provider } = agentWith(script, { hooks: toolChoice({ first: 'required', then: 'auto' }) });
    const history: Message[] = ask('first');
    await collect(agent.run(history));
    history.push(userMessage('second'));
    await collect(agent.run(history));
    expect(
      provider.requests.map((r) => r.toolChoice),
      'toolChoice: the turn counts from 1 in each run, so each run starts with required (guided step 1)',
    ).toEqual(['required', 'auto', 'required', 'auto']);
  });

  test('through the agent, an unknown named tool ends the run with reason error and a valid history', async () => {
    const { agent, provider } = agentWith([assistantText('never')], { hooks: toolChoice({ first: { name: 'nope' } }) });
    const history: Message[] = ask('go');
    const done = theDone(await collect(agent.run(history)), 'toolChoice');
    expect(
      done.reason,
      'toolChoice: the hook throws, so the run ends with error before any model call (guided step 2)',
    ).toBe('error');
    expect(done.message, 'toolChoice: the message names the tool (guided step 2)').toMatch(/nope/);
    expect(provider.requests.length, 'toolChoice: the model is never called with a choice it would refuse').toBe(0);
    expect(history).toBeValidHistory('after a refused tool choice');
  });
});

describe('toolChoice in the request bodies of the real SDKs', () => {
  const anthropicBody = async (options: ToolChoiceOptions, turn = 1) => {
    api.answer(ANTHROPIC_URL, anthropicResponse([{ type: 'text', text: 'ok' }]));
    await new AnthropicProvider({}, anthropicEnv).complete(chosen(options, turn));
    return api.requests.at(-1)!.body;
  };
  const openaiBody = async (options: ToolChoiceOptions, turn = 1) => {
    api.answer(OPENAI_URL, openaiResponse({ content: 'ok' }));
    await new OpenAIProvider({}, openaiEnv).complete(chosen(options, turn));
    return api.requests.at(-1)!.body;
  };

  test('Anthropic: required first, auto then; parallel off becomes disable_parallel_tool_use on the choice', async () => {
    expect(
      (await anthropicBody({ first: 'required', then: 'auto', parallel: false }, 1)).tool_choice,
      'Anthropic body, turn 1: required is { type: "any" }, with parallel calls disabled',
    ).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(
      (await anthropicBody({ first: 'required', then: 'auto', parallel: false }, 2)).tool_choice,
      'Anthropic body, turn 2: auto, still one call at a time',
    ).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(
      (await anthropicBody({ first: { name: 'read' } }, 1)).tool_choice,
      'Anthropic body: a named tool, parallel left as it is',
    ).toEqual({ type: 'tool', name: 'read' });
  });

  test('Anthropic: parallel off with no choice sends an auto choice; with none it sends none alone (the API takes the flag only with auto, any and tool)', async () => {
    expect((await anthropicBody({ parallel: false })).tool_choice, 'Anthropic body: parallel off alone').toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    expect(
      (await anthropicBody({ first: 'none', parallel: false })).tool_choice,
      'Anthropic body: none never carries disable_parallel_tool_use',
    ).toEqual({ type: 'none' });
    expect(
      (await anthropicBody({ parallel: true })).tool_choice,
      'Anthropic body: parallel on is the default: nothing to send',
    ).toBeUndefined();
  });

  const choices: Array<[ToolChoice, unknown]> = [
    ['auto', 'auto'],
    ['required', 'required'],
    [{ name: 'read' }, { type: 'function', function: { name: 'read' } }],
  ];

  test('OpenAI: tool_choice per turn and parallel_tool_calls as given', async () => {
    for (const [choice, sent] of choices) {
      const body = await openaiBody({ first: choice, parallel: false });
      expect(body.tool_choice, `OpenAI body: ${JSON.stringify(choice)} is sent as ${JSON.stringify(sent)}`).toEqual(
        sent,
      );
      expect(body.parallel_tool_calls, 'OpenAI body: parallel off is parallel_tool_calls: false').toBe(false);
    }
    const later = await openaiBody({ first: 'required', then: 'auto', parallel: true }, 2);
    expect([later.tool_choice, later.parallel_tool_calls], 'OpenAI body, turn 2: then = auto, parallel on').toEqual([
      'auto',
      true,
    ]);
  });

  test('OpenAI: with tool_choice none, no parallel_tool_calls is sent', async () => {
    const body = await openaiBody({ first: 'none', parallel: false });
    expect(body.tool_choice, 'OpenAI body: none').toBe('none');
    expect(
      'parallel_tool_calls' in body,
      'OpenAI body: parallel_tool_calls means nothing when no tool may be called',
    ).toBe(false);
  });
});
