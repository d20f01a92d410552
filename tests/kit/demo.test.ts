/**
 * npm run demo -- chapterN (scripts/demo.ts): each chapter's feature shown offline by npm run agent with a scripted
 * model (scripts/agent/scripted-provider.ts). Every demo runs against the reference solution and shows what it says
 * it shows; against the untouched starter it says it runs the reference, and why.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMOS } from '../../scripts/demo.js';
import { CHAPTERS } from '../../scripts/lib/chapters.js';
import { sandboxMissing } from '../../solution/src/sandbox/runtime.js';

/** Whether the sandbox can run here: chapter 16's demo shows it, or the line that says it cannot. */
const SANDBOX_MISSING = await sandboxMissing();
import { copyRepo, KIT_RUN_MS, REPO, solveUpTo } from './helpers.js';

function demo(...args: string[]): Promise<{ code: number | null; output: string }> {
  return demoIn(REPO, ...args);
}

function demoIn(root: string, ...args: string[]): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  for (const name of Object.keys(env)) if (/^(ANTHROPIC|OPENAI|CLAUDE|KIT)_/.test(name)) delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/demo.ts'), ...args], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), KIT_RUN_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** What each demo must show, beyond its own "look" line. */
const SHOWS: Record<number, Array<string | RegExp>> = {
  1: ['Hello! This is a scripted model'],
  2: ['● read(notes.txt)', 'notes.txt has 3 lines.'],
  3: ['● read(src/app.ts)', 'src/app.ts has two TODO comments'],
  4: [
    '● glob(**/*.ts)',
    '● grep(TODO)',
    '6 src/app.ts',
    '+   return items.filter((item) => item.trim() !== "").length;',
  ],
  5: [
    /⇢ request 1 to POST \/v1\/messages: model claude-demo, streamed, tools read, /,
    /⇢ request 2 to POST [\s\S]*"type":"tool_use","id":"toolu_demo_1_1","name":"read".*"type":"tool_result","tool_use_id":"toolu_demo_1_1"/,
    'notes.txt lists three chores.',
  ],
  6: ['Streaming means you see each piece'],
  7: ['{"type":"system","subtype":"init"', '"tool_use_id":"demo_0_1"', '{"type":"result","subtype":"success"'],
  8: [/● bash\(ls -la\)\n\s+⎿ ok/, /● bash\(ls && rm -rf build\)\n\s+⎿ denied/],
  9: [/● read\(build\.log\)\n\s+⎿ ok/, /● read\(\.agent\/outputs\/demo_0_3\.txt\)\n\s+⎿ ok/, 'step 910: compiled'],
  10: [
    /⟳ retrying in [\d.]+ s \(attempt 2 of \d+\): overloaded \(529\)/,
    /attempt 3 of \d+\): overloaded \(529\)/,
    'Answered on the third try.',
  ],
  11: [/mcp: fs \(\d+ tools\)/, '● mcp__fs__list_directory', '[FILE] notes.txt'],
  12: ['Noted: the launch is on Friday.', 'You told me the launch is on Friday.'],
  13: ['● task(description: "Count TODOs"', '2 TODO comments in src/app.ts.', 'The sub-agent found 2 TODO comments.'],
  14: [
    /→ initialize [\s\S]*← answer 1: \{"protocolVersion":1/,
    /← session\/update tool_call: \{"toolCallId":"toolu_demo_1_1","title":"read","kind":"read","status":"pending"/,
    /← session\/update tool_call_update: \{"toolCallId":"toolu_demo_1_1","status":"completed"/,
    '← session/update agent_message_chunk…: "notes.txt lists three chores."',
    '{"stopReason":"end_turn"}',
  ],
  15: ['⎿ blocked: rm is not allowed in this project: move files to trash/ instead'],
  16: SANDBOX_MISSING.length
    ? [/sandbox: not running \(/, /● bash\(echo made > made\.txt\)\n\s+⎿ denied/]
    : [
        'sandbox: on',
        /● bash\(echo made > made\.txt\)\n\s+⎿ ok\n\s+exit code: 0/,
        /● bash\(echo leaked > \/tmp\/kit-demo-leaked\.txt\)\n\s+⎿ ok\n\s+exit code: 1/,
      ],
};

describe('npm run demo (scripts/demo.ts)', () => {
  it('has a demo for every chapter, each checked below, and lists them for a chapter that does not exist', async () => {
    expect(Object.keys(SHOWS).sort(), 'each demo is checked below').toEqual(Object.keys(DEMOS).sort());
    expect(
      Object.keys(DEMOS)
        .map(Number)
        .sort((a, b) => a - b),
      'one per chapter',
    ).toEqual(CHAPTERS.map((chapter) => chapter.number));
    const none = await demo('chapter42');
    expect(none.code).toBe(2);
    expect(none.output).toMatch(/There is no chapter 42\. The demos:\n\n\s+chapter1\s+Messages and the mock provider/);
  });

  // Two at a time: each is a whole agent run, mostly waiting.
  const chapters = Object.keys(DEMOS).map(Number);
  for (let i = 0; i < chapters.length; i += 2) {
    const pair = chapters.slice(i, i + 2);
    it(`chapter${pair.join(' and chapter')}: the reference solution shows the feature, offline`, async () => {
      const runs = await Promise.all(pair.map((n) => demo(`chapter${n}`, '--solution')));
      for (const [j, run] of runs.entries()) {
        const n = pair[j]!;
        expect(run.code, run.output).toBe(0);
        expect(run.output).toContain(`: ${DEMOS[n]!.look}.`);
        // Chapters 5 and 14 answer through a fake Anthropic API on this machine (14: npm run acp, no banner).
        if (n !== 14)
          expect(run.output).toContain(
            n === 5 ? 'anthropic claude-demo at ' : 'scripted demo model (npm run demo; no network)',
          );
        for (const shown of SHOWS[n]!)
          if (typeof shown === 'string') expect(run.output, `chapter ${n}`).toContain(shown);
          else expect(run.output, `chapter ${n}`).toMatch(shown);
      }
    });
  }

  it("runs the reference while the chapter's stubs are not written, and says so", async () => {
    const run = await demo('chapter10');
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Running the reference solution: chapter 10 is not finished in starter\/src yet \(.+\)/);
  });

  it("runs the learner's own code once the chapter's stubs are written", async () => {
    const copy = copyRepo({ chapters: 3 });
    try {
      solveUpTo(copy.root, 3);
      const run = await demoIn(copy.root, 'chapter3');
      expect(run.code, run.output).toBe(0);
      expect(run.output).toContain('Running your code (starter/src, as npm run agent -- --starter)');
      expect(run.output).toContain('src/app.ts has two TODO comments');
    } finally {
      copy.cleanup();
    }
  });
});
