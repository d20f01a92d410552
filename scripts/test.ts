/**
 * npm test -- [chapters...] [--solution] [vitest flags...]
 *
 * Chapters may be written chapter3, ch3, 3 or chapter03; none means all. Runs exactly those chapters' tests against
 * starter/ (or solution/ with --solution). Every other argument goes to vitest unchanged.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CHAPTERS, chapterDir, parseChapter } from './lib/chapters.js';
import { ROOT } from './lib/paths.js';

const args = process.argv.slice(2);
const chapters: number[] = [];
const passThrough: string[] = [];
let target = process.env.KIT_TARGET === 'solution' ? 'solution' : 'starter';

for (const arg of args) {
  const chapter = parseChapter(arg);
  if (arg === '--solution') target = 'solution';
  else if (arg === '--starter') target = 'starter';
  else if (chapter !== undefined) chapters.push(chapter);
  else if (/^(chapter|ch)\S*$/i.test(arg)) chapters.push(NaN);
  else passThrough.push(arg);
}

const available = (n: number) => existsSync(path.join(ROOT, chapterDir(n)));
const unknown = args.filter((arg) => {
  const n = parseChapter(arg);
  return (n === undefined && /^(chapter|ch)\S*$/i.test(arg)) || (n !== undefined && !available(n));
});
if (unknown.length > 0) {
  console.error(`Unknown chapter: ${unknown.join(', ')}. The chapters are:\n`);
  for (const { number, title } of CHAPTERS) {
    console.error(`  chapter${number}`.padEnd(13) + title + (available(number) ? '' : '  (not written yet)'));
  }
  console.error('\nFor example: npm test -- chapter3');
  process.exit(2);
}

const filters = [...new Set(chapters)].sort((a, b) => a - b).map(chapterDir);
const vitest = path.join(ROOT, 'node_modules/vitest/vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', ...filters, ...passThrough], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, KIT_TARGET: target },
});
process.exit(result.status ?? 1);
