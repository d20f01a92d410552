/**
 * Measures `npm run watch` as a learner feels it, on a throw-away copy of the repository (node_modules linked):
 * the time to the first screen, and from saving a stub to the screen with the first failing test, in the warm vitest
 * and (for comparison) with a process per run (--spawn). For the benchmark (issue 18):
 *
 *   npx tsx scripts/authors/watch-timing.ts [--saves=5] [--chapter=3]
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';
import { copyKit, solveUpTo } from './lib/kit-copy.js';
import { parseScriptArgs } from '../kit/args.js';

export interface WatchTiming {
  mode: 'warm' | 'spawn';
  /** Start of the process to the first screen (the chapter and its next stub, before any test ran), ms. */
  opening: number;
  /** Start of the process to the first complete screen (the first failing test), ms. */
  firstScreen: number;
  /** Each save to the screen showing the first failing test, ms. */
  saves: number[];
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

export async function measureWatch(
  options: { root?: string; chapter?: number; saves?: number; mode?: 'warm' | 'spawn' } = {},
): Promise<WatchTiming> {
  const root = options.root ?? ROOT;
  const chapter = options.chapter ?? 3;
  const copy = copyKit('kit-watch-timing-', root);
  try {
    // Chapters before `chapter` solved, `chapter` stubbed: the learner's position.
    solveUpTo(copy, chapter - 1);
    const args = [
      path.join(root, 'node_modules/tsx/dist/cli.mjs'),
      path.join(copy, 'scripts/kit.ts'),
      'watch',
      '--plain',
      `chapter${chapter}`,
      ...(options.mode === 'spawn' ? ['--spawn'] : []),
    ];
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
    delete env.KIT_SRC;
    delete env.KIT_TARGET;
    delete env.KIT_ROOT;
    const started = Date.now();
    const child = spawn(process.execPath, args, { cwd: copy, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const waitFor = async (pattern: RegExp, from: number, ms = 60_000) => {
      const until = Date.now() + ms;
      for (;;) {
        if (pattern.test(output.slice(from))) return;
        if (Date.now() > until || child.exitCode !== null)
          throw new Error(`watch did not show ${pattern}:\n${output.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    try {
      await waitFor(/running the tests…/, 0);
      const opening = Date.now() - started;
      await waitFor(/✗ [^\n]+\n[\s\S]*keys:/, 0);
      const firstScreen = Date.now() - started;
      // Let the background work of the first screen (type check, earlier chapters) finish, as a learner reading would.
      await new Promise((r) => setTimeout(r, 3000));
      const saves: number[] = [];
      const file = path.join(copy, 'starter/src/messages.ts');
      const text = readFileSync(file, 'utf8');
      for (let i = 0; i < (options.saves ?? 5); i++) {
        const from = output.length;
        const saved = Date.now();
        writeFileSync(file, `${text}\n// save ${i}\n`);
        await waitFor(/✗ [^\n]+\n/, from);
        saves.push(Date.now() - saved);
        await waitFor(/keys:/, from);
        await new Promise((r) => setTimeout(r, 3000));
      }
      return { mode: options.mode ?? 'warm', opening, firstScreen, saves };
    } finally {
      child.stdin.write('q\n');
      await Promise.race([new Promise((r) => child.once('close', r)), new Promise((r) => setTimeout(r, 3000))]);
      child.kill();
    }
  } finally {
    rmSync(copy, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseScriptArgs('npx tsx scripts/authors/watch-timing.ts [--saves=5] [--chapter=3]', {
    options: { saves: { type: 'string', default: '5' }, chapter: { type: 'string', default: '3' } },
  });
  const saves = Number(values.saves);
  const chapter = Number(values.chapter);
  for (const mode of ['warm', 'spawn'] as const) {
    const t = await measureWatch({ chapter, saves, mode });
    console.log(
      `watch (${mode}), chapter ${chapter}: first screen ${(t.opening / 1000).toFixed(2)}s, first failing test ${(t.firstScreen / 1000).toFixed(2)}s; save to first failing test, median of ${saves}: ${(median(t.saves) / 1000).toFixed(2)}s (${t.saves.map((s) => (s / 1000).toFixed(2)).join(', ')})`,
    );
  }
}
