import { availableParallelism } from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { regionTrace } from './scripts/kit/trace-plugin.js';
import { TEST_TIMEOUT_MS } from './tests/helpers/limits.js';

/**
 * Tests import the kit as `kit` or `kit/<file>`. That alias points at starter/src by default, at solution/src when
 * KIT_TARGET=solution (what `npm test -- --solution` sets), or at any tree named by KIT_SRC (used by verify).
 */
const root = import.meta.dirname;
const src = path.resolve(
  root,
  process.env.KIT_SRC ?? (process.env.KIT_TARGET === 'solution' ? 'solution/src' : 'starter/src'),
);

export default defineConfig({
  // Records which chapter regions each test reached, so the kit points a failure at the stub it exercised.
  plugins: [regionTrace()],
  resolve: {
    alias: [
      { find: /^kit$/, replacement: path.join(src, 'index.ts') },
      { find: /^kit\/(.*)$/, replacement: `${src}/$1` },
    ],
  },
  test: {
    include: ['tests/chapter*/**/*.test.ts'],
    setupFiles: [path.join(root, 'tests/setup.ts')],
    reporters: ['default'],
    // A test's outcome depends on the code, never on the machine's speed (docs/authors.md): what might hang waits on
    // its event and gives up at HANG_MS (tests/helpers/wait.ts) with its step's message; this timeout is only the
    // last resort for a wait nobody bounded, far above what a correct solution needs on a loaded machine.
    testTimeout: TEST_TIMEOUT_MS,
    hookTimeout: TEST_TIMEOUT_MS,
    // Closing the workers waits for what a test left running (a server, a child); under load that takes a while.
    teardownTimeout: TEST_TIMEOUT_MS,
    // Measured (npm run bench): worker threads that keep their module cache between test files (isolate: false)
    // run the whole graded suite in about half the time of isolated ones, with the same outcome for every test.
    // Each file still gets its own setup (tests/setup.ts) and HOME; graded tests share no module state.
    pool: 'threads',
    isolate: false,
    // Graded tests spend much of their time waiting (real processes, timeouts, fake servers), not computing: one
    // worker more than the cores keeps the CPU busy while others wait. vitest's own default is one fewer than the
    // cores. Measured on 2 cores (solution): every chapter 11.8 s with 1 worker, 7.5 s with 2, 6.4 s with 3;
    // chapter 4 4.7 s to 2.2 s, chapter 11 2.5 s to 1.7 s.
    maxWorkers: availableParallelism() + 1,
  },
});
