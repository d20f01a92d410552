/**
 * npm run watch [-- chapter3] [--plain] [--poll] [--spawn]: re-runs the current chapter's tests on every save in
 * starter/ and shows the first failing test, the stub to edit and the hint command; then the type errors of the
 * learner's files, and a line for any earlier chapter that a change broke.
 *
 * One vitest instance stays warm for the whole session (vitest's Node API): a save re-runs one chapter in that
 * instance, a fraction of a second instead of a new process per save. Each run tests the files as they are on disk
 * when it starts (the warm instance compares every file it read with the disk first, so a save the watcher missed
 * cannot leave old code behind); a save or key during a run stops it, and `r` starts from a clean slate. If vitest
 * cannot start that way (or with --spawn), each run is a child process as before. Saves are seen by fs.watch, or by
 * polling with --poll (and whenever fs.watch fails).
 *
 * Keys: n next chapter, p previous chapter, h hint, l list, r re-run, q quit. Without a terminal (or with --plain),
 * type the key and Enter.
 *
 * This file reads the command line and starts the session; the parts are in scripts/kit/watch/: session.ts (the runs,
 * the saves and the keys), screen.ts (what a run shows), runners.ts and warm-vitest.mjs (how the tests run),
 * file-watcher.ts (how saves are seen) and terminal.ts.
 */
import { chapterArg, parseCommandArgs, UsageError } from './args.js';
import { chapterStubs, likelyChapter } from './stubs.js';
import { bold, chapterTitle, cyan, dim, yellow } from './ui.js';
import { type ChapterRunner, spawnRunner, warmRunner } from './watch/runners.js';
import { type WatchOptions, WatchSession } from './watch/session.js';
import { print, slow } from './watch/terminal.js';

const WATCH_USAGE = 'npm run watch [-- chapterN] [--plain] [--poll] [--interval=MS] [--spawn]';

export async function watchCommand(root: string, args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(WATCH_USAGE, {
    args,
    allowPositionals: true,
    options: {
      plain: { type: 'boolean' },
      poll: { type: 'boolean' },
      interval: { type: 'string', default: '500' },
      spawn: { type: 'boolean' },
    },
  });
  const interval = Number(values.interval);
  if (!(interval > 0))
    throw new UsageError(`--interval wants milliseconds, not "${values.interval}"\nUsage: ${WATCH_USAGE}`);
  const options: WatchOptions = {
    root,
    plain: values.plain || !process.stdin.isTTY || !process.stdout.isTTY,
    poll: values.poll ?? false,
    interval,
    chapter: chapterArg(root, positionals),
    spawn: values.spawn ?? false,
  };
  return runWatch(options);
}

async function runWatch(options: WatchOptions): Promise<number> {
  const opening = printOpening(options.root, options.chapter);
  const runner = await startRunner(options.root, options.spawn ?? false);
  return new WatchSession(options, opening, runner).start();
}

/**
 * A first screen at once, from the stubs alone (no test has run yet): the chapter and its first unwritten stub.
 * Returns that chapter: the one named, else the first with unwritten stubs.
 */
function printOpening(root: string, named: number | undefined): number {
  const opening = named ?? likelyChapter(root);
  const firstTodo = chapterStubs(root, opening).find((stub) => stub.todo);
  print(`${bold(`Chapter ${opening} · ${chapterTitle(opening)}`)}   ${dim('running the tests…')}`);
  // Only a guess until the earlier chapters' tests have run: say so, so the learner does not take it for a verdict.
  const guessed = named === undefined && opening > 1;
  if (firstTodo)
    print(
      `${bold(guessed ? 'First unwritten stub:' : 'Next stub:')} ${cyan(`${firstTodo.file}:${firstTodo.line}`)}  ${dim(`(#region chapter ${firstTodo.chapter}: ${firstTodo.name})`)}`,
    );
  if (guessed) {
    const done = opening === 2 ? 'Chapter 1 has' : `Chapters 1-${opening - 1} have`;
    print(dim(`${done} no stubs left; their tests run next, and the first of them that fails is shown instead.`));
  }
  return opening;
}

/** One warm vitest for the session; a vitest process per run with --spawn, or when the warm one cannot start. */
async function startRunner(root: string, spawn: boolean): Promise<ChapterRunner> {
  if (spawn) return spawnRunner(root);
  try {
    return await slow('Starting vitest…', warmRunner(root));
  } catch (error) {
    print(
      yellow(
        `Could not keep vitest warm (${(error as Error).message.split('\n')[0]}): starting it for each run instead.`,
      ),
    );
    return spawnRunner(root);
  }
}
