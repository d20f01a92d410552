import { defineConfig } from 'vitest/config';

/** The kit's own tests (npm run test:kit): the tooling, not the learner. Not graded. */
export default defineConfig({
  test: {
    include: ['tests/kit/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
