/**
 * npm run watch tells the truth (issue 44, point 3): after several saves within a second, and more while a run is in
 * progress, what its screen shows is what a fresh run of the chapter gives for the files on disk; `r` re-runs from a
 * clean slate; and each run says it is running as it starts.
 *
 * The saves are made the way editors make them: some in place, some atomically (the new text written to a temporary
 * file that is then renamed over the old one, as vim, JetBrains' "safe write" and many others do). On Linux, Node 20's
 * recursive fs.watch stops seeing a file once it has been replaced that way, so its next save in place went unseen
 * and the warm vitest kept the old code: a false failure that survived `r` (its run never looked at the disk).
 */
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../scripts/lib/regions.js';
import { stripAnsi } from '../../scripts/kit/outcomes.js';
import { runTests } from '../../scripts/kit/run-tests.js';
import { renderChapter } from '../../scripts/kit/watch/screen.js';
import { copyRepo, solveUpTo, startKit } from './helpers.js';

const SCREEN_END = /keys: n next chapter[^\n]*\nAny chapter: npm run watch -- chapter\d+\n/;

describe('watch tells the truth (scripts/kit/watch/)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    copy = copyRepo({ chapters: 2 });
    solveUpTo(copy.root, 1);
  });
  afterAll(() => copy.cleanup());

  /** A file of starter/src with chapters up to `solved` written, `wrong` replacing some regions' bodies. */
  const version = (rel: string, solved: number, wrong = new Map<string, string[]>()) =>
    buildWorkspace(path.join(copy.root, 'solution/src'), (r) => r.chapter > solved, wrong).files.get(rel)!;
  const inPlace = (rel: string, text: string) => writeFileSync(path.join(copy.root, 'starter/src', rel), text);
  /** The way many editors save: a temporary file renamed over the old one. */
  const atomically = (rel: string, text: string) => {
    const file = path.join(copy.root, 'starter/src', rel);
    const temporary = path.join(path.dirname(file), `.${path.basename(file)}.swp`);
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  };

  /** What a fresh run of chapter 2 (a new vitest process, as npm test starts) shows for the files on disk. */
  async function freshScreen(): Promise<string> {
    const result = await runTests({ root: copy.root, chapters: [2], fresh: true, progress: false });
    return stripAnsi(renderChapter(copy.root, 2, result.tests, result.errors));
  }

  /** The chapter's part of the last screen in `text`: from its title to the line before the status line. */
  function lastScreen(text: string): string {
    const start = text.lastIndexOf('Chapter 2 · ');
    expect(start, `a screen of chapter 2 in:\n${text}`).toBeGreaterThanOrEqual(0);
    return text.slice(start, text.indexOf('\n\nran ', start));
  }

  it('shows what a fresh run shows after saves within a second and during a run, and again after r', async () => {
    const watch = startKit(copy.root, ['watch', '--plain', 'chapter2']);
    try {
      let at = await watch.waitFor(SCREEN_END);
      expect(watch.output()).toMatch(/Chapter 2 · Your first tool +░+ 0\/\d+ passing/);

      // Three files within a second, two of them saved atomically: chapter 2 written, with a wrong toolDefinition.
      const wrongDefinition = new Map([
        [
          'chapter 2: toolDefinition',
          ['  return { name: tool.name, description: tool.description, inputSchema: {} };'],
        ],
      ]);
      atomically('tool.ts', version('tool.ts', 2, wrongDefinition));
      inPlace('workspace.ts', version('workspace.ts', 2));
      atomically('tools/read.ts', version('tools/read.ts', 2));
      // The run for them says so as it starts, naming what was saved.
      at = await watch.waitFor(/Running chapter 2 after saving [^\n]*tools\/read\.ts[^\n]*…\n/, at);

      // While it runs: toolDefinition put right, and read's stub back as it was (both files saved in place).
      inPlace('tool.ts', version('tool.ts', 2));
      inPlace('tools/read.ts', version('tools/read.ts', 1));
      at = await watch.waitFor(/Running chapter 2 after saving [^\n]*tools\/read\.ts[^\n]*…\n/, at);
      at = await watch.waitFor(SCREEN_END, at);
      const fresh = await freshScreen();
      expect(fresh, 'the fresh run sees the last saves: read is a stub again').toMatch(/TODO\(chapter 2\)/);
      expect(lastScreen(watch.output().slice(0, at)), 'the screen after the saves').toBe(fresh);

      // r: the same again, from a clean slate.
      watch.send('r\n');
      at = await watch.waitFor(/Running chapter 2 again, from a clean slate…\n/, at);
      at = await watch.waitFor(SCREEN_END, at);
      expect(lastScreen(watch.output().slice(0, at)), 'the screen after r').toBe(fresh);

      watch.send('q\n');
      expect(await watch.exited).toBe(0);
    } finally {
      watch.child.kill();
    }
  });
});
