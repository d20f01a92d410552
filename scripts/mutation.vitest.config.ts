/**
 * The vitest configuration Stryker runs (npm run mutation). Stryker copies the repository into a sandbox and runs
 * this file from there, so every path below is the sandbox's: `kit/*` resolves to the sandbox's solution/src, the
 * copy Stryker has instrumented with its mutants, never to the original tree.
 * KIT_MUTATION_CHAPTER names the one chapter whose graded tests run (tests/chapterNN/).
 */
import path from 'node:path';
import { defineConfig } from 'vitest/config';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'solution/src');
const chapter = Number(process.env.KIT_MUTATION_CHAPTER);
if (!Number.isInteger(chapter) || chapter < 1) {
  throw new Error('scripts/mutation.vitest.config.ts needs KIT_MUTATION_CHAPTER (run it through npm run mutation)');
}

export default defineConfig({
  root,
  resolve: {
    alias: [
      { find: /^kit$/, replacement: path.join(src, 'index.ts') },
      { find: /^kit\/(.*)$/, replacement: `${src}/$1` },
    ],
  },
  test: {
    include: [`tests/chapter${String(chapter).padStart(2, '0')}/**/*.test.ts`],
    setupFiles: [path.join(root, 'tests/setup.ts')],
    // A limit only a hang reaches: a test that passes takes a second or two, but a loaded machine once stretched
    // chapter 10's twenty-task test past 5 s in the dry run, which loses the whole run. It stays below Stryker's
    // timeoutMS (20 s, scripts/authors/mutation.ts), so a mutant that makes a test wait forever is failed by vitest
    // first.
    testTimeout: 15_000,
    pool: 'threads',
    // One module graph per test worker, reused from mutant to mutant: about twice as fast, and Stryker switches
    // mutants at run time, so each mutant is still what the tests see. KIT_MUTATION_ISOLATE=1 (npm run mutation --
    // --isolate) reloads every module for every mutant, to rule out state leaking from one mutant's run to the next.
    isolate: process.env.KIT_MUTATION_ISOLATE === '1',
  },
});
