/**
 * The report the kit reads (RawReport in outcomes.ts, turned into outcomes by toOutcomes): every test's outcome,
 * from vitest's finished test modules. Written by the kit's reporter (reporter.ts) for a child vitest, and sent by
 * watch's warm vitest (watch/warm-vitest.mjs) over IPC: one function, so that the two can never drift apart.
 *
 * Plain JavaScript (types in raw-report.d.ts) so that warm-vitest.mjs runs with no TypeScript loader in front of
 * vitest.
 */

/** A thrown value as the report keeps it: its message (named when not a plain Error), the values compared. */
const errorInfo = (error) =>
  error && {
    message: `${error.name && error.name !== 'Error' && !String(error.message).startsWith(error.name) ? `${error.name}: ` : ''}${error.message ?? ''}`,
    expected: typeof error.expected === 'string' ? error.expected : undefined,
    actual: typeof error.actual === 'string' ? error.actual : undefined,
    diff: error.diff,
    stack: error.stack,
  };

export function rawReport(modules, unhandledErrors) {
  return {
    modules: modules.map((module) => ({
      file: module.moduleId,
      errors: module.errors().map(errorInfo),
      // Regions reached outside any test (trace.ts): while the file loaded, or in its beforeAll and afterAll.
      regions: module.meta().kitRegions,
      tests: [...module.children.allTests()].map((test) => {
        const result = test.result();
        const titles = [];
        for (let parent = test.parent; parent.type === 'suite'; parent = parent.parent) titles.unshift(parent.name);
        return {
          name: test.name,
          suites: titles,
          fullName: test.fullName,
          state: result.state,
          line: test.location?.line,
          regions: test.meta().kitRegions,
          error: errorInfo(result.errors?.[0]),
        };
      }),
    })),
    // Vitest names the test file an unhandled error came from (VITEST_TEST_PATH) when it knows: kept, so the error
    // counts against that file (and its cached results) rather than against the whole run.
    unhandledErrors: unhandledErrors.map((error) => ({ ...errorInfo(error), file: error?.VITEST_TEST_PATH })),
  };
}
