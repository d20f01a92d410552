/** Helpers for the factory tests: a workspace with a home beside it, settings as files, a built agent's run. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach } from 'vitest';
import type { AgentEvent } from 'kit/agent-events';
import { emptyHookConfig } from 'kit/capstone/command-hooks';
import { buildAgent, type AgentSettings, type BuiltAgent, type FactoryConfig } from 'kit/capstone/factory';
import { userMessage } from 'kit/messages';
import type { ScriptStep } from 'kit/mock-provider';
import { MockProvider } from 'kit/mock-provider';

const made: string[] = [];
const built: BuiltAgent[] = [];
afterEach(async () => {
  for (const one of built.splice(0)) await one.close();
});
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project folder (a git repository) and a home folder, both fresh. */
export function workspace(): { cwd: string; home: string } {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'kit-ch15-factory-')));
  made.push(base);
  const cwd = path.join(base, 'app');
  const home = path.join(base, 'home');
  mkdirSync(path.join(cwd, '.git'), { recursive: true });
  mkdirSync(home, { recursive: true });
  return { cwd, home };
}

/** Writes `files` (relative path → text, or an object written as JSON) under `root`. */
export function writeFiles(root: string, files: Record<string, string | object>): void {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
}

/** Settings with no files behind them. */
export function noSettings(extra: Partial<AgentSettings> = {}): AgentSettings {
  return { rules: [], files: [], hooks: emptyHookConfig(), ...extra };
}

/** buildAgent on a scripted provider, closed after the test. Retries never wait. */
export async function build(script: ScriptStep[], config: Partial<FactoryConfig> & { cwd: string; home: string }) {
  const provider = new MockProvider(script);
  const agent = await buildAgent({
    provider,
    settings: noSettings(),
    retry: { sleep: async () => {}, random: () => 0 },
    ...config,
  });
  built.push(agent);
  return { built: agent, provider };
}

/** Runs one prompt on a built agent's history and returns its events. */
export async function runPrompt(one: BuiltAgent, prompt: string): Promise<AgentEvent[]> {
  one.history.push(userMessage(prompt));
  const events: AgentEvent[] = [];
  for await (const event of one.agent.run(one.history)) events.push(event);
  return events;
}

/** The done event of a run. */
export function doneOf(events: readonly AgentEvent[]): Extract<AgentEvent, { type: 'done' }> {
  const done = events.at(-1);
  if (done?.type !== 'done') throw new Error('the run did not end with a done event');
  return done;
}

/** The content of the tool result for call `id` in the history. */
export function resultText(one: BuiltAgent, id: string): string {
  const result = one.history.find((m) => m.role === 'tool' && m.toolCallId === id);
  if (!result || result.role !== 'tool') throw new Error(`no result for call ${id} in the history`);
  return result.content;
}
