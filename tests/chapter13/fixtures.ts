/** Helpers for the chapter 13 tests: tools that read and write, a mode holder, child agents on scripted providers. */
import { z } from 'zod';
import type { AgentEvent, PlanDecision } from 'kit/agent-events';
import { Agent } from 'kit/agent';
import { assistantText, assistantToolCalls, type Message } from 'kit/messages';
import { MockProvider, type ScriptStep } from 'kit/mock-provider';
import type { PermissionMode } from 'kit/permissions/evaluate';
import type { ChildSpec } from 'kit/planning/task';
import { defineTool, type Tool } from 'kit/tool';

/** Tools named like the real ones, that only record that they ran: look and find read, write, edit and bash do not. */
export function fakeTools() {
  const ran: string[] = [];
  const tool = (name: string, readOnly: boolean): Tool =>
    defineTool({
      name,
      description: `${name} (a stand-in)`,
      input: z.object({ path: z.string().optional(), command: z.string().optional() }),
      readOnly,
      execute: async (input) => {
        ran.push(`${name} ${input.path ?? input.command ?? ''}`.trim());
        return `${name} done`;
      },
    });
  return {
    tools: [tool('read', true), tool('grep', true), tool('write', false), tool('edit', false), tool('bash', false)],
    ran,
  };
}

/** Holds the permission mode the way chapter 8's gate does, and records every switch. */
export function modeHolder(start: PermissionMode = 'plan') {
  const switches: PermissionMode[] = [];
  const control = {
    mode: start,
    setMode(mode: PermissionMode) {
      switches.push(mode);
      control.mode = mode;
    },
  };
  return { control, switches };
}

/** An approve callback that answers `decision` and records the plans it was shown. */
export function approver(decision: PlanDecision) {
  const plans: string[] = [];
  return { approve: async (plan: string) => (plans.push(plan), decision), plans };
}

export const call = (id: string, name: string, args: unknown = {}) => ({ id, name, arguments: args });
export const callsTurn = (...calls: Array<{ id: string; name: string; arguments: unknown }>) =>
  assistantToolCalls(calls);
export const ask = (text: string): Message[] => [{ role: 'user', content: text }];
export { assistantText };

/** Every event of a run. */
export async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** The events of one type, typed. */
export function ofType<T extends AgentEvent['type']>(
  events: readonly AgentEvent[],
  type: T,
): Array<Extract<AgentEvent, { type: T }>> {
  return events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);
}

/**
 * Short names for a run's events: `turn_start`, `plan_proposed`, `tool_result c1`, `subagent(t1) done`. The events
 * of a call being written (chapter 7's tool_call_start and tool_call_delta, how many depends on the arguments'
 * length) are left out: these tests are about what happens once a call is whole.
 */
export function names(events: readonly AgentEvent[]): string[] {
  const writing = (event: AgentEvent): boolean =>
    event.type === 'tool_call_start' ||
    event.type === 'tool_call_delta' ||
    (event.type === 'subagent' && writing(event.event));
  const name = (event: AgentEvent): string => {
    if (event.type === 'subagent') return `subagent(${event.callId}) ${name(event.event)}`;
    if (event.type === 'tool_result' || event.type === 'tool_call_decided') return `${event.type} ${event.callId}`;
    return event.type;
  };
  return events.filter((event) => !writing(event)).map(name);
}

/**
 * A factory for children: each child gets the next script of `scripts` (one MockProvider each) and the spec is
 * recorded. `limit` stops a runaway: asking for more children than that throws.
 */
export function childFactory(scripts: ScriptStep[][], limit = 6) {
  const specs: ChildSpec[] = [];
  const providers: MockProvider[] = [];
  const makeChild = (spec: ChildSpec) => {
    if (specs.length >= limit) throw new Error(`more than ${limit} child agents were made: is the recursion bounded?`);
    specs.push(spec);
    const provider = new MockProvider(scripts[providers.length] ?? [assistantText('(no script)')]);
    providers.push(provider);
    return new Agent({ provider, tools: spec.tools, cwd: process.cwd(), system: spec.system, maxTurns: spec.maxTurns });
  };
  return { makeChild, specs, providers };
}
