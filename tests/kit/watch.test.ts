/**
 * npm run watch in plain mode (no terminal): finds the chapter, shows the first failure, re-runs on save in one warm
 * vitest, keys (next, previous, hint, list), type errors, and an earlier chapter that broke.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../scripts/lib/regions.js';
import { typeCheck } from '../../scripts/kit/doctor.js';
import { addRegionTrace } from '../../scripts/kit/trace-plugin.js';
import { typecheckStarter } from '../../scripts/kit/typecheck.js';
import { copyRepo, KIT_HANG_MS, read, solveUpTo, startKit, write } from './helpers.js';

const KEYS = /keys: n next chapter · p previous chapter · h hint · l list · r re-run · q quit/;
/** The end of a whole screen: the keys line and the line printed after it (a wait that ends at KEYS may miss it). */
const SCREEN = new RegExp(`${KEYS.source}[^\\n]*\\nAny chapter: npm run watch -- chapter\\d+\\n`);

describe('watch (scripts/kit/watch.ts)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    // Chapters 1-3 are all these tests move between; the list (l) runs every chapter copied, so no more are.
    copy = copyRepo({ chapters: 3 });
    solveUpTo(copy.root, 1);
  });
  afterAll(() => copy.cleanup());

  for (const mode of ['events', 'polling'] as const) {
    it(`starts on the first unfinished chapter, shows the failing test and the stub, and re-runs on save (${mode})`, async () => {
      solveUpTo(copy.root, 1);
      const watch = startKit(copy.root, [
        'watch',
        '--plain',
        ...(mode === 'polling' ? ['--poll', '--interval=200'] : []),
      ]);
      try {
        let at = await watch.waitFor(SCREEN);
        const screen = watch.output();
        expect(screen).toMatch(/Chapter 2 · Your first tool +░+ 0\/\d+ passing/);
        expect(screen).toMatch(/✗ toolDefinition \(src\/tool\.ts\) > /);
        expect(screen).toContain('TODO(chapter 2): toolDefinition');
        expect(screen).toMatch(/Edit: starter\/src\/tool\.ts:\d+ {2}\(#region chapter 2: toolDefinition\)/);
        expect(screen).toContain('Hint: npm run hint -- chapter2');
        expect(screen).toMatch(new RegExp(`watching starter/src \\(${mode}, vitest warm\\)`));
        expect(screen).toContain('Any chapter: npm run watch -- chapter3');

        // Save a wrong toolDefinition: the re-run (in the same vitest) shows expected against actual.
        const wrong = buildWorkspace(
          path.join(copy.root, 'solution/src'),
          (r) => r.chapter > 2,
          new Map([
            [
              'chapter 2: toolDefinition',
              ['  return { name: tool.name, description: tool.description, inputSchema: {} };'],
            ],
          ]),
        );
        write(copy.root, 'starter/src/tool.ts', wrong.files.get('tool.ts')!);
        // The screen the save's re-run draws, not whichever comes next: a check still running in the background from
        // the first screen may draw its own first on a busy machine.
        at = await watch.waitFor(new RegExp(`Expected:[^─]*Actual:[^─]*${SCREEN.source}`), at);

        if (mode === 'events') {
          watch.send('n\n');
          at = await watch.waitFor(/Chapter 3 · The agentic loop/, at);
          watch.send('p\n');
          at = await watch.waitFor(/Chapter 2 · Your first tool/, at);
          watch.send('h\n');
          at = await watch.waitFor(/Hint \d of 3/, at);
          watch.send('l\n');
          // The list runs every other chapter's tests first, and names the chapters not copied as not written yet.
          at = await watch.waitFor(/15\s+Capstone\s+not written yet/, at, 6 * KIT_HANG_MS);
        }
        watch.send('q\n');
        expect(await watch.exited).toBe(0);
      } finally {
        watch.child.kill();
      }
    });
  }

  it("shows type errors of the learner's files and a line for an earlier chapter that broke", async () => {
    solveUpTo(copy.root, 2);
    const watch = startKit(copy.root, ['watch', '--plain', 'chapter3']);
    try {
      let at = await watch.waitFor(SCREEN);
      expect(watch.output()).toMatch(/Chapter 3 · The agentic loop/);
      // Break chapter 1's textOf (a regression) and add a type error, in one save.
      const messages = read(copy.root, 'starter/src/messages.ts');
      const broken = buildWorkspace(
        path.join(copy.root, 'solution/src'),
        (r) => r.chapter > 2,
        new Map([
          ['chapter 1: textOf', ["  return message.content.map((b) => (b.type === 'text' ? b.text : '')).join(' ');"]],
        ]),
      ).files.get('messages.ts')!;
      write(copy.root, 'starter/src/messages.ts', `${broken}\nexport const answer: number = 'forty-two';\n`);
      at = await watch.waitFor(/Type errors in your code \(1;/, at);
      expect(watch.output().slice(at)).toMatch(
        /^ {2}starter\/src\/messages\.ts:\d+: Type 'string' is not assignable to type 'number'/m,
      );
      await watch.waitFor(
        /! Chapter 1 \(Messages and the mock provider\): \d+ of \d+ tests fail now\. Press p to go back, or run "npm run watch -- chapter1"\./,
      );
      write(copy.root, 'starter/src/messages.ts', messages);
      watch.send('q\n');
      expect(await watch.exited).toBe(0);
    } finally {
      watch.child.kill();
    }
  });

  it('at start-up, shows an earlier chapter whose tests fail before the first chapter with stubs', async () => {
    solveUpTo(copy.root, 2);
    const broken = buildWorkspace(
      path.join(copy.root, 'solution/src'),
      (r) => r.chapter > 2,
      new Map([
        [
          'chapter 2: toolDefinition',
          ['  return { name: tool.name, description: tool.description, inputSchema: {} };'],
        ],
      ]),
    );
    write(copy.root, 'starter/src/tool.ts', broken.files.get('tool.ts')!);
    const watch = startKit(copy.root, ['watch', '--plain']);
    try {
      await watch.waitFor(
        /Chapter 2 has failing tests: showing it first\.[\s\S]*Chapter 2 · Your first tool[\s\S]*keys:/,
      );
      // The opening screen, drawn before any test ran, must not present chapter 3's stub as the place to work.
      const opening = watch.output().split('Chapter 2 has failing tests')[0]!;
      expect(opening, 'the guess before the tests ran is labelled as one').toMatch(
        /First unwritten stub: starter\/src\/\S+:\d+/,
      );
      expect(opening).toMatch(/Chapters 1-2 have no stubs left; their tests run next/);
      expect(opening).not.toMatch(/Next stub:/);
      watch.send('q\n');
      expect(await watch.exited).toBe(0);
    } finally {
      watch.child.kill();
    }
  });

  it('says so when the chapter passes', async () => {
    solveUpTo(copy.root, 3);
    const watch = startKit(copy.root, ['watch', '--plain', 'chapter2', '--spawn']);
    try {
      await watch.waitFor(
        new RegExp(`✓ Every test of chapter 2 passes\\. Press n for chapter 3\\.[\\s\\S]*${SCREEN.source}`),
      );
      expect(watch.output()).toContain('vitest spawn');
      watch.send('q\n');
      expect(await watch.exited).toBe(0);
    } finally {
      watch.child.kill();
    }
  });
});

describe('type errors (scripts/kit/typecheck.ts, in doctor and watch)', () => {
  it("lists each type error of the learner's files as file:line: message, and doctor warns with them", async () => {
    const copy = copyRepo({ chapters: 1 });
    try {
      const clean = await typecheckStarter(copy.root);
      expect(
        clean.errors.map((e) => e.text),
        'the kit as committed type-checks',
      ).toEqual([]);
      expect(typeCheck(clean)).toMatchObject({ ok: true });
      write(
        copy.root,
        'starter/src/todo.ts',
        `${read(copy.root, 'starter/src/todo.ts')}\nexport const answer: number = 'forty-two';\n`,
      );
      const result = await typecheckStarter(copy.root);
      expect(result.ok).toBe(false);
      expect(result.errors[0]!.text).toMatch(
        /^starter\/src\/todo\.ts:\d+: Type 'string' is not assignable to type 'number'\.$/,
      );
      const check = typeCheck(result);
      expect(check).toMatchObject({ ok: false, warn: true });
      expect(check.what).toContain('the tests strip types');
      expect(check.what).toContain(result.errors[0]!.text);
    } finally {
      copy.cleanup();
    }
  });
});

describe('the region trace (scripts/kit/trace-plugin.ts)', () => {
  it('adds one call on each #region line and keeps every line where it was', () => {
    const source = [
      '/** a file */',
      'export function f(x: number) {',
      '  // #region chapter 3: f',
      '  // 1. step',
      '  return x;',
      '  // #endregion',
      '}',
    ].join('\n');
    const traced = addRegionTrace(source, '/repo/starter/src/f.ts')!;
    const lines = traced.split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[0]).toMatch(
      /^import \{ enterRegion as __kitEnterRegion \} from "\.\.\/\.\.\/.*scripts\/kit\/trace\.ts"; \/\*\* a file \*\/$/,
    );
    expect(lines[2]).toBe('  __kitEnterRegion(3, "f"); // #region chapter 3: f');
    expect(lines.slice(3)).toEqual(source.split('\n').slice(3));
    expect(addRegionTrace('export const x = 1;\n', '/repo/x.ts')).toBeUndefined();
  });
});
