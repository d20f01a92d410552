/**
 * What a grade is written as: the class table, a CSV for a spreadsheet, the class JSON, and the result files the
 * classroom platforms read (Classroom 50's result.json and Gradescope's results.json).
 */
import { UsageError } from './args.js';
import type { Base, Finding } from './base-version.js';
import { bold, table } from './ui.js';

/** Points a chapter is worth; a chapter scores in proportion to the tests that pass. */
export const POINTS_PER_CHAPTER = 10;

export interface GradeEntry {
  chapter: number;
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  message: string;
  file: string;
}

export interface ChapterGrade {
  chapter: number;
  title: string;
  passed: number;
  total: number;
  points: number;
}

/** One learner's grade, as the class JSON holds it. */
export interface LearnerGrade {
  learner: string;
  repo: string;
  /** The kit version graded against, and how it was found. */
  base: Base;
  /** The learner's HEAD commit and its committer date, when their folder is a git repository. */
  head?: { commit: string; date: string };
  /** Files outside starter/src that differ from the base (a changed test, package.json, …). */
  findings: Finding[];
  chapters: ChapterGrade[];
  points: number;
  maxPoints: number;
  /** Problems outside any test (a file that failed to load, a run that could not finish). */
  errors: string[];
  tests: GradeEntry[];
  /** The learner's log file, when one was written. */
  log?: string;
}

export const round1 = (n: number) => Math.round(n * 10) / 10;

/** `1-4`, `1,3,5-7`, `chapter2-3`: the chapters that count. Throws UsageError for anything else or a chapter not offered. */
export function parseChapters(spec: string, offered: readonly number[]): number[] {
  const chosen = new Set<number>();
  for (const part of spec.split(',').map((p) => p.trim().replace(/^(chapter|ch)/i, ''))) {
    const match = /^(\d+)(?:-(?:chapter|ch)?(\d+))?$/i.exec(part);
    if (!match)
      throw new UsageError(`--chapters: "${part}" is not a chapter or a range (for example --chapters 1-4 or 1,3,5-7)`);
    const from = Number(match[1]);
    const to = Number(match[2] ?? match[1]);
    if (to < from) throw new UsageError(`--chapters: ${part} is an empty range`);
    for (let n = from; n <= to; n++) {
      if (!offered.includes(n))
        throw new UsageError(
          `--chapters: chapter ${n} has no tests in this kit (chapters ${offered[0]}-${offered.at(-1)})`,
        );
      chosen.add(n);
    }
  }
  return [...chosen].sort((a, b) => a - b);
}

const chapterName = (g: ChapterGrade) => `chapter ${g.chapter}: ${g.title}`;

const findingText = (f: Finding) => `${f.file}: ${f.kind}${f.detail ? ` (${f.detail})` : ''}`;

/** One line per finding, or nothing. */
export const findingLines = (findings: readonly Finding[]) => findings.map(findingText);

/** The short form for a table cell: "2 changed, 1 added" or "-". */
export function findingSummary(findings: readonly Finding[]): string {
  if (!findings.length) return '-';
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ');
}

const failedLines = (tests: readonly GradeEntry[], chapter: number, max = 30) => {
  const failed = tests.filter((t) => t.chapter === chapter && t.status !== 'passed');
  const lines = failed.slice(0, max).map((t) => `✗ ${t.name}${t.message ? `\n    ${t.message.split('\n')[0]}` : ''}`);
  if (failed.length > max) lines.push(`… and ${failed.length - max} more`);
  return lines.join('\n');
};

/** The Classroom 50 fields the runner's environment gives (foundation50/classroom50, Advanced-Autograding). */
export function classroom50Context(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  const set = (key: string, value: string | undefined) => value && (out[key] = value);
  set('classroom', env.CLASSROOM);
  set('assignment', env.ASSIGNMENT);
  set('submission', env.SUBMISSION_TAG);
  set('commit', env.COMMIT_URL);
  set('release', env.RELEASE_URL);
  set('review', env.REVIEW_URL || env.COMMIT_URL);
  return out;
}

/**
 * Classroom 50's result.json: one test per chapter worth POINTS_PER_CHAPTER. Its scores are whole numbers, so a
 * chapter scores its points rounded down (full points only when every test passes); the exact points and the test
 * counts ride along as extra fields, which Classroom 50 keeps. Files that differ from the kit are one more test
 * worth nothing that fails, so the instructor sees it.
 */
export function classroom50Result(
  grade: LearnerGrade,
  context: Record<string, string>,
  now = new Date(),
): Record<string, unknown> {
  const tests: Array<Record<string, unknown>> = grade.chapters.map((g) => ({
    'test-name': chapterName(g),
    passed: g.total > 0 && g.passed === g.total,
    score: Math.floor(g.points),
    'max-score': POINTS_PER_CHAPTER,
    points: g.points,
    'tests-passed': g.passed,
    'tests-total': g.total,
  }));
  tests.push(
    integrityTest(grade, (name, passed, detail) => ({
      'test-name': name,
      passed,
      score: 0,
      'max-score': 0,
      findings: detail,
    })),
  );
  return {
    schema: 'classroom50/result/v1',
    ...context,
    ...(grade.head ? { datetime: grade.head.date } : {}),
    graded_at: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    score: tests.reduce((sum, t) => sum + (t.score as number), 0),
    'max-score': tests.reduce((sum, t) => sum + (t['max-score'] as number), 0),
    tests,
  };
}

function integrityTest<T>(grade: LearnerGrade, make: (name: string, passed: boolean, detail: string[]) => T): T {
  return make('kit files unchanged (everything outside starter/src)', grade.findings.length === 0, [
    ...findingLines(grade.findings),
    ...grade.errors.map((e) => `error: ${e.split('\n')[0]}`),
  ]);
}

/** Gradescope's results.json (gradescope/autograder_samples docs/specs.md): one test per chapter. */
export function gradescopeResult(grade: LearnerGrade): Record<string, unknown> {
  const tests = grade.chapters.map((g) => ({
    name: chapterName(g),
    score: g.points,
    max_score: POINTS_PER_CHAPTER,
    status: g.total > 0 && g.passed === g.total ? 'passed' : 'failed',
    output: `${g.passed}/${g.total} tests pass${g.passed < g.total ? `\n${failedLines(grade.tests, g.chapter)}` : ''}`,
    visibility: 'visible',
  }));
  tests.push(
    integrityTest(grade, (name, passed, detail) => ({
      name,
      score: 0,
      max_score: 0,
      status: passed ? 'passed' : 'failed',
      output: passed ? 'Only starter/src differs from the kit.' : detail.join('\n'),
      visibility: 'visible',
    })),
  );
  return {
    score: round1(grade.points),
    output: `Graded against ${grade.base.note}.`,
    tests,
  };
}

/** A CSV cell: quoted when needed; a leading = + - @ is defused so a spreadsheet never runs it as a formula. */
const cell = (value: string | number) => {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export function classCsv(grades: readonly LearnerGrade[], chapters: readonly number[]): string {
  const rows: Array<Array<string | number>> = [
    ['learner', ...chapters.map((n) => `chapter ${n}`), 'total', 'max', 'findings', 'base', 'errors'],
  ];
  for (const g of grades) {
    const points = chapters.map((n) => g.chapters.find((c) => c.chapter === n)?.points ?? 0);
    rows.push([
      g.learner,
      ...points,
      round1(g.points),
      g.maxPoints,
      findingLines(g.findings).join('; '),
      g.base.note,
      g.errors.length,
    ]);
  }
  return `${rows.map((row) => row.map(cell).join(',')).join('\n')}\n`;
}

/** The class table on screen, then each learner's findings and anything else the instructor should read. */
export function classTable(grades: readonly LearnerGrade[], chapters: readonly number[]): string {
  const rows = [['Learner', ...chapters.map(String), 'Total', 'Findings']];
  for (const g of grades) {
    const points = chapters.map((n) => String(g.chapters.find((c) => c.chapter === n)?.points ?? 0));
    rows.push([
      g.learner,
      ...points,
      `${round1(g.points)}/${g.maxPoints}`,
      findingSummary(g.findings) + (g.errors.length ? `; ${g.errors.length} error(s)` : ''),
    ]);
  }
  const out = [table(rows, [false, ...chapters.map(() => true), true, false])];
  for (const g of grades) {
    const notes = [
      ...(g.base.how !== 'history' ? [`graded against ${g.base.note}`] : []),
      ...findingLines(g.findings),
      ...g.errors.map((e) => `error: ${e.split('\n')[0]}`),
    ];
    if (notes.length)
      out.push('', `${bold(g.learner)}${g.log ? ` (log: ${g.log})` : ''}`, ...notes.map((n) => `  ${n}`));
  }
  return out.join('\n');
}

/** The table as GitHub-flavoured Markdown, for a job summary. */
export function classMarkdown(grades: readonly LearnerGrade[], chapters: readonly number[]): string {
  const esc = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [
    `| Learner | ${chapters.map((n) => `Ch ${n}`).join(' | ')} | Total | Findings |`,
    `|---|${chapters.map(() => '--:').join('|')}|--:|---|`,
  ];
  for (const g of grades) {
    const points = chapters.map((n) => String(g.chapters.find((c) => c.chapter === n)?.points ?? 0));
    const notes = [...findingLines(g.findings), ...g.errors.map((e) => `error: ${e.split('\n')[0]}`)];
    lines.push(
      `| ${esc(g.learner)} | ${points.join(' | ')} | ${round1(g.points)}/${g.maxPoints} | ${esc(notes.join('; ') || '-')} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
