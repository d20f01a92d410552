/**
 * A vitest reporter for the kit's commands: writes every test's outcome, with the failure's expected and actual
 * values, to the JSON file named by KIT_REPORT_FILE (the report is raw-report.js's). Loaded by vitest (see
 * run-tests.ts), never imported directly.
 */
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';
import { rawReport } from './raw-report.js';

export default class KitReporter implements Reporter {
  /** One mark per finished test file, for the kit's progress line (progress-line.ts, PROGRESS_MARK). */
  onTestModuleEnd(): void {
    if (process.env.KIT_PROGRESS_LINES) process.stdout.write('\u0000kit:file-done\u0000\n');
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const file = process.env.KIT_REPORT_FILE;
    if (!file) return;
    writeFileSync(file, JSON.stringify(rawReport(modules, unhandledErrors)));
  }
}
