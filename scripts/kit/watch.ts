/**
 * npm run watch [-- --plain] [--poll] [chapter3]: re-runs the current chapter's tests on every save in starter/ and
 * shows the first failing test, the stub to edit and the hint command.
 * Keys: n next chapter, h hint, l list, r re-run, q quit. Without a terminal (or with --plain), type the key and Enter.
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { chapterArg, chaptersWithTests } from './args.js';
import { hintText } from './hint.js';
import { firstIncomplete, progressTable } from './progress.js';
import { runTests, type TestOutcome } from './run-tests.js';
import { chapterStubs, firstUnfinished, learnerStubs, stubOfTest } from './stubs.js';
import { bar, bold, chapterTitle, cyan, dim, green, indent, red } from './ui.js';

export interface WatchOptions {
  root: string;
  plain: boolean;
  poll: boolean;
  /** Polling interval in ms. */
  interval: number;
  chapter?: number;
}

/** The failing test to show first: the first one of the first unfinished stub, else the first failing test. */
export function focusTest(root: string, chapter: number, tests: readonly TestOutcome[]): TestOutcome | undefined {
  const stubs = chapterStubs(root, chapter);
  return firstUnfinished(stubs, tests)?.failing[0] ?? tests.find((t) => t.status === 'failed');
}

/** The stub the focused failure points at (an earlier chapter's stub when its TODO blocks this chapter). */
export function focusStub(root: string, chapter: number, tests: readonly TestOutcome[]) {
  const stubs = chapterStubs(root, chapter);
  const test = focusTest(root, chapter, tests);
  if (!test) return undefined;
  return stubOfTest(test, learnerStubs(root)) ?? stubOfTest(test, stubs) ?? firstUnfinished(stubs, tests)?.stub;
}

/** The screen for one run of a chapter's tests. */
export function renderChapter(root: string, chapter: number, tests: readonly TestOutcome[], errors: readonly string[] = []): string {
  const passed = tests.filter((t) => t.status === 'passed').length;
  const out = [`${bold(`Chapter ${chapter} · ${chapterTitle(chapter)}`)}   ${bar(passed, tests.length)} ${passed}/${tests.length} passing`, ''];
  const stubs = chapterStubs(root, chapter);
  if (tests.length > 0 && passed === tests.length && errors.length === 0) {
    const next = chaptersWithTests(root).find((n) => n > chapter);
    out.push(green(`✓ Every test of chapter ${chapter} passes.`) + (next ? ` Press n for chapter ${next}.` : ' That was the last chapter!'));
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
      out.push('', `  ${green('Expected:')}`, indent(short(test.expected), '    '), `  ${red('Actual:')}`, indent(short(test.actual), '    '));
    }
    // A TODO from an earlier chapter points at that chapter's stub: finish it first.
    const stub = focusStub(root, chapter, tests);
    out.push('');
    if (stub) out.push(`${bold('Edit:')} ${cyan(`${stub.file}:${stub.line}`)}  ${dim(`(#region chapter ${stub.chapter}: ${stub.name})`)}`);
    hintChapter = stub?.chapter ?? chapter;
  } else if (errors.length) {
    out.push(red('✗ A test file could not load:'), indent(errors[0]!, '  '));
  }
  out.push(`${bold('Hint:')} npm run hint -- chapter${hintChapter}  ${dim(hintChapter === chapter ? '(or press h)' : `(chapter ${hintChapter} comes first)`)}`);
  return out.join('\n');
}

/** Calls `onChange` when a .ts file under `dir` changes: fs.watch, or polling if asked or if fs.watch fails. */
export function watchTree(dir: string, onChange: () => void, options: { poll: boolean; interval: number }): { close(): void; mode: 'events' | 'polling' } {
  if (!options.poll) {
    try {
      const watcher: FSWatcher = watch(dir, { recursive: true }, (_event, file) => {
        if (!file || String(file).endsWith('.ts')) onChange();
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
    const parts: string[] = [];
    const walk = (sub: string) => {
      for (const entry of readdirSync(sub, { withFileTypes: true })) {
        const full = path.join(sub, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.ts')) {
          const s = statSync(full);
          parts.push(`${full}:${s.mtimeMs}:${s.size}`);
        }
      }
    };
    try {
      walk(dir);
    } catch {
      // a file vanished mid-scan: the next tick sees the new state
    }
    return parts.join('|');
  };
  let last = snapshot();
  const timer = setInterval(() => {
    const now = snapshot();
    if (now !== last) {
      last = now;
      onChange();
    }
  }, options.interval);
  return { close: () => clearInterval(timer), mode: 'polling' };
}

export async function watchCommand(root: string, args: string[]): Promise<number> {
  const options: WatchOptions = {
    root,
    plain: args.includes('--plain') || !process.stdin.isTTY || !process.stdout.isTTY,
    poll: args.includes('--poll'),
    interval: Number(args.find((a) => a.startsWith('--interval='))?.slice('--interval='.length) ?? 500),
    chapter: chapterArg(root, args),
  };
  return runWatch(options);
}

export async function runWatch(options: WatchOptions): Promise<number> {
  const { root, plain } = options;
  const print = (text: string) => process.stdout.write(`${text}\n`);
  const all = chaptersWithTests(root);
  let chapter = options.chapter;
  if (chapter === undefined) {
    print(dim('Running every chapter once to find where you are…'));
    const { tests } = await runTests({ root });
    chapter = firstIncomplete(root, tests) ?? all.at(-1) ?? 1;
  }
  const keysLine = dim(`keys: n next chapter · h hint · l list · r re-run · q quit${plain ? ' (type the key, then Enter)' : ''}`);
  let hintChapter = chapter;
  let running = false;
  let again = false;
  let closed = false;
  let watcher: ReturnType<typeof watchTree> | undefined;

  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const current = chapter!;
        const { tests, errors, duration } = await runTests({ root, chapters: [current] });
        if (closed) return;
        hintChapter = focusStub(root, current, tests)?.chapter ?? current;
        if (!plain) process.stdout.write('\u001b[2J\u001b[H');
        else print(dim('─'.repeat(60)));
        print(renderChapter(root, current, tests, errors));
        print('');
        print(dim(`ran ${tests.length} tests in ${(duration / 1000).toFixed(1)}s at ${new Date().toLocaleTimeString()}; watching starter/src (${watcher?.mode ?? 'events'})`));
        print(keysLine);
      } while (again && !closed);
    } catch (error) {
      print(red(`The tests could not run: ${(error as Error).message}`));
    } finally {
      running = false;
    }
  };

  let debounce: ReturnType<typeof setTimeout> | undefined;
  watcher = watchTree(path.join(root, 'starter/src'), () => {
    clearTimeout(debounce);
    debounce = setTimeout(() => void run(), 150);
  }, options);

  return new Promise<number>((resolve) => {
    const quit = () => {
      if (closed) return;
      closed = true;
      watcher?.close();
      clearTimeout(debounce);
      if (!plain && process.stdin.isTTY) process.stdin.setRawMode(false);
      process.stdin.pause();
      rl?.close();
      print('Bye!');
      resolve(0);
    };
    const onKey = async (key: string) => {
      switch (key.toLowerCase()) {
        case 'q':
        case '\u0003':
          quit();
          break;
        case 'n': {
          const next = all.find((n) => n > chapter!);
          if (next === undefined) print('This is the last chapter.');
          else {
            chapter = next;
            await run();
          }
          break;
        }
        case 'h':
          print('');
          print(await hintText(root, hintChapter!));
          print(keysLine);
          break;
        case 'l': {
          const { tests } = await runTests({ root });
          print('');
          print(progressTable(root, tests, chapter));
          print(keysLine);
          break;
        }
        case 'r':
          await run();
          break;
      }
    };
    let rl: ReturnType<typeof createInterface> | undefined;
    if (plain) {
      rl = createInterface({ input: process.stdin, terminal: false });
      rl.on('line', (line) => void onKey(line.trim().charAt(0)));
    } else {
      process.stdin.setRawMode(true);
      process.stdin.setEncoding('utf8');
      process.stdin.on('data', (data: string) => void onKey(data));
      process.stdin.resume();
    }
    process.once('SIGINT', quit);
    process.once('SIGTERM', quit);
    void run();
  });
}
