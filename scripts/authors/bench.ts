/**
 * npm run bench [-- --runs=N] [--chapters=1,2,3] [--verify] [--ci]
 *
 * The figures of the speed targets (issue 18, issue 19 items 7 and 9), each the median of N runs of the whole process (as a
 * learner types it), side by side with its floor (what the same work costs with nothing of the kit in front of it)
 * and its target, and whether the target is met. Everything runs in a throw-away copy of the repository (node_modules
 * linked), so the checkout's .kit/ and starter are left alone. Run it on a quiet machine: the load average is printed
 * before and after, and figures taken under load say so.
 *
 *   --runs=N       runs per figure (default 5)
 *   --chapters=…   which chapters' `npm test` to time (default: every chapter with tests)
 *   --verify       also time `npm run verify -- --quick` and `npm run verify` (minutes)
 *   --ci           also time `npm ci` on a warm cache (in a temp dir; needs the registry)
 *   --no-guide     skip the guide site (by default the built site is loaded in headless Chromium: item 9)
 */
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseScriptArgs } from '../kit/args.js';
import { chapterDir } from '../lib/chapters.js';
import { ROOT } from '../lib/paths.js';
import { listRegions } from '../lib/regions.js';
import { copyKit, solveUpTo } from './lib/kit-copy.js';
import { guideLines, measureGuide } from '../../tests/kit/browser-check.js';

const USAGE = 'npm run bench [-- --runs=N] [--chapters=1,2,3] [--verify] [--ci] [--no-guide]';
const { values: args } = parseScriptArgs(USAGE, {
  options: {
    runs: { type: 'string', default: '5' },
    chapters: { type: 'string' },
    verify: { type: 'boolean' },
    ci: { type: 'boolean' },
    'no-guide': { type: 'boolean' },
  },
});
const RUNS = Math.max(1, Number(args.runs));
if (!Number.isInteger(RUNS)) {
  console.error(`--runs wants a whole number, not "${args.runs}"\nUsage: ${USAGE}`);
  process.exit(2);
}
const CORES = cpus().length;

interface Figure {
  what: string;
  ms: number;
  floor?: { what: string; ms: number };
  /** A time limit in ms, or a ratio to the floor. */
  target?: { ms?: number; ratio?: number };
  note?: string;
}
const figures: Figure[] = [];

function timeOnce(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  until?: RegExp,
  input?: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let done = false;
    const finish = (ms: number) => {
      if (done) return;
      done = true;
      resolve(ms);
    };
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (until && until.test(output)) {
        finish(performance.now() - started);
        child.stdin.write(input ?? 'q');
        setTimeout(() => child.kill(), 3000).unref();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('close', (code) => {
      if (until && !done)
        reject(new Error(`${command} ${args.join(' ')} ended (${code}) before ${until}:\n${output.slice(-2000)}`));
      finish(performance.now() - started);
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

/** Times each command RUNS times, interleaved (a, b, a, b, ...) so that a change in load hits both alike. */
async function medians(commands: Array<() => Promise<number>>, runs = RUNS): Promise<number[]> {
  const times: number[][] = commands.map(() => []);
  for (let i = 0; i < runs; i++) for (const [j, run] of commands.entries()) times[j]!.push(await run());
  return times.map(median);
}

const node = process.execPath;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  console.log(
    `npm run bench: ${RUNS} run(s) per figure, median; ${CORES} cores, Node ${process.version}, load average ${loadBefore.toFixed(2)}`,
  );
  if (loadBefore > CORES * 0.5) console.log(`  (the machine is busy: figures will be slower than on a quiet one)`);
  const root = copyKit('kit-bench-');
  try {
    const vitest = [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run'];
    const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');
    const written = readdirSync(path.join(root, 'tests'))
      .map((d) => /^chapter(\d+)$/.exec(d)?.[1])
      .filter(Boolean)
      .map(Number)
      .sort((a, b) => a - b);
    const chapters = args.chapters?.split(',').map(Number) ?? written;
    const allDirs = written.map(chapterDir);

    // What npm and tsx cost before any of the kit's code runs (`npm run env` is npm's own script).
    const [npmOwn, tsxOwn] = await medians([
      () => timeOnce('npm', ['run', 'env', '--silent'], root),
      () => timeOnce(node, [tsx, '-e', '0'], root),
    ]);
    console.log(`  npm run's own start: ${seconds(npmOwn)}; tsx's own start: ${seconds(tsxOwn)}`);

    // 1. npm test -- chapterN, against the raw vitest run of the same files, interleaved.
    solveUpTo(root, 0);
    for (const n of chapters) {
      process.stdout.write(`  timing chapter ${n} …\n`);
      // One untimed run first: the type check's cache and the OS's file cache start warm, as for a learner.
      await timeOnce('npm', ['test', '--', `chapter${n}`], root);
      const [raw, wrapped, starter] = await medians([
        () => timeOnce(node, [...vitest, chapterDir(n)], root, { KIT_TARGET: 'solution' }),
        () => timeOnce('npm', ['test', '--', `chapter${n}`, '--solution'], root),
        () => timeOnce('npm', ['test', '--', `chapter${n}`], root),
      ]);
      const limit = n <= 3 ? { ms: 1500 } : {};
      figures.push({
        what: `npm test -- chapter${n} --solution`,
        ms: wrapped!,
        floor: { what: `vitest run ${chapterDir(n)}`, ms: raw! },
        target: { ...limit, ratio: 1.2 },
      });
      figures.push({
        what: `npm test -- chapter${n} (starter, types checked)`,
        ms: starter!,
        floor: { what: `vitest run ${chapterDir(n)}`, ms: raw! },
        target: limit,
        note: 'type check reused when nothing changed',
      });
      // A learner's save: a change inside the chapter's first stub, so that the type check runs again (on what the
      // chapter's tests load) beside the tests.
      const stub = listRegions(root, 'starter').find((r) => r.chapter === n);
      const todo = stub?.body.find((line) => line.includes('throw new TodoError('));
      if (stub && todo) {
        const file = path.join(root, stub.file);
        const original = readFileSync(file, 'utf8');
        let saves = 0;
        const [rawAgain, edited] = await medians([
          () => timeOnce(node, [...vitest, chapterDir(n)], root, { KIT_TARGET: 'solution' }),
          async () => {
            writeFileSync(file, original.replace(todo, `${todo} // save ${++saves}`));
            return timeOnce('npm', ['test', '--', `chapter${n}`], root);
          },
        ]);
        writeFileSync(file, original);
        figures.push({
          what: `npm test -- chapter${n} after a save inside ${stub.name} (types checked again)`,
          ms: edited!,
          floor: { what: `vitest run ${chapterDir(n)}`, ms: rawAgain! },
          target: { ratio: 1.5 },
          note: "tsc on what the chapter's tests load, beside vitest",
        });
      }
    }

    // 2. progress: a learner with chapters 1-2 done.
    solveUpTo(root, 2);
    process.stdout.write('  timing progress, grade and watch …\n');
    const [rawAll] = await medians([() => timeOnce(node, [...vitest, ...allDirs], root)], Math.min(RUNS, 3));
    const resetCache = () => rmSync(path.join(root, '.kit/results.json'), { force: true });
    resetCache();
    const [cold] = await medians(
      [async () => (resetCache(), timeOnce('npm', ['run', 'progress'], root))],
      Math.min(RUNS, 3),
    );
    figures.push({
      what: 'npm run progress (first run, nothing cached)',
      ms: cold!,
      floor: { what: 'vitest run of every chapter', ms: rawAll! },
      target: { ratio: 1.5 },
      note: 'runs every chapter once',
    });
    await timeOnce('npm', ['run', 'progress'], root);
    const [warm] = await medians([() => timeOnce('npm', ['run', 'progress'], root)]);
    figures.push({
      what: 'npm run progress (nothing changed)',
      ms: warm!,
      floor: { what: "npm's and tsx's own start", ms: npmOwn! + tsxOwn! },
      target: { ms: 3000 },
    });
    // doctor and hint right after progress: every test result is read back (doctor's type check too, once it has
    // run: the untimed doctor first, as progress's untimed run above).
    await timeOnce('npm', ['run', 'doctor'], root);
    const [doctor, hint] = await medians([
      () => timeOnce('npm', ['run', 'doctor'], root),
      () => timeOnce('npm', ['run', 'hint', '--', 'chapter3'], root),
    ]);
    figures.push({
      what: 'npm run doctor (nothing changed since progress)',
      ms: doctor!,
      floor: { what: "npm's and tsx's own start", ms: npmOwn! + tsxOwn! },
      target: { ms: 3000 },
    });
    figures.push({
      what: 'npm run hint -- chapter3 (nothing changed)',
      ms: hint!,
      floor: { what: "npm's and tsx's own start", ms: npmOwn! + tsxOwn! },
      target: { ms: 3000 },
    });
    // A learner's save: an edit inside the chapter 3 stub being written. Only the test files whose last run reached
    // that stub run again (cache.ts, by region); an edit outside every stub runs every test file that imports the file.
    const agent = path.join(root, 'starter/src/simple-agent.ts');
    const text = readFileSync(agent, 'utf8');
    const stub = "throw new TodoError(3, 'SimpleAgent.run');";
    if (!text.includes(stub)) throw new Error(`bench: ${stub} is not in starter/src/simple-agent.ts`);
    let edits = 0;
    const [inside] = await medians([
      async () => {
        writeFileSync(agent, text.replace(stub, `${stub} // edit ${++edits}`));
        return timeOnce('npm', ['run', 'progress'], root);
      },
    ]);
    figures.push({
      what: 'npm run progress (after a save inside a stub of starter/src/simple-agent.ts)',
      ms: inside!,
      floor: { what: 'vitest run of every chapter', ms: rawAll! },
      target: { ms: 3000 },
      note: 're-runs the test files that reached that stub',
    });
    const [outside] = await medians([
      async () => {
        writeFileSync(agent, `${text}\n// edit ${++edits}\n`);
        return timeOnce('npm', ['run', 'progress'], root);
      },
    ]);
    writeFileSync(agent, text);
    figures.push({
      what: 'npm run progress (after a save outside the stubs of starter/src/simple-agent.ts)',
      ms: outside!,
      floor: { what: 'vitest run of every chapter', ms: rawAll! },
      note: 're-runs every test file that imports it',
    });

    // 3. grade (always fresh: an instructor grades what runs now).
    const [grade] = await medians([() => timeOnce('npm', ['run', 'grade'], root)], Math.min(RUNS, 3));
    figures.push({
      what: 'npm run grade',
      ms: grade!,
      floor: { what: 'vitest run of every chapter', ms: rawAll! },
      target: { ms: 15_000, ratio: 1.5 },
    });

    // 4. watch: from the command to its first screen (the keys line).
    const [watch] = await medians(
      [() => timeOnce('npm', ['run', 'watch', '--', '--plain'], root, {}, /keys: n next chapter/)],
      Math.min(RUNS, 3),
    );
    const [rawChapter3] = await medians([() => timeOnce(node, [...vitest, chapterDir(3)], root)], Math.min(RUNS, 3));
    figures.push({
      what: 'npm run watch: first screen',
      ms: watch!,
      floor: { what: `vitest run ${chapterDir(3)}`, ms: rawChapter3! },
      target: { ms: 3000 },
    });

    // 5. verify (minutes): only when asked.
    if (args.verify) {
      for (const [what, args, limit] of [
        ['npm run verify -- --quick', ['run', 'verify', '--', '--quick'], 90_000],
        ['npm run verify', ['run', 'verify'], 300_000],
      ] as const) {
        const ms = await timeOnce('npm', [...args], ROOT);
        figures.push({ what, ms, target: { ms: limit } });
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }

  // 6. The install.
  const size = (dir: string): number => {
    let total = 0;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) total += size(full);
      else if (entry.isFile()) total += statSync(full).size;
    }
    return total;
  };
  const nm = path.join(ROOT, 'node_modules');
  const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;
  const mermaidParts = [
    'mermaid',
    '@mermaid-js',
    'cytoscape',
    'cytoscape-fcose',
    'cytoscape-cose-bilkent',
    'katex',
    'd3',
    'dagre-d3-es',
    'langium',
    'chevrotain',
  ]
    .map((name) => path.join(nm, name))
    .filter(existsSync)
    .reduce((sum, dir) => sum + size(dir), 0);
  const installLines = [
    `node_modules: ${mb(size(nm))} on disk (files only), of which mermaid and its diagram libraries ${mb(mermaidParts)}`,
  ];
  if (args.ci) {
    const dir = mkdtempSync(path.join(tmpdir(), 'kit-ci-'));
    try {
      for (const rel of ['package.json', 'package-lock.json', 'solution/package.json', 'starter/package.json']) {
        mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        cpSync(path.join(ROOT, rel), path.join(dir, rel));
      }
      const ms = await timeOnce('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], dir);
      installLines.push(`npm ci --prefer-offline (warm cache): ${seconds(ms)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  // The guide site (issue 19, item 9): a chapter page answers a click within 1.5 s in headless Chromium, and its
  // diagrams are readable. The site is built first when there is no build.
  const guide: string[] = [];
  if (!args['no-guide']) {
    if (!existsSync(path.join(ROOT, 'book/.vitepress/dist/404.html')))
      await timeOnce(node, [path.join(ROOT, 'node_modules/vitepress/bin/vitepress.js'), 'build', 'book'], ROOT);
    guide.push(...guideLines(await measureGuide(undefined, ['chapter-03', 'chapter-15-4'], 3)));
  }

  // The table.
  console.log('');
  const rows = [['what', 'median', 'floor', 'x floor', 'target', '']];
  let missed = 0;
  for (const f of figures) {
    const ratio = f.floor ? f.ms / f.floor.ms : undefined;
    const checks: boolean[] = [];
    const targets: string[] = [];
    if (f.target?.ms !== undefined) {
      targets.push(`<= ${seconds(f.target.ms)}`);
      checks.push(f.ms <= f.target.ms);
    }
    if (f.target?.ratio !== undefined && ratio !== undefined) {
      targets.push(`<= ${f.target.ratio}x`);
      checks.push(ratio <= f.target.ratio);
    }
    const verdict = checks.length === 0 ? '' : checks.every(Boolean) ? 'met' : 'NOT MET';
    if (verdict === 'NOT MET') missed++;
    rows.push([
      f.what,
      seconds(f.ms),
      f.floor ? `${seconds(f.floor.ms)} (${f.floor.what})` : '',
      ratio ? `${ratio.toFixed(2)}x` : '',
      targets.join(', '),
      verdict + (f.note ? `  ${f.note}` : ''),
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows)
    console.log(
      row
        .map((cell, i) => (i === 1 || i === 3 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    );
  console.log('');
  for (const line of installLines) console.log(line);
  for (const line of guide) console.log(line);
  missed += guide.filter((line) => line.includes(' MISSED')).length;
  if (!args.verify) console.log('verify: not timed (add --verify; it takes minutes)');
  const loadAfter = loadavg()[0]!;
  console.log(`\nload average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after (${CORES} cores)`);
  console.log(missed === 0 ? 'Every target met.' : `${missed} target(s) not met.`);
}

await main();
