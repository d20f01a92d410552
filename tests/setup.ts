/**
 * Runs before every test file. It keeps tests honest and offline:
 * - no provider key or base URL from the real environment can reach a test;
 * - HOME points at an empty temp directory, so nothing reads the real one;
 * - a test that reached an unfinished stub fails with that stub's TODO message, even if the code under test
 *   caught the error (the loop turns a throwing tool into an error result, for instance);
 * - no test reaches the network: a connection to any host but this machine's loopback fails, and fails the test
 *   even when the code under test caught the error (see helpers/no-network.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { todoHits } from 'kit/todo';
import './helpers/matchers.js';
import { networkHits } from './helpers/no-network.js';

for (const name of Object.keys(process.env)) {
  if (/^(ANTHROPIC|OPENAI|CLAUDE)_/.test(name)) delete process.env[name];
}
process.env.HOME = mkdtempSync(path.join(tmpdir(), 'kit-home-'));

beforeEach(() => {
  todoHits.length = 0;
  networkHits.length = 0;
});

afterEach((context) => {
  const reached = networkHits[0];
  networkHits.length = 0;
  if (reached) throw reached;
  const hit = todoHits[0];
  todoHits.length = 0;
  if (!hit) return;
  const errors = context.task.result?.errors ?? [];
  if (errors.some((error) => String(error?.message).includes('TODO(chapter'))) return;
  throw hit;
});
