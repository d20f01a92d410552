import { defineConfig } from 'vitest/config';

/** The kit's own tests (npm run test:kit): the tooling, not the learner. Not graded. */
export default defineConfig({
  test: {
    include: ['tests/kit/**/*.test.ts'],
    // A last resort only: each wait for a program has its own limit (KIT_HANG_MS, KIT_RUN_MS in tests/kit/helpers.ts),
    // and a machine several times slower than the one the kit's figures come from must pass.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Two files at a time even on 2 cores (vitest's default there is one): the kit's tests mostly wait on the
    // commands they start, so two overlap well (measured: 179 s against 332 s for the same 70 tests).
    maxWorkers: 2,
  },
});
