/**
 * Runtime half of the region trace (see trace-plugin.ts): every chapter region of the code under test calls
 * `enterRegion` as its first statement, and the current test records which regions it reached, in the order it first
 * reached them, in its task meta (`kitRegions`, read by the kit's reporter). The kit uses it to tell which stub a
 * failing test exercised. A region reached outside any test (while a file loads, or in a file's beforeAll or
 * afterAll) is recorded on the test file itself: the results cache (cache.ts) needs every region a file's run reached.
 */
import { TestRunner } from 'vitest';

export function enterRegion(chapter: number, name: string): void {
  const task = TestRunner.getCurrentTest() ?? TestRunner.getCurrentSuite()?.file;
  if (!task) return;
  const meta = task.meta as { kitRegions?: string[] };
  const key = `chapter ${chapter}: ${name}`;
  const reached = (meta.kitRegions ??= []);
  if (!reached.includes(key)) reached.push(key);
}
