/** Helpers for the command hook tests: options that record reports, a runner that records calls, a small agent. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { AgentEvent } from 'kit/agent-events';
import {
  emptyHookConfig,
  type CommandHookOptions,
  type HookCommand,
  type HookConfig,
  type HookGroup,
  type HookRun,
  type HookRunOptions,
} from 'kit/capstone/command-hooks';
import { Agent } from 'kit/agent';
import { assistantText, assistantToolCalls, type Message } from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import { defineTool, ToolSet } from 'kit/tool';
import { HANG_MS } from '../helpers/wait.js';

/** A command hook; `timeout` in seconds. */
export const cmd = (command: string, timeout?: number): HookCommand => ({
  type: 'command',
  command,
  ...(timeout !== undefined ? { timeout } : {}),
});

/** A config with only the given events' groups. */
export const config = (groups: Partial<HookConfig>): HookConfig => ({ ...emptyHookConfig(), ...groups });

/** One group. */
export const group = (matcher: string | undefined, ...hooks: HookCommand[]): HookGroup => ({
  ...(matcher !== undefined ? { matcher } : {}),
  hooks,
});

/** Options for the hooks in `root`, with every report kept in `reports`. */
export function hookOptions(root: string, extra: Partial<CommandHookOptions> = {}) {
  const reports: string[] = [];
  const options: CommandHookOptions = {
    cwd: root,
    sessionId: 'session-15',
    report: (note) => reports.push(note),
    ...extra,
  };
  return { options, reports };
}

/** A runner that answers `outcome` without starting anything, and records what it was asked to run. */
export function fakeRunner(outcome: Partial<HookRun> = {}) {
  const calls: Array<{ command: string; input: Record<string, unknown>; options: HookRunOptions }> = [];
  const run = async (command: string, input: object, options: HookRunOptions): Promise<HookRun> => {
    calls.push({ command, input: input as Record<string, unknown>, options });
    return { exitCode: 0, stdout: '', stderr: '', timedOut: false, ...outcome };
  };
  return { run, calls };
}

/** A signal that never aborts. */
export const never = () => new AbortController().signal;

/**
 * The JSON a hook wrote to `file` in `root` (the tests' hooks save their stdin with `cat > file`), or undefined when
 * the hook never ran (so the assertion that reads it fails with its own message).
 */
export function readJson(root: string, file: string): Record<string, unknown> | undefined {
  if (!existsSync(path.join(root, file))) return undefined;
  return JSON.parse(readFileSync(path.join(root, file), 'utf8')) as Record<string, unknown>;
}

/** Whether process `pid` still runs (a zombie waiting to be reaped counts as gone). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** Waits until `check` is true, or only a hang would still be waiting (HANG_MS); returns the last answer. */
export async function eventually(check: () => boolean, ms = HANG_MS): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/**
 * An agent with one tool, `bash`, that only records the commands it was given, on a script where the model calls
 * bash with `command` and then answers "done".
 */
export function bashAgent(
  root: string,
  hooks: ConstructorParameters<typeof Agent>[0]['hooks'],
  command = 'rm -rf build',
) {
  const ran: string[] = [];
  const bash = defineTool({
    name: 'bash',
    description: 'runs a command (a stand-in that only records it)',
    input: z.object({ command: z.string() }),
    execute: async ({ command }) => {
      ran.push(command);
      return `ran: ${command}`;
    },
  });
  const provider = new MockProvider([
    assistantToolCalls([{ id: 'c1', name: 'bash', arguments: { command } }]),
    assistantText('done'),
  ]);
  const agent = new Agent({ provider, tools: new ToolSet([bash]), cwd: root, hooks });
  return { agent, provider, ran };
}

export const ask = (text: string): Message[] => [{ role: 'user', content: text }];

/** Every event of a run. */
export async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** The tool results of a recorded request. */
export const toolResults = (request: { messages: readonly Message[] }) =>
  request.messages.filter((m): m is Extract<Message, { role: 'tool' }> => m.role === 'tool');
