/** Types of raw-report.js (plain JavaScript so that watch/warm-vitest.mjs needs no TypeScript loader). */
import type { TestModule } from 'vitest/node';
import type { RawReport } from './outcomes.js';

/** The report the kit reads (see run-tests.ts): every test's outcome, from vitest's finished test modules. */
export declare function rawReport(
  modules: ReadonlyArray<TestModule>,
  unhandledErrors: ReadonlyArray<unknown>,
): RawReport;
