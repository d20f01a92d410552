/** Helpers for the chapter 7 tests: an agent on a scripted provider, and events as short readable lines. */
import { z } from 'zod';
import type { AgentEvent, DoneEvent } from 'kit/agent-events';
import type { Hooks } from 'kit/hooks';
import type { Executor } from 'kit/serial-executor';
import { Agent } from 'kit/agent';
import { assistantToolCalls, type Message } from 'kit/messages';
import { MockProvider, type ScriptStep } from 'kit/mock-provider';
import type { Provider } from 'kit/provider';
import { defineTool, ToolSet, type Tool } from 'kit/tool';
import { expect } from 'vitest';

const clip = (text: string, max = 40) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * One line per event: `turn_start 1`, `text 1 "Hi"`, `writing 1 echo#c1`, `piece 1 c1 "{\"te"`, `requested 1 echo#c1`,
 * `result 1 c1 "aa"`, `done end_turn`.
 */
export function describeEvent(event: AgentEvent): string {
  switch (event.type) {
    case 'turn_start':
      return `turn_start ${event.turn}`;
    case 'text_delta':
      return `text ${event.turn} ${JSON.stringify(event.text)}`;
    case 'thinking_delta':
      return `thinking ${event.turn} ${JSON.stringify(event.thinking)}`;
    case 'usage':
      return `usage ${event.turn} in=${event.usage.inputTokens} out=${event.usage.outputTokens}`;
    case 'tool_call_start':
      return `writing ${event.turn} ${event.name}#${event.callId}`;
    case 'tool_call_delta':
      return `piece ${event.turn} ${event.callId} ${JSON.stringify(event.argumentsDelta)}`;
    case 'tool_call_requested':
      return `requested ${event.turn} ${event.name}#${event.callId} ${JSON.stringify(event.arguments)}`;
    case 'tool_call_decided':
      return `decided ${event.turn} ${event.callId} ${event.decision.type}`;
    case 'tool_result':
      return `result ${event.turn} ${event.callId}${event.isError ? ' error' : ''} ${JSON.stringify(clip(event.content))}`;
    case 'done':
      return `done ${event.reason}`;
    default:
      return `unknown event ${JSON.stringify(event)}`;
  }
}

/** Leaves out the events that tell a call being written (tool_call_start, tool_call_delta), for tests about other things. */
export const notWriting = (event: AgentEvent): boolean =>
  event.type !== 'tool_call_start' && event.type !== 'tool_call_delta';

/** Every event of a run, read to the end without the kit's drain (so these tests do not depend on it). */
export async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** The one done event of a run, checking that there is exactly one and that it comes last. */
export function theDone(events: readonly AgentEvent[], where: string): DoneEvent {
  const dones = events.filter((e): e is DoneEvent => e.type === 'done');
  expect(
    dones.length,
    `${where}: a run ends with exactly one done event (finishRun is called once, and nothing is yielded after it); got ${dones.length}: ${events.map(describeEvent).join(' | ')}`,
  ).toBe(1);
  expect(events.at(-1)?.type, `${where}: done must be the last event of the run`).toBe('done');
  return dones[0]!;
}

/** Tools that record what ran: echo (text, times), fail (throws), stuck (never settles, ignores the signal). */
export function testTools(extra: Tool[] = []) {
  const ran: string[] = [];
  const echo = defineTool({
    name: 'echo',
    description: 'Repeat the text back',
    input: z.object({ text: z.string(), times: z.number().int().default(1) }),
    execute: async ({ text, times }) => {
      ran.push(`echo ${text}`);
      return text.repeat(times);
    },
  });
  const fail = defineTool({
    name: 'fail',
    description: 'Always fails',
    input: z.object({}),
    execute: async () => {
      ran.push('fail');
      throw new Error('disk on fire');
    },
  });
  const stuck = defineTool({
    name: 'stuck',
    description: 'Never finishes, and ignores the signal',
    input: z.object({}),
    execute: () => {
      ran.push('stuck');
      return new Promise<string>(() => {});
    },
  });
  return { tools: new ToolSet([echo, fail, stuck, ...extra]), ran };
}

export const echoCall = (id: string, text: string) => ({ id, name: 'echo', arguments: { text } });
export const callsTurn = (...calls: Array<{ id: string; name: string; arguments: unknown }>) =>
  assistantToolCalls(calls);

export function agentWith(
  script: ScriptStep[] | Provider,
  options: {
    hooks?: Hooks | Hooks[];
    maxTurns?: number;
    extraTools?: Tool[];
    system?: string;
    executor?: Executor;
  } = {},
) {
  const provider = Array.isArray(script) ? new MockProvider(script) : script;
  const { tools, ran } = testTools(options.extraTools);
  const agent = new Agent({
    provider,
    tools,
    cwd: process.cwd(),
    system: options.system,
    maxTurns: options.maxTurns,
    hooks: options.hooks,
    executor: options.executor,
  });
  return { agent, provider: provider as MockProvider, tools, ran };
}

/** A history with one user message. */
export const ask = (text: string): Message[] => [{ role: 'user', content: text }];
