/**
 * A setup file of verify's shared project (unlock and known-wrong workspaces), loaded when KIT_VERIFY_ALLOW names a
 * JSON file of { "<workspace>/<test file>": [full test names] }: a test of a listed file that is not in its list is
 * skipped. A known-wrong solution changes the inside of one region, so a test that never reached that region in the
 * solution run runs the very same code here, and passes as it did there: only the tests that reached it can catch
 * the mistake (verify.ts). Files that are not listed run whole.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach } from 'vitest';

const allowed = JSON.parse(readFileSync(process.env.KIT_VERIFY_ALLOW!, 'utf8')) as {
  workspaces: string;
  tests: Record<string, string[]>;
};

beforeEach((context) => {
  const file = path.relative(allowed.workspaces, context.task.file.filepath).split(path.sep).join('/');
  const names = allowed.tests[file];
  if (names && !names.includes(context.task.fullTestName ?? context.task.name))
    context.skip('did not reach the changed region in the solution run');
});
