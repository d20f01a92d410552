/**
 * Runtime half of the region trace (see trace-plugin.ts): every chapter region of the code under test calls
 * `enterRegion` as its first statement, and the current test records which regions it reached, in the order it first
 * reached them, in its task meta (`kitRegions`, read by the kit's reporter). The kit uses it to tell which stub a
 * failing test exercised. Outside a test (module load, a hook of a file) nothing is recorded.
 */
import { TestRunner } from 'vitest';

export function enterRegion(chapter: number, name: string): void {
  const test = TestRunner.getCurrentTest();
  if (!test) return;
  const meta = test.meta as { kitRegions?: string[] };
  const key = `chapter ${chapter}: ${name}`;
  const reached = (meta.kitRegions ??= []);
  if (!reached.includes(key)) reached.push(key);
}
