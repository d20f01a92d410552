/** Helpers for chapter 16's tests: layers of settings, a workspace with a home beside it, and a fake runtime. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import type { SandboxState } from 'kit/sandbox/decision';
import { defaultSandboxPolicy, type SandboxPolicy } from 'kit/sandbox/policy';
import type { SandboxRuntime } from 'kit/sandbox/runtime';
import type { SandboxLayer, SandboxSettings } from 'kit/sandbox/settings';

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project folder and a home folder side by side, both fresh, and a folder outside both. */
export function folders(): { root: string; home: string; outside: string } {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'kit-ch16-')));
  made.push(base);
  const root = path.join(base, 'app');
  const home = path.join(base, 'home');
  const outside = path.join(base, 'outside');
  for (const dir of [root, home, outside]) mkdirSync(dir, { recursive: true });
  return { root, home, outside };
}

export const USER_FILE = '/home/me/.claude/settings.json';
export const PROJECT_FILE = '/repo/.claude/settings.json';
export const LOCAL_FILE = '/repo/.claude/settings.local.json';

export const user = (sandbox: SandboxSettings): SandboxLayer => ({ file: USER_FILE, scope: 'user', sandbox });
export const project = (sandbox: SandboxSettings): SandboxLayer => ({ file: PROJECT_FILE, scope: 'project', sandbox });
export const local = (sandbox: SandboxSettings): SandboxLayer => ({ file: LOCAL_FILE, scope: 'local', sandbox });

/** A running sandbox's state for the workspace `root`, with `change` applied to the default policy. */
export function running(root: string, change: (policy: SandboxPolicy) => void = () => {}): SandboxState {
  const policy = defaultSandboxPolicy({ root, home: path.join(root, '..', 'home') });
  policy.enabled = true;
  change(policy);
  return { policy, available: true };
}

/** Everything a fake runtime was asked to do, in order. */
export type RuntimeStep =
  | { step: 'missing' }
  | { step: 'start'; policy: SandboxPolicy }
  | { step: 'wrap'; command: string; id: string; signal?: AbortSignal }
  | { step: 'violations'; id: string; output: string }
  | { step: 'afterCommand'; id: string }
  | { step: 'stop' };

/**
 * A runtime that runs nothing itself: wrap marks the command (`echo inside; <command>`, so a test sees it ran
 * wrapped), violations appends `[violations of <id>]` when `refused` holds for the id, and every call is recorded.
 */
export function fakeRuntime(
  options: {
    missing?: string[];
    start?: () => Promise<void>;
    stop?: () => Promise<void>;
    wrap?: (command: string) => Promise<string>;
    refused?: boolean;
  } = {},
) {
  const steps: RuntimeStep[] = [];
  const runtime: SandboxRuntime = {
    async missing() {
      steps.push({ step: 'missing' });
      return options.missing ?? [];
    },
    async start(policy) {
      steps.push({ step: 'start', policy });
      await options.start?.();
    },
    async wrap(command, id, signal) {
      steps.push({ step: 'wrap', command, id, signal });
      return options.wrap ? options.wrap(command) : `echo inside; ${command}`;
    },
    violations(id, output) {
      steps.push({ step: 'violations', id, output });
      return options.refused ? `${output}\n[violations of ${id}]` : output;
    },
    afterCommand(id) {
      steps.push({ step: 'afterCommand', id });
    },
    async stop() {
      steps.push({ step: 'stop' });
      await options.stop?.();
    },
  };
  return { runtime, steps, names: () => steps.map((one) => one.step) };
}
