/**
 * workspaces-baseline.json (scripts/authors/lib/workspace-baseline.ts): verify reads a workspace's outcomes back only
 * while every input is as it was, and gives back exactly the outcomes it recorded.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  readWorkspaceBaseline,
  recordedOutcomes,
  workspaceKey,
  writeWorkspaceBaseline,
} from '../../scripts/authors/lib/workspace-baseline.js';
import type { TestOutcome } from '../../scripts/authors/lib/verify-reporter.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'kit-ws-baseline-'));
  writeFileSync(path.join(root, 'package-lock.json'), '{"lockfileVersion":3}');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const outcome = (name: string, state: string, messages: string[] = []): TestOutcome => ({
  project: 'wrong-3-x',
  file: 'tests/chapter03/loop.test.ts',
  name,
  state,
  messages,
});
const expected = [
  { file: 'tests/chapter03/loop.test.ts', name: 'a', state: 'passed' },
  { file: 'tests/chapter03/loop.test.ts', name: 'b', state: 'passed' },
  { file: 'tests/chapter03/loop.test.ts', name: 'c', state: 'skipped' },
];

describe('workspaces-baseline.json', () => {
  it('gives back the outcomes it recorded: failures with their messages, passes, skips and a file that did not load', () => {
    const outcomes = [
      outcome('a', 'passed'),
      outcome('b', 'failed', ['AssertionError: runTools step 2: expected 1 to be 2']),
      outcome('c', 'skipped'),
      outcome('(file failed to load)', 'failed', ['SyntaxError: nope']),
    ];
    writeWorkspaceBaseline(new Map([['wrong-3-x', { key: 'k1', outcomes, expected }]]), false, root);
    const back = recordedOutcomes(readWorkspaceBaseline(root), 'wrong-3-x', 'k1', expected);
    expect(back, 'every outcome comes back as the run gave it').toEqual(outcomes);
  });

  it('gives them back whatever order the run that expects them lists its tests in', () => {
    const outcomes = [
      outcome('a', 'failed', ['Error: a']),
      outcome('b', 'passed'),
      outcome('c', 'failed', ['Error: c']),
    ];
    writeWorkspaceBaseline(new Map([['wrong-3-x', { key: 'k1', outcomes, expected }]]), false, root);
    const back = recordedOutcomes(readWorkspaceBaseline(root), 'wrong-3-x', 'k1', [...expected].reverse());
    const byName = (list: TestOutcome[]) => Object.fromEntries(list.map((o) => [o.name, [o.state, o.messages]]));
    expect(byName(back!), 'each test keeps its own state and messages').toEqual(byName(outcomes));
  });

  it('records a run whose tests are not the expected ones whole, and gives it back as it was', () => {
    const outcomes = [outcome('a', 'passed'), outcome('renamed b', 'passed')];
    writeWorkspaceBaseline(new Map([['wrong-3-x', { key: 'k1', outcomes, expected }]]), false, root);
    expect(recordedOutcomes(readWorkspaceBaseline(root), 'wrong-3-x', 'k1', expected)).toEqual(outcomes);
  });

  it('reads nothing back under another key or for a workspace it never recorded', () => {
    writeWorkspaceBaseline(
      new Map([['wrong-3-x', { key: 'k1', outcomes: [outcome('a', 'passed')], expected }]]),
      false,
      root,
    );
    const baseline = readWorkspaceBaseline(root);
    expect(recordedOutcomes(baseline, 'wrong-3-x', 'k2', expected)).toBeUndefined();
    expect(recordedOutcomes(baseline, 'wrong-3-y', 'k1', expected)).toBeUndefined();
  });

  it('keeps the other workspaces only when asked (a verify of some chapters), and drops them otherwise', () => {
    const one = (key: string) => ({ key, outcomes: [outcome('a', 'passed')], expected: expected.slice(0, 1) });
    writeWorkspaceBaseline(new Map([['wrong-1-a', one('k1')]]), false, root);
    writeWorkspaceBaseline(new Map([['wrong-2-b', one('k2')]]), true, root);
    expect(Object.keys(readWorkspaceBaseline(root).workspaces)).toEqual(['wrong-1-a', 'wrong-2-b']);
    writeWorkspaceBaseline(new Map([['wrong-2-b', one('k3')]]), false, root);
    expect(Object.keys(readWorkspaceBaseline(root).workspaces)).toEqual(['wrong-2-b']);
  });

  it('keys a workspace by every byte of its inputs and of what runs them, not by the order they are listed in', () => {
    const inputs = new Map([
      ['src/agent.ts', 'export const a = 1;\n'],
      ['tests/chapter03/loop.test.ts', "it('a', () => {});\n"],
    ]);
    const key = workspaceKey(inputs, root);
    expect(workspaceKey(new Map([...inputs].reverse()), root), 'the same inputs listed the other way round').toBe(key);
    expect(workspaceKey(new Map([...inputs, ['src/agent.ts', 'export const a = 2;\n']]), root)).not.toBe(key);
    expect(workspaceKey(new Map([...inputs, ['src/extra.ts', '']]), root), 'one input more').not.toBe(key);
    writeFileSync(path.join(root, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}');
    expect(workspaceKey(inputs, root), 'another lock file').not.toBe(key);
  });
});
