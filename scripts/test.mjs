/**
 * npm test -- [chapters...] [--solution] [--no-typecheck] [vitest flags...]
 *
 * Chapters may be written chapter3, ch3, 3 or chapter03; none means all. Runs exactly those chapters' tests against
 * starter/ (or solution/ with --solution). Every other argument goes to vitest unchanged.
 *
 * This is the learner's inner loop, so it does as little as it can before vitest starts: plain JavaScript (no
 * TypeScript loader), and vitest runs in this process (no second Node). Against the starter it also type-checks the
 * learner's code (vitest strips types without checking them): the code the chapters asked for load (all of it when
 * none is named), with the native TypeScript compiler beside vitest, incrementally (its state in .kit/), its errors
 * printed after the test results.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createColors } from 'picocolors';
import { CHAPTERS, chapterDir, parseTestArgs } from './lib/chapters.js';
import { checkStarterTypes } from './lib/starter-types.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const hasTests = (n) => existsSync(path.join(ROOT, chapterDir(n)));
const args = process.argv.slice(2);
const noTypecheck = args.includes('--no-typecheck');
const { chapters, unknown, target, passThrough } = parseTestArgs(
  args.filter((arg) => arg !== '--no-typecheck'),
  hasTests,
  process.env.KIT_TARGET === 'solution' ? 'solution' : 'starter',
);

if (unknown.length > 0) {
  console.error(`Unknown chapter: ${unknown.join(', ')}. The chapters are:\n`);
  for (const { number, title } of CHAPTERS) {
    console.error(`  chapter${number}`.padEnd(13) + title + (hasTests(number) ? '' : '  (not written yet)'));
  }
  console.error('\nFor example: npm test -- chapter3');
  process.exit(2);
}

process.env.KIT_TARGET = target;
const argv = ['vitest', 'run', ...chapters.map(chapterDir), ...passThrough];
const watching = argv.some((arg) => arg === '--watch' || arg === '-w' || arg === 'watch' || arg === 'dev');
const types = target === 'starter' && !watching && !noTypecheck ? startTypecheck() : undefined;

const { parseCLI, startVitest } = await import('vitest/node');
const { filter, options } = parseCLI(argv);
let keep = false;
let guidedNote = false;
try {
  const ctx = await startVitest('test', filter, normalizeCliOptions(filter, options));
  // In watch mode vitest keeps running (and ends the process itself); otherwise close it. Not with ctx.exit(), as
  // vitest's CLI does: exit() also arms a timer (teardownTimeout) that ends the process, and on a loaded machine it
  // fired while the type check below was still running ("close timed out after 10000ms"): the report was lost and
  // the compiler left running alone. This process ends itself once both are done.
  keep = ctx.shouldKeepServer();
  if (!keep) {
    guidedNote = guidedStepsNamed(ctx.state.getFiles());
    await ctx.close();
  }
} catch (error) {
  console.error(error);
  process.exitCode ||= 1;
}
if (!keep) {
  // The stubs state a contract and show no steps; a failure that names a step says where the steps are.
  if (guidedNote)
    console.log(
      createColors(Boolean(process.stdout.isTTY) && !process.env.NO_COLOR).dim(
        ' Steps      "(guided step N)" in a failure is a step of the stub\'s guided edition: the second hint (npm run hint) shows it, npm run reset -- chapterN --guided writes them into the stubs you have not started',
      ),
    );
  if (types) {
    const report = await types;
    console.log(report.text);
    // Code that does not type-check is not done, whatever the tests said: the run fails.
    if (!report.ok) process.exitCode ||= 1;
  }
  process.exit(process.exitCode ?? 0);
}

/** True when a failure of the run names a step of the guided edition (`… (guided step 3)`). */
function guidedStepsNamed(tasks) {
  return tasks.some(
    (task) =>
      (task.result?.errors ?? []).some((error) => /\bguided steps? \d/.test(String(error?.message ?? ''))) ||
      guidedStepsNamed(task.tasks ?? []),
  );
}

/**
 * What vitest's own CLI does to the options parseCLI returns before it starts: a copy of normalizeCliOptions in
 * vitest 4.1.12 (dist/chunks/cac.*.js), which vitest does not export; its CLI, which calls it, ends with ctx.exit()
 * (see above), so it cannot be used either. Compare it with vitest's after an upgrade.
 */
function normalizeCliOptions(filters, options) {
  if (options.exclude) {
    options.cliExclude = [options.exclude].flat();
    delete options.exclude;
  }
  if (filters.some((filter) => filter.includes(':'))) options.includeTaskLocation ??= true;
  if (typeof options.typecheck?.only === 'boolean') options.typecheck.enabled ??= true;
  if (options.clearCache || options.listTags) {
    options.watch = false;
    options.run = true;
  }
  return options;
}

/**
 * Type-checks what this run tests (starter-types.js): the chapters asked for, their tests and every file those load,
 * or everything when no chapter was named. Resolves to { ok, text }: text is one dim line when the code type-checks,
 * else the errors (printed after the test results; a type error makes the run fail, ok false). A result is read
 * back when no file tsc reads changed since that scope was last checked; otherwise the native compiler runs beside
 * vitest, incrementally and single-threaded (vitest has the other core).
 */
function startTypecheck() {
  return checkStarterTypes(ROOT, { chapters }).then(
    (ran) => {
      if (!ran) return { ok: false, text: 'Type check could not run: typescript is not installed (run "npm install")' };
      return typecheckReport(ran.code, ran.output, ran.ms, ran.cached);
    },
    (error) => ({ ok: false, text: `Type check could not run: ${error.message}` }),
  );
}

function typecheckReport(code, output, ms, cached) {
  return { ok: code === 0, text: typecheckText(code, output, ms, cached) };
}

function typecheckText(code, output, ms, cached) {
  // What was checked: the files the named chapters' tests load, or everything.
  const scope =
    chapters.length > 1
      ? `the files the tests of chapters ${chapters.join(', ')} load`
      : chapters.length
        ? `the files chapter ${chapters[0]}'s tests load`
        : 'tsc -p tsconfig.starter.json';
  const c = createColors(Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
  if (code === 0)
    return c.dim(
      ` Types      no errors in starter/src (tsc${cached ? ', nothing changed since the last check' : `, ${(ms / 1000).toFixed(1)}s`})${chapters.length ? `, in ${scope}` : ''}`,
    );
  const lines = output.trim().split('\n').filter(Boolean);
  const errors = lines.filter((line) => /error TS\d+/.test(line));
  const shown = lines.slice(0, 20).map((line) => `  ${line.replace(/^(\S+?)\((\d+),(\d+)\): /, '$1:$2:$3 ')}`);
  if (lines.length > shown.length) shown.push(`  … and ${lines.length - shown.length} more line(s): npm run typecheck`);
  return [
    '',
    c.bold(
      c.yellow(
        `Type errors: ${errors.length || 'tsc failed'} in your code (${scope}), so this run fails. The tests above ran anyway; fix these too:`,
      ),
    ),
    ...shown,
  ].join('\n');
}
