/**
 * How npm run watch runs a chapter's tests: in one warm vitest instance kept for the session (a fraction of a second
 * a save), or a child vitest process per run (--spawn, or when the warm one cannot start).
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { chapterDir } from '../../lib/chapters.js';
import { toOutcomes, type RawReport } from '../outcomes.js';
import { KitRunError, runTests, type RunResult } from '../run-tests.js';

/** One run's outcomes; `cancelled` when it was stopped before it ended (what it holds is then not to be shown). */
export type ChapterRun = RunResult & { cancelled?: boolean };

/** Runs chapters' tests: in one warm vitest instance, or a child process per run. Runs one at a time. */
export interface ChapterRunner {
  readonly mode: 'warm' | 'spawn';
  /**
   * Runs the chapters' tests on the files as they are on disk when the run starts. `signal` stops this run (or drops
   * it if it has not started): it then resolves with `cancelled`.
   */
  run(chapters: number[], options?: { signal?: AbortSignal }): Promise<ChapterRun>;
  /** Files changed on disk: forget their transformed code. */
  invalidate(files: string[]): void;
  /** Forget every transformed module: the next run starts from a clean slate. */
  reset(): void;
  close(): Promise<void>;
}

export function spawnRunner(root: string): ChapterRunner {
  return {
    mode: 'spawn',
    async run(chapters, { signal } = {}) {
      try {
        return await runTests({ root, chapters, progress: false, signal });
      } catch (error) {
        if (signal?.aborted) return { tests: [], errors: [], duration: 0, cancelled: true };
        throw error;
      }
    },
    // Each run is a new vitest: nothing is kept between runs.
    invalidate: () => {},
    reset: () => {},
    close: async () => {},
  };
}

/**
 * One vitest instance, kept for the whole session in a child process (warm-vitest.mjs: plain Node, so neither vitest
 * nor its workers load through tsx), with the kit's config: the `kit` alias on starter/src, or on `options.src` (an
 * absolute path) when given. Rejects if vitest cannot start.
 */
export async function warmRunner(root: string, options: { src?: string } = {}): Promise<ChapterRunner> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.KIT_SRC;
  delete env.KIT_TARGET;
  if (options.src) env.KIT_SRC = options.src;
  const child = fork(path.join(import.meta.dirname, 'warm-vitest.mjs'), [], {
    cwd: root,
    env,
    execArgv: [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  type Reply =
    | { type: 'ready' }
    | { type: 'result'; id: number; report: RawReport; duration: number; cancelled: boolean }
    | { type: 'error'; id?: number; message: string };
  const waiting = new Map<number, { resolve: (r: ChapterRun) => void; reject: (e: Error) => void }>();
  let exited = false;
  await new Promise<void>((resolve, reject) => {
    child.on('message', (reply: Reply) => {
      if (reply.type === 'ready') resolve();
      else if (reply.type === 'result') {
        waiting
          .get(reply.id)
          ?.resolve({ ...toOutcomes(root, reply.report), duration: reply.duration, cancelled: reply.cancelled });
        waiting.delete(reply.id);
      } else if (reply.id === undefined) reject(new Error(reply.message));
      else {
        waiting.get(reply.id)?.reject(new KitRunError(reply.message));
        waiting.delete(reply.id);
      }
    });
    child.on('exit', (code) => {
      exited = true;
      const error = new KitRunError(
        `the warm vitest stopped (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' ')}`,
      );
      reject(error);
      for (const { reject: fail } of waiting.values()) fail(error);
      waiting.clear();
    });
    child.on('error', reject);
  });
  let next = 0;
  const send = (message: object) => {
    if (!exited && child.connected) child.send(message);
  };
  return {
    mode: 'warm',
    run(chapters, { signal } = {}) {
      if (exited) return Promise.reject(new KitRunError('the warm vitest has stopped'));
      const id = ++next;
      return new Promise<ChapterRun>((resolve, reject) => {
        const cancel = () => send({ type: 'cancel', id });
        signal?.addEventListener('abort', cancel, { once: true });
        const settled = () => signal?.removeEventListener('abort', cancel);
        waiting.set(id, {
          resolve: (r) => (settled(), resolve(r)),
          reject: (e) => (settled(), reject(e)),
        });
        send({ type: 'run', id, filters: chapters.map(chapterDir) });
        if (signal?.aborted) cancel();
      });
    },
    invalidate(files) {
      send({ type: 'invalidate', files });
    },
    reset() {
      send({ type: 'reset' });
    },
    async close() {
      send({ type: 'close' });
      await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => setTimeout(r, 1500))]);
      if (!exited) child.kill();
    },
  };
}
