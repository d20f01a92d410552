/**
 * npm run watch [-- chapter3] [--plain] [--poll] [--spawn]: re-runs the current chapter's tests on every save in
 * starter/ and shows the first failing test, the stub to edit and the hint command; then the type errors of the
 * learner's files, and a line for any earlier chapter that a change broke.
 *
 * One vitest instance stays warm for the whole session (vitest's Node API): a save invalidates the changed modules
 * and re-runs one chapter in that instance, a fraction of a second instead of a new process per save. If vitest
 * cannot start that way (or with --spawn), each run is a child process as before. Saves are seen by fs.watch, or by
 * polling with --poll (and whenever fs.watch fails).
 *
 * Keys: n next chapter, p previous chapter, h hint, l list, r re-run, q quit. Without a terminal (or with --plain),
 * type the key and Enter.
 */
import { fork } from 'node:child_process';
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { chapterDir } from '../lib/chapters.js';
import { chapterArg, chaptersWithTests, parseCommandArgs, UsageError } from './args.js';
import { hintText } from './hint.js';
import { progressTable } from './progress.js';
import { KitRunError, runTests, toOutcomes, type RawReport, type RunResult, type TestOutcome } from './run-tests.js';
import { assignStubs, chapterStubs, firstUnfinished, learnerStubs, likelyChapter } from './stubs.js';
import { formatTypeErrors, typecheckStarter, type TypeErrorInfo } from './typecheck.js';
import { bar, bold, chapterTitle, cyan, dim, green, indent, red, yellow } from './ui.js';

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

/** The failing test to show first: the first one of the first unfinished stub, else the first failing test. */
export function focusTest(root: string, chapter: number, tests: readonly TestOutcome[]): TestOutcome | undefined {
  const stubs = chapterStubs(root, chapter);
  return firstUnfinished(stubs, tests)?.failing[0] ?? tests.find((t) => t.status === 'failed');
}

/** The stub the focused failure points at (an earlier chapter's stub when the test reached its TODO or its bug). */
export function focusStub(root: string, chapter: number, tests: readonly TestOutcome[]) {
  const stubs = chapterStubs(root, chapter);
  const test = focusTest(root, chapter, tests);
  if (!test) return undefined;
  return assignStubs(tests, learnerStubs(root)).get(test) ?? firstUnfinished(stubs, tests)?.stub;
}

/** An earlier chapter whose tests fail now. */
export interface Regression {
  chapter: number;
  failed: number;
  total: number;
  /** The chapter still has unwritten stubs (not a regression, just unfinished). */
  unfinished?: boolean;
}

export interface Extras {
  /** Type errors of the learner's project; undefined while the check runs (or when it was skipped). */
  typeErrors?: readonly TypeErrorInfo[];
  /** Earlier chapters with failing tests. */
  regressions?: readonly Regression[];
}

/** The lines that follow the test screen: type errors, earlier chapters that broke. Empty when all is well. */
export function renderExtras(extras: Extras): string {
  const out: string[] = [];
  if (extras.typeErrors?.length) {
    out.push(
      '',
      yellow(`Type errors in your code (${extras.typeErrors.length}; the tests strip types, tsc does not):`),
      indent(formatTypeErrors(extras.typeErrors), '  '),
    );
  }
  for (const r of extras.regressions ?? []) {
    const what = r.unfinished
      ? `${r.failed} of ${r.total} tests fail (it has stubs left to write).`
      : `${r.failed} of ${r.total} tests fail now.`;
    out.push(
      '',
      yellow(`! Chapter ${r.chapter} (${chapterTitle(r.chapter)}): ${what}`) +
        ` Press p to go back, or run "npm run watch -- chapter${r.chapter}".`,
    );
  }
  return out.join('\n');
}

/** The screen for one run of a chapter's tests. */
export function renderChapter(
  root: string,
  chapter: number,
  tests: readonly TestOutcome[],
  errors: readonly string[] = [],
  extras: Extras = {},
): string {
  const passed = tests.filter((t) => t.status === 'passed').length;
  // A file that could not load stands for tests that never ran: no count of them is known here, so no total is shown
  // (progress counts them from the solution's run).
  const unloaded = tests.filter((t) => t.name === `${t.file} could not load`).length;
  const tally = unloaded
    ? `${passed} passing · ${unloaded} test file${unloaded > 1 ? 's' : ''} could not load`
    : `${passed}/${tests.length} passing`;
  const out = [`${bold(`Chapter ${chapter} · ${chapterTitle(chapter)}`)}   ${bar(passed, tests.length)} ${tally}`, ''];
  const tail = renderExtras(extras);
  if (tests.length > 0 && passed === tests.length && errors.length === 0) {
    const next = chaptersWithTests(root).find((n) => n > chapter);
    // Code that does not type-check is not done: the tests strip types, so they can all pass above a type error.
    out.push(
      extras.typeErrors?.length
        ? yellow(`Every test of chapter ${chapter} passes, but your code does not type-check yet (below).`)
        : green(`✓ Every test of chapter ${chapter} passes.`) +
            (next ? ` Press n for chapter ${next}.` : ' That was the last chapter!'),
    );
    if (tail) out.push(tail);
    return out.join('\n');
  }
  const test = focusTest(root, chapter, tests);
  let hintChapter = chapter;
  if (test) {
    out.push(red(`✗ ${test.fullName}`), dim(`  ${test.file}${test.line ? `:${test.line}` : ''}`), '');
    const message = test.message.split('\n');
    out.push(indent(message.slice(0, 6).join('\n'), '  '));
    if (test.expected !== undefined && test.actual !== undefined) {
      const short = (s: string) => (s.split('\n').length > 15 ? `${s.split('\n').slice(0, 15).join('\n')}\n…` : s);
      out.push(
        '',
        `  ${green('Expected:')}`,
        indent(short(test.expected), '    '),
        `  ${red('Actual:')}`,
        indent(short(test.actual), '    '),
      );
    }
    // A TODO (or a bug) in an earlier chapter's stub points at that stub: fix it first.
    const stub = focusStub(root, chapter, tests);
    out.push('');
    if (stub)
      out.push(
        `${bold('Edit:')} ${cyan(`${stub.file}:${stub.line}`)}  ${dim(`(#region chapter ${stub.chapter}: ${stub.name})`)}`,
      );
    hintChapter = stub?.chapter ?? chapter;
  } else if (errors.length) {
    out.push(red('✗ A test file could not load:'), indent(errors[0]!, '  '));
  }
  out.push(
    `${bold('Hint:')} npm run hint -- chapter${hintChapter}  ${dim(hintChapter === chapter ? '(or press h)' : `(chapter ${hintChapter} comes first)`)}`,
  );
  if (tail) out.push(tail);
  return out.join('\n');
}

/** Calls `onChange` with the changed .ts files under `dir` (or [] when unknown): fs.watch, or polling. */
export function watchTree(
  dir: string,
  onChange: (files: string[]) => void,
  options: { poll: boolean; interval: number },
): { close(): void; mode: 'events' | 'polling' } {
  if (!options.poll) {
    try {
      const watcher: FSWatcher = watch(dir, { recursive: true }, (_event, file) => {
        if (!file) onChange([]);
        else if (String(file).endsWith('.ts')) onChange([path.join(dir, String(file))]);
      });
      let fallback: ReturnType<typeof watchTree> | undefined;
      watcher.on('error', () => {
        watcher.close();
        fallback ??= watchTree(dir, onChange, { ...options, poll: true });
      });
      return { close: () => (watcher.close(), fallback?.close()), mode: 'events' };
    } catch {
      // fall through to polling
    }
  }
  const snapshot = () => {
    const seen = new Map<string, string>();
    const walk = (sub: string) => {
      for (const entry of readdirSync(sub, { withFileTypes: true })) {
        const full = path.join(sub, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.ts')) {
          const s = statSync(full);
          seen.set(full, `${s.mtimeMs}:${s.size}`);
        }
      }
    };
    try {
      walk(dir);
    } catch {
      // a file vanished mid-scan: the next tick sees the new state
    }
    return seen;
  };
  let last = snapshot();
  const timer = setInterval(() => {
    const now = snapshot();
    const changed = [...new Set([...now.keys(), ...last.keys()])].filter((file) => now.get(file) !== last.get(file));
    last = now;
    if (changed.length) onChange(changed);
  }, options.interval);
  return { close: () => clearInterval(timer), mode: 'polling' };
}

/** Runs chapters' tests: in one warm vitest instance, or a child process per run. Runs one at a time. */
export interface ChapterRunner {
  readonly mode: 'warm' | 'spawn';
  run(chapters: number[]): Promise<RunResult>;
  /** Files changed on disk: forget their transformed code. */
  invalidate(files: string[]): void;
  /** Stops the run under way, if any (its promise resolves with what finished). */
  cancel(): Promise<void>;
  close(): Promise<void>;
}

export function spawnRunner(root: string): ChapterRunner {
  return {
    mode: 'spawn',
    run: (chapters) => runTests({ root, chapters, progress: false }),
    invalidate: () => {},
    cancel: async () => {},
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
    | { type: 'result'; id: number; report: RawReport; duration: number }
    | { type: 'error'; id?: number; message: string };
  const waiting = new Map<number, { resolve: (r: RunResult) => void; reject: (e: Error) => void }>();
  let exited = false;
  await new Promise<void>((resolve, reject) => {
    child.on('message', (reply: Reply) => {
      if (reply.type === 'ready') resolve();
      else if (reply.type === 'result') {
        waiting.get(reply.id)?.resolve({ ...toOutcomes(root, reply.report), duration: reply.duration });
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
    run(chapters) {
      if (exited) return Promise.reject(new KitRunError('the warm vitest has stopped'));
      const id = ++next;
      return new Promise<RunResult>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        send({ type: 'run', id, filters: chapters.map(chapterDir) });
      });
    },
    invalidate(files) {
      send({ type: 'invalidate', files });
    },
    async cancel() {
      send({ type: 'cancel' });
    },
    async close() {
      send({ type: 'close' });
      await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => setTimeout(r, 1500))]);
      if (!exited) child.kill();
    },
  };
}

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

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
const print = (text: string) => process.stdout.write(`${text}\n`);
/** Clears the terminal and puts the cursor at the top left (each screen is drawn whole). */
const CLEAR_SCREEN = '\u001b[2J\u001b[H';

/** Prints `text` if `work` is still going after a second: a progress line for anything slow. */
async function slow<T>(text: string, work: Promise<T>): Promise<T> {
  const timer = setTimeout(() => print(dim(text)), 1000);
  try {
    return await work;
  } finally {
    clearTimeout(timer);
  }
}

export async function runWatch(options: WatchOptions): Promise<number> {
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

/** What the screen shows: a chapter's last run, what was found after it (extras), and the status line. */
interface Screen {
  chapter: number;
  result: RunResult;
  extras: Extras;
  status: string;
}

/** One `npm run watch`: the chapter on screen, the runs, the saves and the keys, until `q`. */
class WatchSession {
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
  /** The type check and the earlier chapters' run after a screen: stopped by the next save. */
  private background: AbortController | undefined;
  private inBackground = false;
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
      stopKeys = this.listenForKeys((key) => this.onKey(key, quit));
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

  /** One run of the chapter and its screen, then, beside it, the type errors and the earlier chapters. */
  private async runOnce(): Promise<void> {
    this.again = false;
    const current = this.chapter;
    const mine = this.generation;
    const result = await slow(`Running chapter ${current}…`, this.runner.run([current]));
    if (this.closed) return;
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
    this.background = new AbortController();
    const types = typecheckStarter(this.root, { signal: this.background.signal }).then(
      (r) => {
        if (mine === this.generation && this.screen?.chapter === current) this.showExtras({ typeErrors: r.errors });
      },
      () => undefined,
    );
    if (!(await this.checkEarlier(current, mine))) return;
    this.settled = true;
    await types;
  }

  /**
   * Runs the chapters before `current` and shows those that fail now; at start-up, moves to the first of them (an
   * earlier chapter that does not pass yet is where the learner is). False when the run is stale or moved on.
   */
  private async checkEarlier(current: number, mine: number): Promise<boolean> {
    const earlier = this.all.filter((n) => n < current);
    if (!earlier.length) return true;
    this.inBackground = true;
    const before = await this.runner.run(earlier).finally(() => (this.inBackground = false));
    if (this.closed || mine !== this.generation || this.chapter !== current) return false;
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

  /** A save or a key: what runs in the background after the last screen is stale, stop it. */
  private interrupt(): void {
    this.generation++;
    this.settled = true;
    this.background?.abort();
    if (this.inBackground) void this.runner.cancel().catch(() => undefined);
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
          this.interrupt();
          this.results.clear();
          this.runner.invalidate(changed.length ? changed : listTs(src));
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

  /** Calls `onKey` with each key (on a terminal) or the first letter of each line (plain); returns how to stop. */
  private listenForKeys(onKey: (key: string) => Promise<void>): () => void {
    if (this.plain) {
      const rl = createInterface({ input: process.stdin, terminal: false });
      rl.on('line', (line) => void onKey(line.trim().charAt(0)));
      return () => {
        process.stdin.pause();
        rl.close();
      };
    }
    process.stdin.setRawMode(true);
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (data: string) => void onKey(data));
    process.stdin.resume();
    return () => {
      if (process.stdin.isTTY) process.stdin.setRawMode(false);
      process.stdin.pause();
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
        this.results.clear();
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

function listTs(dir: string): string[] {
  const out: string[] = [];
  const walk = (sub: string) => {
    for (const entry of readdirSync(sub, { withFileTypes: true })) {
      const full = path.join(sub, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) out.push(full);
    }
  };
  try {
    walk(dir);
  } catch {
    // gone: nothing to invalidate
  }
  return out;
}
