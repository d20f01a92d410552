/** Helpers for the chapter 15 renderer and stream-json tests: events written by hand, stand-in tools, a tagging style. */
import { z } from 'zod';
import type { AgentEvent, DoneEvent, ToolDecision } from 'kit/agent-events';
import type { Style } from 'kit/capstone/render';
import type { Usage } from 'kit/messages';
import { defineTool, type Tool } from 'kit/tool';

/** A workspace path for the renderer (nothing is read from it). */
export const CWD = '/work/project';

/** A style that shows what was painted how: `[red]text[/red]`. */
export const tagStyle: Style = {
  dim: (text) => `[dim]${text}[/dim]`,
  bold: (text) => `[bold]${text}[/bold]`,
  red: (text) => `[red]${text}[/red]`,
  green: (text) => `[green]${text}[/green]`,
  yellow: (text) => `[yellow]${text}[/yellow]`,
  cyan: (text) => `[cyan]${text}[/cyan]`,
};

/** Events as the loop yields them, short. */
export const ev = {
  turn: (turn = 1): AgentEvent => ({ type: 'turn_start', turn }),
  text: (text: string, turn = 1): AgentEvent => ({ type: 'text_delta', turn, text }),
  thinking: (thinking: string, turn = 1): AgentEvent => ({ type: 'thinking_delta', turn, thinking }),
  usage: (inputTokens: number, outputTokens: number, turn = 1): AgentEvent => ({
    type: 'usage',
    turn,
    usage: { inputTokens, outputTokens },
  }),
  requested: (callId: string, name: string, args: unknown, turn = 1): AgentEvent => ({
    type: 'tool_call_requested',
    turn,
    callId,
    name,
    arguments: args,
  }),
  decided: (callId: string, name: string, decision: ToolDecision = { type: 'allow' }, turn = 1): AgentEvent => ({
    type: 'tool_call_decided',
    turn,
    callId,
    name,
    decision,
  }),
  result: (callId: string, name: string, content: string, isError = false, turn = 1): AgentEvent => ({
    type: 'tool_result',
    turn,
    callId,
    name,
    content,
    isError,
  }),
  sub: (callId: string, event: AgentEvent, turn = 1): AgentEvent => ({ type: 'subagent', turn, callId, event }),
  done: (
    reason: DoneEvent['reason'],
    usage: Usage = { inputTokens: 0, outputTokens: 0 },
    extra: Partial<DoneEvent> = {},
  ): DoneEvent => ({ type: 'done', reason, turns: 1, text: '', usage, ...extra }),
};

/** A call asked for and allowed: the two events before it runs. */
export const started = (callId: string, name: string, args: unknown): AgentEvent[] => [
  ev.requested(callId, name, args),
  ev.decided(callId, name),
];

/** What render returned for each event, in order. */
export function renderEach(renderer: { render(event: AgentEvent): string }, events: readonly AgentEvent[]): string[] {
  return events.map((event) => renderer.render(event));
}

/** Every event of a run. */
export async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/**
 * Tools named like the kit's, that touch nothing: read answers `lines` numbered lines, edit and write say what
 * they did, bash fails.
 */
export function standInTools(lines = 6): Tool[] {
  const file = z.object({
    path: z.string(),
    old_string: z.string().optional(),
    new_string: z.string().optional(),
    content: z.string().optional(),
  });
  return [
    defineTool({
      name: 'read',
      description: 'read (a stand-in)',
      input: file,
      readOnly: true,
      execute: async () => Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join('\n'),
    }),
    defineTool({
      name: 'edit',
      description: 'edit (a stand-in)',
      input: file,
      execute: async ({ path }) => `Edited ${path}: replaced 1 occurrence`,
    }),
    defineTool({
      name: 'write',
      description: 'write (a stand-in)',
      input: file,
      execute: async ({ path }) => `Wrote ${path}`,
    }),
    defineTool({
      name: 'bash',
      description: 'bash (a stand-in)',
      input: z.object({ command: z.string() }),
      execute: async ({ command }) => {
        throw new Error(`${command}: command not found`);
      },
    }),
  ];
}
