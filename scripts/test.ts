/**
 * npm test -- [chapters...] [--solution] [vitest flags...]
 *
 * Chapters may be written chapter3, ch3, 3 or chapter03; none means all. Runs exactly those chapters' tests against
 * starter/ (or solution/ with --solution). Every other argument goes to vitest unchanged.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CHAPTERS, chapterDir, parseTestArgs } from './lib/chapters.js';
import { ROOT } from './lib/paths.js';

const hasTests = (n: number) => existsSync(path.join(ROOT, chapterDir(n)));
const { chapters, unknown, target, passThrough } = parseTestArgs(
  process.argv.slice(2),
  hasTests,
  process.env.KIT_TARGET === 'solution' ? 'solution' : 'starter',
);

if (unknown.length > 0) {
  console.error(`Unknown chapter: ${unknown.join(', ')}. The chapters are:\n`);
  for (const { number, title } of CHAPTERS) {
    console.error(`  chapter${number}`.padEnd(13) + title + (hasTests(number) ? '' : '  (not written yet)'));
  }
  console.error('\nFor example: npm test -- chapter3');
  process.exit(2);
}

const vitest = path.join(ROOT, 'node_modules/vitest/vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', ...chapters.map(chapterDir), ...passThrough], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, KIT_TARGET: target },
});
process.exit(result.status ?? 1);
