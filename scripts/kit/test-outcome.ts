/** One graded test's outcome, as the kit's commands read it from vitest (run-tests.ts) and keep it (cache.ts). */
export type TestStatus = 'passed' | 'failed' | 'skipped';

export interface TestOutcome {
  chapter: number;
  /** The test file, relative to the root. */
  file: string;
  /** 1-based line of the test in its file, when known. */
  line?: number;
  /** The describe blocks around the test, outermost first. */
  suites: string[];
  /** The test's own name. */
  name: string;
  /** Suites and name joined with " > ". */
  fullName: string;
  status: TestStatus;
  /** The failure's first line(s); empty when the test passed. */
  message: string;
  expected?: string;
  actual?: string;
  diff?: string;
  /** The chapter regions the test reached, as `chapter N: name`, in the order it first reached them (trace.ts). */
  regions?: string[];
}

/** One run of test files: its outcomes, and what the kit knows about how it ran (run-tests.ts). */
export interface RunResult {
  tests: TestOutcome[];
  /** Errors outside any test (a file that failed to load, an unhandled rejection). Counted as failures. */
  errors: string[];
  /** Wall time of the run in ms. */
  duration: number;
  /** Chapters whose results were read from the cache instead of run (see cache.ts). */
  reused?: number[];
  /** Per test file, the regions its run reached outside any test (while loading, in beforeAll and afterAll). */
  fileRegions?: Record<string, string[]>;
  /**
   * Test files that failed for a reason other than an unfinished stub and were run once more, alone, before their
   * results were kept (rerunFailed in run-tests.ts): `recovered` are those that passed the second time (a failure
   * of the machine, not of the code; only the second run is kept).
   */
  rerun?: { files: string[]; recovered: string[] };
}
