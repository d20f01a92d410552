/**
 * npm run grade [-- --solution] [--json FILE] [--junit FILE]: the instructor's view of a learner's copy.
 * Exits 0 whatever the score; non-zero only when the kit itself could not run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chaptersWithTests, flagValue } from './args.js';
import { runTests, scoreByChapter, type TestOutcome } from './run-tests.js';
import { bold, chapterTitle, dim, table } from './ui.js';

/** Points a chapter is worth; a chapter scores in proportion to the tests that pass. */
export const POINTS_PER_CHAPTER = 10;

export interface GradeEntry {
  chapter: number;
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  message: string;
  file: string;
}

export function gradeEntries(tests: readonly TestOutcome[]): GradeEntry[] {
  return tests.map((t) => ({ chapter: t.chapter, name: t.fullName, status: t.status, message: t.message, file: t.file }));
}

export interface ChapterGrade {
  chapter: number;
  title: string;
  passed: number;
  total: number;
  points: number;
}

export function chapterGrades(root: string, tests: readonly TestOutcome[]): ChapterGrade[] {
  const scores = scoreByChapter(tests);
  return chaptersWithTests(root).map((chapter) => {
    const score = scores.find((s) => s.chapter === chapter) ?? { passed: 0, total: 0 };
    const points = score.total === 0 ? 0 : Math.round((score.passed / score.total) * POINTS_PER_CHAPTER * 10) / 10;
    return { chapter, title: chapterTitle(chapter), passed: score.passed, total: score.total, points };
  });
}

const xml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!)
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

export function junitXml(root: string, tests: readonly TestOutcome[]): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const failures = tests.filter((t) => t.status === 'failed').length;
  const skipped = tests.filter((t) => t.status === 'skipped').length;
  out.push(`<testsuites name="kit" tests="${tests.length}" failures="${failures}" skipped="${skipped}">`);
  for (const { chapter, title } of chapterGrades(root, tests)) {
    const own = tests.filter((t) => t.chapter === chapter);
    const name = `chapter${String(chapter).padStart(2, '0')}`;
    out.push(
      `  <testsuite name="${name}: ${xml(title)}" tests="${own.length}" failures="${own.filter((t) => t.status === 'failed').length}" skipped="${own.filter((t) => t.status === 'skipped').length}">`,
    );
    for (const test of own) {
      const classname = `${name}.${test.suites[0] ?? path.basename(test.file)}`;
      const open = `    <testcase classname="${xml(classname)}" name="${xml([...test.suites.slice(1), test.name].join(' > '))}" file="${xml(test.file)}"`;
      if (test.status === 'passed') out.push(`${open}/>`);
      else if (test.status === 'skipped') out.push(`${open}><skipped/></testcase>`);
      else {
        out.push(`${open}>`);
        out.push(`      <failure message="${xml(test.message.split('\n')[0] ?? '')}">${xml(test.message)}</failure>`);
        out.push('    </testcase>');
      }
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, text);
}

export async function gradeCommand(root: string, args: string[]): Promise<number> {
  const target = args.includes('--solution') ? 'solution' : 'starter';
  const jsonFile = flagValue(args, '--json');
  const junitFile = flagValue(args, '--junit');
  const { tests, errors, duration } = await runTests({ root, target, fresh: true, progress: true });
  const grades = chapterGrades(root, tests);
  const rows = [['Chapter', 'Title', 'Passed', 'Points']];
  for (const g of grades) rows.push([`${g.chapter}`, g.title, `${g.passed}/${g.total}`, `${g.points}/${POINTS_PER_CHAPTER}`]);
  const points = grades.reduce((sum, g) => sum + g.points, 0);
  const passed = grades.reduce((sum, g) => sum + g.passed, 0);
  const total = grades.reduce((sum, g) => sum + g.total, 0);
  rows.push(['', bold('Total'), `${passed}/${total}`, bold(`${Math.round(points * 10) / 10}/${grades.length * POINTS_PER_CHAPTER}`)]);
  console.log(bold(`Grade of ${target}/ in ${root}`));
  console.log('');
  console.log(table(rows, [true, false, true, true]));
  if (errors.length) console.log(`\n${errors.length} problem(s) outside tests:\n  ${errors.map((e) => e.split('\n')[0]).join('\n  ')}`);
  console.log(dim(`\n${tests.length} tests in ${(duration / 1000).toFixed(1)}s`));
  if (jsonFile) {
    write(jsonFile, `${JSON.stringify(gradeEntries(tests), null, 2)}\n`);
    console.log(`wrote ${jsonFile}`);
  }
  if (junitFile) {
    write(junitFile, junitXml(root, tests));
    console.log(`wrote ${junitFile}`);
  }
  return 0;
}
