/** npm run watch in plain mode (no terminal): finds the chapter, shows the first failure, re-runs on save, keys. */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../scripts/lib/regions.js';
import { copyRepo, solveUpTo, startKit, write } from './helpers.js';

describe('watch (scripts/kit/watch.ts)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    copy = copyRepo();
    solveUpTo(copy.root, 1);
  });
  afterAll(() => copy.cleanup());

  for (const mode of ['events', 'polling'] as const) {
    it(`starts on the first unfinished chapter, shows the failing test and the stub, and re-runs on save (${mode})`, async () => {
      solveUpTo(copy.root, 1);
      const watch = startKit(copy.root, ['watch', '--plain', ...(mode === 'polling' ? ['--poll', '--interval=200'] : [])]);
      try {
        let at = await watch.waitFor(/keys: n next chapter · h hint · l list · r re-run · q quit/);
        const screen = watch.output();
        expect(screen).toMatch(/Chapter 2 · Your first tool +░+ 0\/\d+ passing/);
        expect(screen).toMatch(/✗ toolDefinition \(src\/tool\.ts\) > /);
        expect(screen).toContain('TODO(chapter 2): toolDefinition');
        expect(screen).toMatch(/Edit: starter\/src\/tool\.ts:\d+ {2}\(#region chapter 2: toolDefinition\)/);
        expect(screen).toContain('Hint: npm run hint -- chapter2');
        expect(screen).toContain(`watching starter/src (${mode})`);

        // Save a wrong toolDefinition: the re-run shows expected against actual.
        const wrong = buildWorkspace(path.join(copy.root, 'solution/src'), (r) => r.chapter > 2, new Map([
          ['chapter 2: toolDefinition', ['  return { name: tool.name, description: tool.description, inputSchema: {} };']],
        ]));
        write(copy.root, 'starter/src/tool.ts', wrong.files.get('tool.ts')!);
        at = await watch.waitFor(/keys: n next chapter/, at);
        const rerun = watch.output().slice(0, at);
        expect(rerun.slice(rerun.lastIndexOf('────'))).toMatch(/Expected:[\s\S]*Actual:/);

        watch.send('n\n');
        at = await watch.waitFor(/Chapter 3 · The agentic loop/, at);
        watch.send('h\n');
        at = await watch.waitFor(/Hint \d of 3/, at);
        watch.send('l\n');
        at = await watch.waitFor(/15\s+Capstone/, at);
        watch.send('q\n');
        expect(await watch.exited).toBe(0);
      } finally {
        watch.child.kill();
      }
    });
  }

  it('says so when the chapter passes', async () => {
    solveUpTo(copy.root, 3);
    const watch = startKit(copy.root, ['watch', '--plain', 'chapter2']);
    try {
      await watch.waitFor(/✓ Every test of chapter 2 passes\. Press n for chapter 3\./);
      watch.send('q\n');
      expect(await watch.exited).toBe(0);
    } finally {
      watch.child.kill();
    }
  });
});
