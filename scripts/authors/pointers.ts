/**
 * npx tsx scripts/authors/pointers.ts [chapterN ...]: checks where the kit points a learner for each known-wrong solution
 * (tests/chapterNN/wrong/*.txt). Each is applied to the solution with every other region solved, the chapter's tests
 * run in one warm vitest, and what watch and hint show (stubs.ts, chapterPointer) is judged against the region the
 * wrong solution edits:
 *
 * - right: one stub named, the one the mistake is in;
 * - honest: the failing test exercised several written stubs and nothing tells which is wrong, so the kit lists them,
 *   the broken one among them, beside what the failure says;
 * - wrong: one stub named that is not the broken one, or a list without it, or nothing.
 *
 * Prints each chapter's counts and every wrong pointer; exits 1 when any pointer is wrong. verify calls pointerGate.
 *
 * A wrong or honest pointer means the failing tests do not say which stub they exercise: label the assertion with its
 * step (`runSerially step 2: ...`, which names the stub), or add a test that calls the stub alone.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseChapter } from '../lib/chapters.js';
import { ROOT } from '../lib/paths.js';
import { buildWorkspace } from '../lib/regions.js';
import { loadWrongSolutions, type WrongSolution } from './lib/wrong-solutions.js';
import { chaptersWithTests, parseScriptArgs } from '../kit/args.js';
import { chapterPointer, chapterStubs, learnerStubs, type LearnerStub } from '../kit/stubs.js';
import type { TestOutcome } from '../kit/test-outcome.js';
import { warmRunner } from '../kit/watch/runners.js';

export type PointerVerdict = 'right' | 'honest' | 'wrong';

export interface PointerResult {
  chapter: number;
  slug: string;
  /** The stub the wrong solution breaks. */
  want: string;
  /** What the kit shows: `name` for one stub, `name, name?` for a list; undefined for nothing. */
  got?: string;
  /** Undefined when no graded test failed (verify reports that case). */
  verdict?: PointerVerdict;
  uncaught: boolean;
}

/** Judges what the kit shows for a chapter's run (`tests`) against the stub the mistake is in (`want`, its name). */
export function judgePointer(
  chapterStubs: readonly LearnerStub[],
  allStubs: readonly LearnerStub[],
  tests: readonly TestOutcome[],
  want: string,
): Pick<PointerResult, 'got' | 'verdict'> {
  const focus = chapterPointer(chapterStubs, allStubs, tests);
  if (!focus) return {};
  const { pointer } = focus;
  if (pointer.kind === 'stub')
    return { got: pointer.stub.name, verdict: pointer.stub.name === want ? 'right' : 'wrong' };
  if (pointer.kind === 'none') return { verdict: 'wrong' };
  const names = pointer.stubs.map((stub) => stub.name);
  return { got: `${names.join(', ')}?`, verdict: names.includes(want) ? 'honest' : 'wrong' };
}

export async function checkPointers(
  root: string,
  chapters: number[],
  log: (line: string) => void = () => {},
): Promise<PointerResult[]> {
  const work = path.join(root, '.kit', `pointers-${process.pid}`);
  const src = path.join(work, 'src');
  rmSync(work, { recursive: true, force: true });
  const runner = await warmRunner(root, { src });
  const results: PointerResult[] = [];
  try {
    for (const chapter of chapters) {
      // Every stub has a body in the workspace but those of later chapters: none of this chapter's is a TODO.
      const later = (stub: LearnerStub) => ({ ...stub, todo: stub.chapter > chapter });
      const stubs = chapterStubs(root, chapter, 'solution').map(later);
      const all = learnerStubs(root, 'solution').map(later);
      for (const wrong of loadWrongSolutions(root, chapter)) {
        const { files } = buildWorkspace(
          path.join(root, 'solution/src'),
          (r) => r.chapter > chapter,
          new Map([[wrong.region, wrong.body]]),
        );
        const written: string[] = [];
        for (const [rel, text] of files) {
          const file = path.join(src, rel);
          mkdirSync(path.dirname(file), { recursive: true });
          writeFileSync(file, text);
          written.push(file);
        }
        runner.invalidate(written);
        const { tests } = await runner.run([chapter]);
        const want = wrong.region.replace(/^chapter \d+: /, '');
        const uncaught = !tests.some((t) => t.status === 'failed');
        const judged = uncaught ? {} : judgePointer(stubs, all, tests, want);
        results.push({ chapter, slug: wrong.slug, want, uncaught, ...judged });
        if (judged.verdict === 'wrong')
          log(`chapter ${chapter} ${wrong.slug}: points at ${judged.got ?? 'nothing'}, the mistake is in ${want}`);
      }
    }
  } finally {
    await runner.close();
    rmSync(work, { recursive: true, force: true });
  }
  return results;
}

/** Each chapter's right, honest and wrong pointers, one line each, and the total. */
export function pointerSummary(results: readonly PointerResult[]): string[] {
  const count = (list: readonly PointerResult[], verdict: PointerVerdict) =>
    list.filter((r) => r.verdict === verdict).length;
  const line = (label: string, list: readonly PointerResult[]) => {
    const judged = list.filter((r) => r.verdict).length;
    const ok = count(list, 'right') + count(list, 'honest');
    return `${label}: ${count(list, 'right')} right, ${count(list, 'honest')} honest, ${count(list, 'wrong')} wrong of ${judged} (${judged ? Math.floor((100 * ok) / judged) : 100}% right or honest)`;
  };
  const chapters = [...new Set(results.map((r) => r.chapter))];
  return [
    ...chapters.map((n) =>
      line(
        `chapter ${n}`,
        results.filter((r) => r.chapter === n),
      ),
    ),
    line('all', results),
  ];
}

/**
 * The gate for verify: every known-wrong solution of `chapters` (every chapter with tests by default) is pointed at
 * rightly or honestly. `ok` false lists each wrong pointer in `misses`; `summary` is pointerSummary's lines.
 */
export async function pointerGate(
  root: string,
  chapters: number[] = chaptersWithTests(root),
): Promise<{ ok: boolean; summary: string[]; misses: string[] }> {
  const misses: string[] = [];
  const results = await checkPointers(root, chapters, (line) => misses.push(line));
  return { ok: misses.length === 0, summary: pointerSummary(results), misses };
}

/** One test's outcome as verify's reporter writes it (scripts/authors/lib/verify-reporter.ts). */
export interface VerifyOutcome {
  file: string;
  /** The test's full name, describe blocks first, joined with " > ". */
  name: string;
  state: string;
  messages: string[];
  regions?: string[];
}

/**
 * The gate without a run of its own: judges the known-wrong solutions from the outcomes verify already has (its
 * known-wrong workspaces' run), one entry per solution. That run holds only the tests that reached the broken region;
 * the others would pass as in the solution run, so the failures, and with them the verdicts, are the same.
 */
export function pointerGateFromOutcomes(
  root: string,
  runs: ReadonlyArray<{ wrong: WrongSolution; outcomes: readonly VerifyOutcome[] }>,
): { ok: boolean; summary: string[]; misses: string[] } {
  const misses: string[] = [];
  const results: PointerResult[] = [];
  const stubsOf = new Map<number, [LearnerStub[], LearnerStub[]]>();
  for (const { wrong, outcomes } of runs) {
    const { chapter } = wrong;
    if (!stubsOf.has(chapter)) {
      const later = (stub: LearnerStub) => ({ ...stub, todo: stub.chapter > chapter });
      stubsOf.set(chapter, [
        chapterStubs(root, chapter, 'solution').map(later),
        learnerStubs(root, 'solution').map(later),
      ]);
    }
    const [stubs, all] = stubsOf.get(chapter)!;
    const tests: TestOutcome[] = outcomes.map((o) => {
      const parts = o.name.split(' > ');
      return {
        chapter,
        file: o.file,
        suites: parts.slice(0, -1),
        name: parts.at(-1)!,
        fullName: o.name,
        status:
          o.state === 'passed' || o.state === 'pass'
            ? 'passed'
            : o.state === 'failed' || o.state === 'fail'
              ? 'failed'
              : 'skipped',
        message: o.messages.join('\n'),
        ...(o.regions ? { regions: o.regions } : {}),
      };
    });
    const want = wrong.region.replace(/^chapter \d+: /, '');
    const uncaught = !tests.some((t) => t.status === 'failed');
    const judged = uncaught ? {} : judgePointer(stubs, all, tests, want);
    results.push({ chapter, slug: wrong.slug, want, uncaught, ...judged });
    if (judged.verdict === 'wrong')
      misses.push(
        `${path.relative(root, wrong.file)}: watch and hint point at ${judged.got ?? 'nothing'}, the mistake is in ${want}`,
      );
  }
  return { ok: misses.length === 0, summary: pointerSummary(results), misses };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const usage = 'npx tsx scripts/authors/pointers.ts [chapterN ...]';
  const { positionals } = parseScriptArgs(usage, { allowPositionals: true });
  const asked = positionals.map(parseChapter);
  if (asked.includes(undefined)) {
    console.error(
      `Not a chapter: ${positionals.filter((arg) => parseChapter(arg) === undefined).join(' ')}\nUsage: ${usage}`,
    );
    process.exit(2);
  }
  const chapters = asked.length ? (asked as number[]) : chaptersWithTests(ROOT);
  const { ok, summary } = await pointerGate(ROOT, chapters).then((gate) => {
    for (const miss of gate.misses) console.log(miss);
    return gate;
  });
  for (const line of summary) console.log(line);
  process.exit(ok ? 0 : 1);
}
