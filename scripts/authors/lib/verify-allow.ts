/**
 * A setup file of verify's shared project (unlock and known-wrong workspaces), loaded when KIT_VERIFY_ALLOW names a
 * JSON file of { "<workspace>/<test file>": [full test names] }: a test of a listed file that is not in its list is
 * skipped. A known-wrong solution changes the inside of one region, so a test that never reached that region in the
 * solution run runs the very same code here, and passes as it did there: only the tests that reached it can catch
 * the mistake (verify.ts). Files that are not listed run whole.
 *
 * It also gives a known-wrong workspace's tests a tighter last-resort limit than vitest's TEST_TIMEOUT_MS (see
 * KNOWN_WRONG_TEST_MS below). Unlock workspaces keep the full limit: their solved chapters must pass.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, expect, vi } from 'vitest';
import { HANG_MS, TEST_TIMEOUT_MS } from '../../../tests/helpers/limits.js';

const allowed = JSON.parse(readFileSync(process.env.KIT_VERIFY_ALLOW!, 'utf8')) as {
  workspaces: string;
  tests: Record<string, string[]>;
};

/**
 * Test files that hold a resource one test thread of a process at a time (chapter 16's real sandbox: its runtime
 * names its proxy's socket by process id, so its tests take a per-process lock). Run in each of the known-wrong
 * workspaces, they wait for one another: 35 workspaces of chapter 16 at 2-3 s each in a row added some 90 s to the
 * workspaces' run (2026-12-03). A known-wrong workspace skips them: every known-wrong solution of that chapter is
 * caught by its other tests, and were one caught only here, verify would report it as not caught, never the other
 * way round. The solution's, the starter's and the unlock workspaces' runs keep them.
 */
const ONE_AT_A_TIME = new Set(['chapter16/boundary.test.ts']);

beforeEach((context) => {
  const file = path.relative(allowed.workspaces, context.task.file.filepath).split(path.sep).join('/');
  const [workspace, , ...inTests] = file.split('/');
  if (workspace?.startsWith('wrong-') && ONE_AT_A_TIME.has(inTests.join('/')))
    context.skip('holds the real sandbox, one test thread at a time: the known-wrong solutions are caught by the rest');
  const names = allowed.tests[file];
  if (names && !names.includes(context.task.fullTestName ?? context.task.name))
    context.skip('did not reach the changed region in the solution run');
});

/**
 * The last-resort limit of a test in a known-wrong workspace (vitest's testTimeout, set here before the file's tests
 * are collected; a test's own timeout option still wins). A test that outlives every wait of its own runs until this
 * limit and fails with vitest's "Test timed out", which names no mistake: it can never be the test that catches a
 * known-wrong solution (verify matches the failure message against the solution's `expect:`), so waiting 120 s for
 * it only holds a worker (four such tests of chapter 7 and one each of chapters 14 and 15 waited 120 s every verify,
 * 2026-12-02). Every other wait in a graded test ends on its event or at HANG_MS, so a known-wrong test that fails
 * in its own words does so within a few waits of HANG_MS: 4 x HANG_MS is that margin (2026-12-02, the known-wrong
 * workspaces of every chapter but 4 and 11 at load 10 to 25: the slowest test that ended on its own took 15.4 s).
 * Two chapters keep TEST_TIMEOUT_MS, since their known-wrong tests' time grows with the machine's load:
 * - chapter 4: its waits for leftover processes count their own 50 ms sleeps up to HANG_MS (leftovers.test.ts), so
 *   under load they last longer than HANG_MS (55.1 s and 57.3 s seen at load 20), and a known-wrong grep that
 *   matches on the main thread is CPU-bound (34.3 s);
 * - chapter 11: its tests wait for real MCP servers with REAL_SERVER_MS (4 x HANG_MS itself) or more.
 * A shorter limit cannot make a known-wrong solution look caught: it only turns a test's outcome into a timeout,
 * which matches no `expect:` (verify would then report the solution as not caught, never the other way round).
 */
export const KNOWN_WRONG_TEST_MS = 4 * HANG_MS;
/** The chapters whose known-wrong tests keep TEST_TIMEOUT_MS (above). */
const FULL_LIMIT_CHAPTERS = new Set(['chapter04', 'chapter11']);

const testFile = path.relative(allowed.workspaces, expect.getState().testPath ?? '').split(path.sep);
if (testFile[0]?.startsWith('wrong-') && !FULL_LIMIT_CHAPTERS.has(testFile[2] ?? ''))
  vi.setConfig({ testTimeout: Math.min(KNOWN_WRONG_TEST_MS, TEST_TIMEOUT_MS) });
