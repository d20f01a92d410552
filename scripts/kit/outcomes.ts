/**
 * From the report vitest's run leaves (raw-report.js: the kit's reporter, or watch's warm vitest) to the kit's
 * outcomes: one TestOutcome per test in file order, a failed entry for a file that could not load, and the errors
 * outside any test.
 */
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { TestOutcome, TestStatus } from './test-outcome.js';

/** `text` without terminal escape codes (colours, cursor moves, links): Node's own. */
export const stripAnsi = (text: string) => stripVTControlCharacters(text);

/** The chapter of a test file path such as tests/chapter03/simple-agent.test.ts, or 0. */
export function chapterOfFile(file: string): number {
  const match = /(?:^|[\\/])chapter(\d+)[\\/]/.exec(file);
  return match ? Number(match[1]) : 0;
}

export interface RawError {
  message?: string;
  expected?: string;
  actual?: string;
  diff?: string;
}
export interface RawReport {
  modules: Array<{
    file: string;
    errors: RawError[];
    regions?: string[];
    tests: Array<{
      name: string;
      suites: string[];
      state: string;
      line?: number;
      error?: RawError;
      regions?: string[];
    }>;
  }>;
  unhandledErrors: Array<RawError & { file?: string }>;
}

function firstLines(message: string | undefined, max = 12): string {
  const lines = stripAnsi(message ?? '')
    .trimEnd()
    .split('\n');
  return lines.length > max ? [...lines.slice(0, max), '…'].join('\n') : lines.join('\n');
}

/** The kit's outcomes from a raw report (reporter.ts); watch calls it with the report of its warm vitest. */
export function toOutcomes(
  root: string,
  raw: RawReport,
): { tests: TestOutcome[]; errors: string[]; fileRegions: Record<string, string[]> } {
  const tests: TestOutcome[] = [];
  const errors: string[] = [];
  const fileRegions: Record<string, string[]> = {};
  const modules = [...raw.modules].sort((a, b) => a.file.localeCompare(b.file));
  for (const module of modules) {
    const file = path.relative(root, module.file).split(path.sep).join('/');
    const chapter = chapterOfFile(file);
    if (module.regions?.length) fileRegions[file] = module.regions;
    for (const error of module.errors) {
      const message = firstLines(error.message);
      errors.push(`${file}: ${message}`);
      if (module.tests.length === 0) {
        // The file failed to load: no test in it ran. Count it as one failed entry so it is never invisible.
        tests.push({
          chapter,
          file,
          suites: [],
          name: `${file} could not load`,
          fullName: `${file} could not load`,
          status: 'failed',
          message,
        });
      }
    }
    for (const test of module.tests) {
      const status: TestStatus = test.state === 'passed' ? 'passed' : test.state === 'failed' ? 'failed' : 'skipped';
      tests.push({
        chapter,
        file,
        line: test.line,
        suites: test.suites,
        name: test.name,
        fullName: [...test.suites, test.name].join(' > '),
        status,
        message: status === 'failed' ? firstLines(test.error?.message) || 'failed' : '',
        ...(test.error?.expected !== undefined ? { expected: stripAnsi(test.error.expected) } : {}),
        ...(test.error?.actual !== undefined ? { actual: stripAnsi(test.error.actual) } : {}),
        ...(test.error?.diff ? { diff: stripAnsi(test.error.diff) } : {}),
        ...(test.regions ? { regions: test.regions } : {}),
      });
    }
  }
  for (const error of raw.unhandledErrors) {
    const file = error.file ? path.relative(root, error.file).split(path.sep).join('/') : undefined;
    errors.push(`${file ? `${file}: ` : ''}unhandled: ${firstLines(error.message)}`);
  }
  return { tests, errors, fileRegions };
}
