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
