/**
 * A failed test file run a second time, alone (RunOptions.rerun: a grade, a class batch): which files, the two runs
 * merged, and the sentence that says what the second run found.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { listSources, parseRegions } from '../lib/regions.js';
import type { RunResult, TestOutcome } from './test-outcome.js';

/**
 * A failure a second run gives again, whatever the machine: its message is a stub's TODO, its test reached a stub
 * not written yet (`unfinished`, as `chapter N: name`: the code under test may have caught the TODO and failed in
 * its own words, an ACP server's "Internal error"), or its file did not load.
 */
const isCertain = (test: TestOutcome, unfinished: ReadonlySet<string>) =>
  /TODO\(chapter \d+\)/.test(test.message) ||
  test.name.endsWith(' could not load') ||
  test.message.startsWith('this test file could not load') ||
  (test.regions ?? []).some((region) => unfinished.has(region));

/**
 * The test files to run a second time: those with a failure a second run could change (not isCertain). A failure
 * the code causes comes back; one a busy machine caused (a test that waited too long) does not. `unfinished` are
 * the target's stubs still unwritten (unfinishedRegions).
 */
export function filesToRerun(tests: readonly TestOutcome[], unfinished: ReadonlySet<string> = new Set()): string[] {
  const failing = tests.filter((test) => test.status === 'failed' && !isCertain(test, unfinished));
  return [...new Set(failing.map((test) => test.file))].sort((a, b) => a.localeCompare(b));
}

/** The regions of the source tree `src` whose body still throws its TodoError, as `chapter N: name`. */
export function unfinishedRegions(src: string): Set<string> {
  const keys = new Set<string>();
  if (!existsSync(src)) return keys;
  for (const rel of listSources(src))
    for (const region of parseRegions(readFileSync(path.join(src, rel), 'utf8'), rel))
      if (region.body.some((line) => /\bthrow new TodoError\(/.test(line)))
        keys.add(`chapter ${region.chapter}: ${region.name}`);
  return keys;
}

/** `first` with each re-run file's tests and errors replaced by those of its second run. */
export function mergeRerun(first: RunResult, again: ReadonlyMap<string, RunResult>): RunResult {
  const files = [...again.keys()];
  const recovered = files.filter((file) => {
    const second = again.get(file)!;
    return (
      second.tests.some((test) => test.file === file) &&
      second.tests.every((test) => test.status !== 'failed') &&
      second.errors.length === 0
    );
  });
  const tests = first.tests.flatMap((test) =>
    again.has(test.file)
      ? test === first.tests.find((t) => t.file === test.file)
        ? again.get(test.file)!.tests
        : []
      : [test],
  );
  const errors = [
    ...first.errors.filter((error) => !files.some((file) => error.startsWith(`${file}: `))),
    ...files.flatMap((file) => again.get(file)!.errors),
  ];
  const fileRegions = { ...first.fileRegions };
  for (const file of files) {
    const regions = again.get(file)!.fileRegions?.[file];
    if (regions) fileRegions[file] = regions;
    else delete fileRegions[file];
  }
  return { ...first, tests, errors, fileRegions, rerun: { files, recovered } };
}

/** The line a grade prints when failed files were run again (empty when none were): what the second run found. */
export function rerunNote(rerun: RunResult['rerun']): string {
  if (!rerun?.files.length) return '';
  const n = rerun.files.length;
  const still = n - rerun.recovered.length;
  const what = `A grade runs each failed test file a second time, alone: ${n === 1 ? 'one file was' : `${n} files were`}`;
  const outcome = !rerun.recovered.length
    ? ', and the failures came back'
    : rerun.recovered.length === n
      ? `, and ${n === 1 ? 'it' : 'all'} passed the second time, which is the run kept`
      : `; ${rerun.recovered.length} passed the second time (that run is kept), ${still} failed again`;
  return `${what}${outcome}.`;
}
