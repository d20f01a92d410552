/**
 * npx tsx scripts/authors/pointers.ts [chapterN ...]: checks where the kit points a learner for each known-wrong solution
 * (tests/chapterNN/wrong/*.txt). Each is applied to the solution with every other region solved, the chapter's tests
 * run in one warm vitest, and the stub that hint and watch would name (the chapter's first unfinished stub) is compared
 * with the region the wrong solution edits. Prints every miss and the count; exits 0 (a report, not a gate).
 *
 * A miss means the failing tests do not say which stub they exercise: name one stub per describe block where you can
 * (`ToolSet.add (src/tool.ts)` rather than `ToolSet (src/tool.ts)`), or add a test that calls the stub directly.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseChapter } from '../lib/chapters.js';
import { ROOT } from '../lib/paths.js';
import { buildWorkspace } from '../lib/regions.js';
import { loadWrongSolutions } from './lib/wrong-solutions.js';
import { chaptersWithTests, parseScriptArgs } from '../kit/args.js';
import { chapterStubs, firstUnfinished } from '../kit/stubs.js';
import { warmRunner } from '../kit/watch/runners.js';

export interface PointerResult {
  chapter: number;
  slug: string;
  want: string;
  got?: string;
  /** No graded test failed (verify reports that case). */
  uncaught: boolean;
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
      const stubs = chapterStubs(root, chapter, 'solution').map((stub) => ({ ...stub, todo: false }));
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
        const got = uncaught ? undefined : firstUnfinished(stubs, tests)?.stub.name;
        results.push({ chapter, slug: wrong.slug, want, got, uncaught });
        if (!uncaught && got !== want)
          log(`chapter ${chapter} ${wrong.slug}: points at ${got ?? 'nothing'}, the mistake is in ${want}`);
      }
    }
  } finally {
    await runner.close();
    rmSync(work, { recursive: true, force: true });
  }
  return results;
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
  const results = await checkPointers(ROOT, chapters, (line) => console.log(line));
  const judged = results.filter((r) => !r.uncaught);
  console.log(
    `${judged.filter((r) => r.got === r.want).length} of ${judged.length} known-wrong solutions point at the stub they break (chapters ${chapters.join(', ')}).`,
  );
  process.exit(0);
}
