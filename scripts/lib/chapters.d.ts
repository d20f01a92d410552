/** Types of chapters.js (plain JavaScript so that scripts/test.mjs needs no TypeScript loader). */
export declare const CHAPTERS: ReadonlyArray<{ number: number; title: string; part: string }>;

/** `chapter3`, `ch3`, `3`, `chapter03` -> 3; anything else -> undefined. */
export declare function parseChapter(arg: string): number | undefined;

/** The test folder of a chapter, relative to the root: `tests/chapter03/`. */
export declare function chapterDir(chapter: number): string;

export interface TestArgs {
  chapters: number[];
  /** Arguments that look like chapters but name none that has tests. */
  unknown: string[];
  target: 'starter' | 'solution';
  /** Everything else, for vitest. */
  passThrough: string[];
}

/** Splits `npm test -- ...` arguments. `hasTests(n)` says whether chapter n has a test folder. */
export declare function parseTestArgs(
  args: readonly string[],
  hasTests: (chapter: number) => boolean,
  defaultTarget?: 'starter' | 'solution',
): TestArgs;
