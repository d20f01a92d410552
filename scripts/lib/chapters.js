/**
 * The sixteen chapters, as the guide and every command name them, and the parsing of chapter arguments.
 *
 * Plain JavaScript (types in chapters.d.ts) so that `npm test` (scripts/test.mjs) can use it with no TypeScript
 * loader in front of vitest; the TypeScript scripts import it as usual.
 */

/** @type {ReadonlyArray<{ number: number; title: string; part: string }>} */
export const CHAPTERS = [
  { number: 1, title: 'Messages and the mock provider', part: 'I. The loop' },
  { number: 2, title: 'Your first tool', part: 'I. The loop' },
  { number: 3, title: 'The agentic loop', part: 'I. The loop' },
  { number: 4, title: 'A real toolbox', part: 'I. The loop' },
  { number: 5, title: 'Real providers', part: 'II. Real models' },
  { number: 6, title: 'Streaming', part: 'II. Real models' },
  { number: 7, title: 'Events, hooks and cancellation', part: 'III. Control' },
  { number: 8, title: 'Permissions and safety', part: 'III. Control' },
  { number: 9, title: 'Tool execution', part: 'III. Control' },
  { number: 10, title: 'Retries and resilience', part: 'III. Control' },
  { number: 11, title: 'MCP', part: 'IV. The real world' },
  { number: 12, title: 'Sessions and context', part: 'IV. The real world' },
  { number: 13, title: 'Plan mode and sub-agents', part: 'IV. The real world' },
  { number: 14, title: 'ACP', part: 'IV. The real world' },
  { number: 15, title: 'Capstone', part: 'IV. The real world' },
  { number: 16, title: 'The sandbox', part: 'IV. The real world' },
];

/** `chapter3`, `ch3`, `3`, `chapter03` -> 3; anything else -> undefined. */
export function parseChapter(arg) {
  const match = /^(?:chapter|ch)?-?0*(\d{1,2})$/i.exec(arg);
  return match ? Number(match[1]) : undefined;
}

/** The test folder of a chapter, relative to the root: `tests/chapter03/`. */
export function chapterDir(chapter) {
  return `tests/chapter${String(chapter).padStart(2, '0')}/`;
}

/** Splits `npm test -- ...` arguments. `hasTests(n)` says whether chapter n has a test folder. */
export function parseTestArgs(args, hasTests, defaultTarget = 'starter') {
  const parsed = { chapters: [], unknown: [], target: defaultTarget, passThrough: [] };
  for (const arg of args) {
    const chapter = parseChapter(arg);
    if (arg === '--solution') parsed.target = 'solution';
    else if (arg === '--starter') parsed.target = 'starter';
    else if (chapter !== undefined) (hasTests(chapter) ? parsed.chapters : parsed.unknown).push(chapter);
    else if (/^(chapter|ch)\S*$/i.test(arg)) parsed.unknown.push(arg);
    else parsed.passThrough.push(arg);
  }
  parsed.unknown = parsed.unknown.map(String);
  parsed.chapters = [...new Set(parsed.chapters)].sort((a, b) => a - b);
  return parsed;
}
