/**
 * A vitest reporter for the kit's commands: writes every test's outcome, with the failure's expected and actual
 * values, to the JSON file named by KIT_REPORT_FILE. Loaded by vitest (see run-tests.ts), never imported directly.
 */
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

interface ErrorLike {
  message?: string;
  name?: string;
  expected?: unknown;
  actual?: unknown;
  diff?: string;
  stack?: string;
}

const errorInfo = (error: ErrorLike | undefined) =>
  error && {
    message: `${error.name && error.name !== 'Error' && !String(error.message).startsWith(error.name) ? `${error.name}: ` : ''}${error.message ?? ''}`,
    expected: typeof error.expected === 'string' ? error.expected : undefined,
    actual: typeof error.actual === 'string' ? error.actual : undefined,
    diff: error.diff,
    stack: error.stack,
  };

/** The report the kit reads (see run-tests.ts): every test's outcome, from vitest's finished test modules. */
export function rawReport(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>) {
  return {
    modules: modules.map((module) => ({
      file: module.moduleId,
      errors: module.errors().map(errorInfo),
      // Regions reached outside any test (trace.ts): while the file loaded, or in its beforeAll and afterAll.
      regions: (module.meta() as { kitRegions?: string[] }).kitRegions,
      tests: [...module.children.allTests()].map((test) => {
        const result = test.result();
        const titles: string[] = [];
        for (let parent = test.parent; parent.type === 'suite'; parent = parent.parent) titles.unshift(parent.name);
        return {
          name: test.name,
          suites: titles,
          fullName: test.fullName,
          state: result.state,
          line: test.location?.line,
          regions: (test.meta() as { kitRegions?: string[] }).kitRegions,
          error: errorInfo(result.errors?.[0] as ErrorLike | undefined),
        };
      }),
    })),
    // Vitest names the test file an unhandled error came from (VITEST_TEST_PATH) when it knows: kept, so the error
    // counts against that file (and its cached results) rather than against the whole run.
    unhandledErrors: unhandledErrors.map((error) => ({
      ...errorInfo(error as ErrorLike),
      file: (error as { VITEST_TEST_PATH?: unknown }).VITEST_TEST_PATH as string | undefined,
    })),
  };
}

export default class KitReporter implements Reporter {
  /** One mark per finished test file, for the kit's progress line (run-tests.ts, PROGRESS_MARK). */
  onTestModuleEnd(): void {
    if (process.env.KIT_PROGRESS_LINES) process.stdout.write('\u0000kit:file-done\u0000\n');
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<ErrorLike>): void {
    const file = process.env.KIT_REPORT_FILE;
    if (!file) return;
    writeFileSync(file, JSON.stringify(rawReport(modules, unhandledErrors)));
  }
}
