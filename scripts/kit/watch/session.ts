/**
 * One `npm run watch` session: the chapter on screen, its runs one at a time, the saves that start them again, and
 * the keys (n, p, h, l, r, q).
 */
import path from 'node:path';
import { chaptersWithTests } from '../args.js';
import { hintText } from '../hint.js';
import { progressTable } from '../progress.js';
import type { RunResult } from '../run-tests.js';
import { chapterStubs } from '../stubs.js';
import { typecheckStarter } from '../typecheck.js';
import { dim, red, yellow } from '../ui.js';
import { tsFiles, watchTree } from './file-watcher.js';
import { type ChapterRunner, spawnRunner } from './runners.js';
import { type Extras, focusStub, type Regression, renderChapter, renderExtras } from './screen.js';
import { CLEAR_SCREEN, listenForKeys, print, slow } from './terminal.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

export interface WatchOptions {
  root: string;
  plain: boolean;
  poll: boolean;
  /** Polling interval in ms. */
  interval: number;
  chapter?: number;
  /** A child vitest process per run instead of one warm instance. */
  spawn?: boolean;
}

/** What the screen shows: a chapter's last run, what was found after it (extras), and the status line. */
interface Screen {
  chapter: number;
  result: RunResult;
  extras: Extras;
  status: string;
}

/** One `npm run watch`: the chapter on screen, the runs, the saves and the keys, until `q`. */
export class WatchSession {
  private readonly root: string;
  private readonly plain: boolean;
  private readonly options: WatchOptions;
  private readonly all: number[];
  private runner: ChapterRunner;
  private chapter: number;
  /**
   * Without a chapter named, watch starts on the first chapter with unwritten stubs; the earlier chapters are checked
   * right after the first screen, and the first of them that fails is shown instead. Settled once that is decided.
   */
  private settled: boolean;
  /** The chapter `h` gives a hint for: the one the focused failure's stub belongs to. */
  private hintChapter: number;
  private closed = false;
  private watcher: ReturnType<typeof watchTree> | undefined;
  /** Latest results per chapter, cleared by a save. */
  private readonly results = new Map<number, RunResult>();
  /** Counts saves and keys: what a background step finds for an older generation is not shown. */
  private generation = 0;
  private screen: Screen | undefined;
  private running = false;
  /** A run was asked for while one was under way: run again when it ends. */
  private again = false;
  /** The session's run under way (the chapter's, or the earlier chapters' after it) and the type check: stopped by
   * the next save or key, whose own run shows the files as they are then. */
  private background: AbortController | undefined;
  /** Why the next run starts, said as it starts: the files saved since the last run began, or a key. */
  private saved = new Set<string>();
  private reason: string | undefined;
  private readonly keysLine: string;

  constructor(options: WatchOptions, opening: number, runner: ChapterRunner) {
    this.options = options;
    this.root = options.root;
    this.plain = options.plain;
    this.all = chaptersWithTests(options.root);
    this.runner = runner;
    this.chapter = opening;
    this.settled = options.chapter !== undefined;
    this.hintChapter = opening;
    this.keysLine = dim(
      `keys: n next chapter · p previous chapter · h hint · l list · r re-run · q quit${this.plain ? ' (type the key, then Enter)' : ''}`,
    );
  }

  /** Watches the saves and the keys and runs the chapter; resolves with the exit code once the learner quits. */
  start(): Promise<number> {
    const stopSaves = this.watchSaves();
    return new Promise<number>((resolve) => {
      let stopKeys = () => {};
      const quit = async () => {
        if (this.closed) return;
        this.closed = true;
        stopSaves();
        stopKeys();
        print('Bye!');
        await Promise.race([this.runner.close(), new Promise((r) => setTimeout(r, 1000))]).catch(() => undefined);
        resolve(0);
      };
      stopKeys = listenForKeys(this.plain, (key) => this.onKey(key, quit));
      process.once('SIGINT', () => void quit());
      process.once('SIGTERM', () => void quit());
      void this.run();
    });
  }

  private show(): void {
    const screen = this.screen;
    if (!screen || this.closed) return;
    if (!this.plain) process.stdout.write(CLEAR_SCREEN);
    else print(dim('─'.repeat(60)));
    print(renderChapter(this.root, screen.chapter, screen.result.tests, screen.result.errors, screen.extras));
    print('');
    print(dim(screen.status));
    print(this.keysLine);
    print(dim('Any chapter: npm run watch -- chapter3'));
  }

  /** In plain mode the extras are appended; on a terminal the whole screen is drawn again. */
  private showExtras(extras: Extras): void {
    const screen = this.screen;
    if (!screen || this.closed) return;
    const before = renderExtras(screen.extras);
    screen.extras = { ...screen.extras, ...extras };
    const after = renderExtras(screen.extras);
    if (after === before) return;
    if (!this.plain) this.show();
    else if (after) print(after.replace(/^\n/, ''));
  }

  /** Runs the current chapter (again after a save or a key that came meanwhile), one run at a time. */
  private async run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do await this.runOnce();
      while (this.again && !this.closed);
    } catch (error) {
      print(red(`The tests could not run: ${(error as Error).message}`));
      if (this.runner.mode === 'warm' && /warm vitest/.test((error as Error).message)) {
        print(yellow('Starting vitest for each run from now on.'));
        this.runner = spawnRunner(this.root);
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * One run of the chapter and its screen, then, beside it, the type errors and the earlier chapters. A save or a
   * key while it runs stops it and runs again: a screen always shows the files as they were when its run began, with
   * nothing saved since.
   */
  private async runOnce(): Promise<void> {
    this.again = false;
    const current = this.chapter;
    const mine = this.generation;
    this.background = new AbortController();
    const { signal } = this.background;
    // Said at once, not after a second: the screen above is about to change.
    const files = [...this.saved].sort();
    this.saved.clear();
    const why = files.length ? ` after saving ${files.join(', ')}` : (this.reason ?? '');
    this.reason = undefined;
    if (mine > 0) print(dim(`Running chapter ${current}${why}…`));
    const result = await this.runner.run([current], { signal });
    if (this.closed || mine !== this.generation || result.cancelled) return;
    this.results.set(current, result);
    this.hintChapter = focusStub(this.root, current, result.tests)?.chapter ?? current;
    this.screen = {
      chapter: current,
      result,
      extras: {},
      status: `ran ${result.tests.length} tests in ${seconds(result.duration)} at ${new Date().toLocaleTimeString()}; watching starter/src (${this.watcher?.mode ?? 'events'}, vitest ${this.runner.mode})`,
    };
    this.show();
    if (this.again) return;
    // A save stops both (interrupt).
    // The same check as npm test -- chapterN (what its tests load), and the same stored result.
    const types = typecheckStarter(this.root, { chapters: [current], signal }).then(
      (r) => {
        if (mine === this.generation && this.screen?.chapter === current) this.showExtras({ typeErrors: r.errors });
      },
      () => undefined,
    );
    if (!(await this.checkEarlier(current, mine, signal))) return;
    this.settled = true;
    await types;
  }

  /**
   * Runs the chapters before `current` and shows those that fail now; at start-up, moves to the first of them (an
   * earlier chapter that does not pass yet is where the learner is). False when the run is stale or moved on.
   */
  private async checkEarlier(current: number, mine: number, signal: AbortSignal): Promise<boolean> {
    const earlier = this.all.filter((n) => n < current);
    if (!earlier.length) return true;
    const before = await this.runner.run(earlier, { signal });
    if (this.closed || mine !== this.generation || this.chapter !== current || before.cancelled) return false;
    const regressions: Regression[] = [];
    for (const n of earlier) {
      const tests = before.tests.filter((t) => t.chapter === n);
      this.results.set(n, { tests, errors: [], duration: 0 });
      const failed = tests.filter((t) => t.status === 'failed').length;
      if (failed)
        regressions.push({
          chapter: n,
          failed,
          total: tests.length,
          unfinished: chapterStubs(this.root, n).some((stub) => stub.todo),
        });
    }
    if (!this.settled && regressions.length) {
      this.settled = true;
      this.chapter = regressions[0]!.chapter;
      print(dim(`Chapter ${this.chapter} has failing tests: showing it first.`));
      this.again = true;
      return false;
    }
    this.showExtras({ regressions });
    return true;
  }

  /** A save or a key: the run under way and what runs after the last screen are stale, stop them. */
  private interrupt(): void {
    this.generation++;
    this.settled = true;
    this.background?.abort();
  }

  /** Re-runs after each burst of saves in starter/src (50 ms of quiet), the changed files forgotten first. */
  private watchSaves(): () => void {
    const src = path.join(this.root, 'starter/src');
    let debounce: ReturnType<typeof setTimeout> | undefined;
    let pending = new Set<string>();
    this.watcher = watchTree(
      src,
      (files) => {
        for (const file of files) pending.add(file);
        clearTimeout(debounce);
        debounce = setTimeout(() => {
          const changed = [...pending];
          pending = new Set();
          for (const file of changed) this.saved.add(path.relative(src, file).split(path.sep).join('/'));
          this.interrupt();
          this.results.clear();
          this.runner.invalidate(changed.length ? changed : tsFiles(src));
          void this.run();
        }, 50);
      },
      this.options,
    );
    return () => {
      this.watcher?.close();
      clearTimeout(debounce);
    };
  }

  private async onKey(key: string, quit: () => Promise<void>): Promise<void> {
    switch (key.toLowerCase()) {
      case 'q':
      case '\u0003':
        await quit();
        break;
      case 'n':
        await this.move(
          this.all.find((n) => n > this.chapter),
          'This is the last chapter.',
        );
        break;
      case 'p':
      case 'b':
        await this.move(this.all.filter((n) => n < this.chapter).at(-1), 'This is the first chapter.');
        break;
      case 'h':
        await this.showHint();
        break;
      case 'l':
        await this.showList();
        break;
      case 'r':
        // From a clean slate: no result kept, no module vitest transformed before.
        this.interrupt();
        this.results.clear();
        this.runner.reset();
        this.reason = ' again, from a clean slate';
        await this.run();
        break;
    }
  }

  /** `n` and `p`: to another chapter, or a line saying there is none. */
  private async move(to: number | undefined, edge: string): Promise<void> {
    if (to === undefined) print(edge);
    else {
      this.chapter = to;
      this.interrupt();
      this.reason = '';
      await this.run();
    }
  }

  /** `h`: the next hint for the chapter whose stub the screen points at (its tests run first if they have not). */
  private async showHint(): Promise<void> {
    const chapter = this.hintChapter;
    const known = this.results.get(chapter) ?? (await slow(`Running chapter ${chapter}…`, this.runner.run([chapter])));
    print('');
    print(await hintText(this.root, chapter, known.tests));
    print(this.keysLine);
  }

  /** `l`: every chapter's passed/total, running the chapters with no results since the last save. */
  private async showList(): Promise<void> {
    const stale = this.all.filter((n) => !this.results.has(n));
    const fresh = stale.length
      ? await slow(`Running chapters ${stale.join(', ')}…`, this.runner.run(stale))
      : { tests: [] };
    for (const n of stale)
      this.results.set(n, { tests: fresh.tests.filter((t) => t.chapter === n), errors: [], duration: 0 });
    print('');
    print(
      progressTable(
        this.root,
        this.all.flatMap((n) => this.results.get(n)?.tests ?? []),
        this.chapter,
      ),
    );
    print(this.keysLine);
  }
}
