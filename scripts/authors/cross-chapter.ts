/**
 * npx tsx scripts/authors/cross-chapter.ts [chapterN ...] [--max-files=N] [--json=FILE]
 *
 * The requirements that cross chapters (issue 44, "no requirement crosses a chapter unannounced"), found
 * systematically: each known-wrong solution of the chapters named (every chapter by default) is applied to the
 * solution and run against the LATER chapters' graded tests that reached its region in a traced solution run. verify
 * already proves that each is caught by its own chapter; what this adds:
 *
 * - "also caught later": later tests that fail too. Each is a requirement on the earlier stub that a later chapter
 *   relies on. It is announced when the earlier chapter's own tests catch the same mistake (they do, verify's gate);
 *   the report lists, for each later chapter, what watch and hint would point at there (judgePointer, the same
 *   judging as pointers.ts): a wrong pointer there is issue 44's point 1, a chapter 4 failure blamed on a third stub.
 * - "caught only later": none can be, for a known-wrong solution (verify); the script says so when a solution
 *   passes every later test that reached its region.
 *
 * One vitest run for the traced solution, one for every workspace (verify's config and reporter, verify's allow list:
 * a workspace runs only the later tests that reached its region). A region that every later chapter reaches (the
 * mock provider, the loop) would run a thousand tests per solution: --max-files caps the test files per later
 * chapter and solution (default 3, the files whose tests reached the region most often first; 0 for all).
 * Author-only: minutes on 2 cores. Exits 1 when a later chapter points at a wrong stub.
 */
import { spawn } from 'node:child_process';
import { linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chaptersWithTests, parseScriptArgs } from '../kit/args.js';
import { importClosure } from '../kit/cache.js';
import { chapterStubs, learnerStubs, type LearnerStub } from '../kit/stubs.js';
import type { TestOutcome as KitOutcome } from '../kit/test-outcome.js';
import { parseChapter } from '../lib/chapters.js';
import { ROOT } from '../lib/paths.js';
import { buildWorkspace, listRegions, listSources } from '../lib/regions.js';
import type { TestOutcome } from './lib/verify-reporter.js';
import { loadWrongSolutions, type WrongSolution } from './lib/wrong-solutions.js';
import { judgePointer, type PointerVerdict } from './pointers.js';

const USAGE = 'npx tsx scripts/authors/cross-chapter.ts [chapterN ...] [--max-files=N] [--json=FILE]';
const { values, positionals } = parseScriptArgs(USAGE, {
  allowPositionals: true,
  options: { 'max-files': { type: 'string', default: '3' }, json: { type: 'string' } },
});
const maxFiles = Number(values['max-files']);
if (!Number.isInteger(maxFiles) || maxFiles < 0) {
  console.error(`--max-files wants a whole number, not "${values['max-files']}"\nUsage: ${USAGE}`);
  process.exit(2);
}
const all = chaptersWithTests(ROOT);
const asked = positionals.map((word) => {
  const n = parseChapter(word);
  if (n === undefined || !all.includes(n)) {
    console.error(`Unknown chapter: ${word}\nUsage: ${USAGE}`);
    process.exit(2);
  }
  return n;
});
const chapters = asked.length ? asked : all.filter((n) => n < Math.max(...all));
const SHARED = '(cross-chapter workspaces)';
// Inside the repository, so that the workspaces' files find node_modules (as verify's .verify/ and pointers' do).
const WORK = path.join(ROOT, '.kit', `cross-${process.pid}`);
mkdirSync(WORK, { recursive: true });
const solutionSrc = path.join(ROOT, 'solution/src');
const chapterOf = (file: string) => Number(/chapter(\d\d)/.exec(file)?.[1] ?? 0);

/** Runs verify's vitest config on `projects` and returns the outcomes its reporter wrote. */
async function runProjects(projects: object[], env: NodeJS.ProcessEnv = {}): Promise<TestOutcome[]> {
  const plan = path.join(WORK, `plan-${Date.now()}.json`);
  const out = path.join(WORK, `out-${Date.now()}.json`);
  writeFileSync(plan, JSON.stringify({ projects }));
  const args = [
    path.join(ROOT, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--config',
    'scripts/authors/verify.vitest.config.ts',
  ];
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: {
        ...process.env,
        FORCE_COLOR: '0',
        KIT_VERIFY_PLAN: plan,
        KIT_VERIFY_OUT: out,
        KIT_TARGET: '',
        KIT_VERIFY_WORKSPACES_PROJECT: SHARED,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.stderr.on('data', (chunk) => (text += chunk));
    child.on('error', reject);
    child.on('close', () => resolve(text));
  });
  try {
    return (JSON.parse(readFileSync(out, 'utf8')) as { outcomes: TestOutcome[] }).outcomes;
  } catch {
    throw new Error(`vitest did not finish:\n${output.slice(-3000)}`);
  }
}

/** Hard-links every file under `from` into `to` (a copy where links cannot be made). */
function linkTree(from: string, to: string, skip: (rel: string) => boolean, rel = ''): void {
  for (const entry of readdirSync(path.join(from, rel), { withFileTypes: true })) {
    const sub = path.join(rel, entry.name);
    if (skip(sub)) continue;
    if (entry.isDirectory()) linkTree(from, to, skip, sub);
    else {
      mkdirSync(path.dirname(path.join(to, sub)), { recursive: true });
      try {
        linkSync(path.join(from, sub), path.join(to, sub));
      } catch {
        writeFileSync(path.join(to, sub), readFileSync(path.join(from, sub)));
      }
    }
  }
}

interface Planned {
  wrong: WrongSolution;
  name: string;
  files: string[];
  reachedBy: number;
}

async function main(): Promise<number> {
  const started = Date.now();
  console.log(
    `cross-chapter: the known-wrong solutions of chapter(s) ${chapters.join(', ')} against later chapters' tests`,
  );
  const later = all.filter((n) => n > Math.min(...chapters));
  process.stdout.write('  the traced solution run of the later chapters …\n');
  const solution = await runProjects([
    {
      name: 'solution',
      src: solutionSrc,
      include: later.map((n) => `tests/chapter${String(n).padStart(2, '0')}/**/*.test.ts`),
    },
  ]);
  const failedInSolution = solution.filter((o) => o.state === 'failed');
  if (failedInSolution.length)
    console.log(`  (${failedInSolution.length} test(s) fail in the solution itself; they are left out)`);
  const good = solution.filter((o) => o.state === 'passed');
  const regionsOf = new Map(good.map((o) => [`${o.file}\0${o.name}`, o.regions]));

  // Each source file's importers, to know which files of a workspace differ in behaviour from the solution's.
  const sources = listSources(solutionSrc);
  const closures = new Map(sources.map((rel) => [rel, importClosure([path.join(solutionSrc, rel)], solutionSrc)]));
  const regionFile = new Map(listRegions(ROOT, 'solution').map((r) => [`chapter ${r.chapter}: ${r.name}`, r.file]));

  const planned: Planned[] = [];
  const unreached: WrongSolution[] = [];
  const allow: Record<string, string[]> = {};
  const own: Record<string, string[]> = {};
  for (const chapter of chapters) {
    for (const wrong of loadWrongSolutions(ROOT, chapter)) {
      const reached = good.filter((o) => chapterOf(o.file) > chapter && o.regions?.includes(wrong.region));
      if (!reached.length) {
        unreached.push(wrong);
        continue;
      }
      // The files whose tests reached the region most often first, at most maxFiles per later chapter.
      const byFile = new Map<string, number>();
      for (const o of reached) byFile.set(o.file, (byFile.get(o.file) ?? 0) + 1);
      const files = [...byFile.entries()]
        .sort((a, b) => chapterOf(a[0]) - chapterOf(b[0]) || b[1] - a[1] || a[0].localeCompare(b[0]))
        .filter(
          ([file], _, list) =>
            maxFiles === 0 ||
            list.filter(([f]) => chapterOf(f) === chapterOf(file)).findIndex(([f]) => f === file) < maxFiles,
        )
        .map(([file]) => file);
      const name = `x-${chapter}-${wrong.slug}`;
      const dir = path.join(WORK, 'ws', name);
      const { files: text } = buildWorkspace(solutionSrc, () => false, new Map([[wrong.region, wrong.body]]));
      for (const [rel, body] of text) {
        const target = path.join(dir, 'src', rel);
        mkdirSync(path.dirname(target), { recursive: true });
        const original = path.join(solutionSrc, rel);
        try {
          if (statSync(original).isFile() && readFileSync(original, 'utf8') === body) {
            linkSync(original, target);
            continue;
          }
        } catch {
          // not in the solution, or no hard links here: write it
        }
        writeFileSync(target, body);
      }
      linkTree(
        path.join(ROOT, 'tests'),
        path.join(dir, 'tests'),
        (rel) => rel === 'kit' || rel.split(path.sep).includes('wrong') || rel.endsWith('.md'),
      );
      const changed = path.join(ROOT, regionFile.get(wrong.region) ?? '');
      own[name] = sources.filter((rel) => closures.get(rel)!.includes(changed));
      for (const file of files) allow[`${name}/${file}`] = reached.filter((o) => o.file === file).map((o) => o.name);
      planned.push({ wrong, name, files, reachedBy: reached.length });
    }
  }
  const allowFile = path.join(WORK, 'allow.json');
  writeFileSync(allowFile, JSON.stringify({ workspaces: path.join(WORK, 'ws'), tests: allow }));
  const total = Object.values(allow).reduce((sum, names) => sum + names.length, 0);
  process.stdout.write(
    `  ${planned.length} workspaces, ${total} later tests (${unreached.length} solution(s) no later test reaches) …\n`,
  );
  const outcomes = planned.length
    ? await runProjects(
        [
          {
            name: SHARED,
            src: solutionSrc,
            workspaces: path.join(WORK, 'ws'),
            own,
            include: planned.flatMap((p) => p.files.map((file) => `${p.name}/${file}`)),
          },
        ],
        { KIT_VERIFY_ALLOW: allowFile, KIT_VERIFY_WORKERS: process.env.KIT_VERIFY_WORKERS ?? '6' },
      )
    : [];

  // What watch and hint would show in each later chapter, the stubs up to it written.
  const stubsFor = new Map<number, [LearnerStub[], LearnerStub[]]>();
  const stubsOf = (n: number) => {
    if (!stubsFor.has(n)) {
      const upTo = (stub: LearnerStub) => ({ ...stub, todo: stub.chapter > n });
      stubsFor.set(n, [chapterStubs(ROOT, n, 'solution').map(upTo), learnerStubs(ROOT, 'solution').map(upTo)]);
    }
    return stubsFor.get(n)!;
  };
  const verdicts: Record<PointerVerdict, number> = { right: 0, honest: 0, wrong: 0 };
  const rows: Array<Record<string, unknown>> = [];
  const wrongPointers: string[] = [];
  let onlyOwn = 0;
  for (const p of planned) {
    const mine = outcomes.filter((o) => o.project === p.name && o.state !== 'skipped');
    const failing = mine.filter((o) => o.state === 'failed');
    if (!failing.length) {
      onlyOwn++;
      rows.push({ wrong: p.wrong.file, later: [], ran: mine.length });
      continue;
    }
    const want = p.wrong.region.replace(/^chapter \d+: /, '');
    const perChapter: Array<{
      chapter: number;
      failed: number;
      got?: string;
      verdict?: PointerVerdict;
      first: string;
    }> = [];
    for (const n of [...new Set(failing.map((o) => chapterOf(o.file)))].sort((a, b) => a - b)) {
      const tests: KitOutcome[] = mine
        .filter((o) => chapterOf(o.file) === n)
        .map((o) => {
          // The workspaces' run is not traced: each test's regions are those of the traced solution run.
          const regions = regionsOf.get(`${o.file}\0${o.name}`);
          const parts = o.name.split(' > ');
          return {
            chapter: n,
            file: o.file,
            suites: parts.slice(0, -1),
            name: parts.at(-1)!,
            fullName: o.name,
            status: o.state === 'passed' ? 'passed' : o.state === 'failed' ? 'failed' : 'skipped',
            message: o.messages.join('\n'),
            ...(regions ? { regions } : {}),
          };
        });
      const [chapterStubList, allStubs] = stubsOf(n);
      const judged = judgePointer(chapterStubList, allStubs, tests, want);
      if (judged.verdict) verdicts[judged.verdict]++;
      const first = failing.find((o) => chapterOf(o.file) === n)!;
      perChapter.push({
        chapter: n,
        failed: tests.filter((t) => t.status === 'failed').length,
        ...judged,
        first: `${first.name}: ${(first.messages[0] ?? '').split('\n')[0]!.slice(0, 160)}`,
      });
      if (judged.verdict === 'wrong')
        wrongPointers.push(
          `${path.relative(ROOT, p.wrong.file)} (${p.wrong.why}): chapter ${n}'s watch and hint point at ${judged.got ?? 'nothing'}, the mistake is in ${want} (chapter ${p.wrong.chapter}); first failure: ${first.name}`,
        );
    }
    rows.push({ wrong: path.relative(ROOT, p.wrong.file), ran: mine.length, later: perChapter });
  }

  console.log('');
  for (const chapter of chapters) {
    const mine = planned.filter((p) => p.wrong.chapter === chapter);
    const alsoLater = rows.filter(
      (r) => String(r.wrong).includes(`chapter${String(chapter).padStart(2, '0')}/`) && (r.later as []).length,
    );
    const byLater = new Map<number, number>();
    for (const r of alsoLater)
      for (const c of r.later as Array<{ chapter: number }>) byLater.set(c.chapter, (byLater.get(c.chapter) ?? 0) + 1);
    const spread = [...byLater.entries()].map(([n, count]) => `${count} in chapter ${n}`).join(', ');
    console.log(
      `chapter ${chapter}: ${loadWrongSolutions(ROOT, chapter).length} known-wrong, ${mine.length} reached by later tests, ${alsoLater.length} also caught later${spread ? ` (${spread})` : ''}`,
    );
  }
  console.log(
    `\nlater chapters' pointers at an earlier chapter's mistake: ${verdicts.right} right, ${verdicts.honest} honest, ${verdicts.wrong} wrong`,
  );
  console.log(
    `caught only later: 0 possible (verify: each is caught by its own chapter); ${onlyOwn} of ${planned.length} pass every later test they ran (the later chapters do not rely on that mistake's requirement, within --max-files=${maxFiles})`,
  );
  for (const line of wrongPointers) console.log(`  WRONG POINTER ${line}`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ rows, verdicts, wrongPointers }, null, 2)}\n`);
  console.log(`\n${((Date.now() - started) / 1000).toFixed(0)} s`);
  return wrongPointers.length ? 1 : 0;
}

try {
  process.exitCode = await main();
} finally {
  rmSync(WORK, { recursive: true, force: true });
}
