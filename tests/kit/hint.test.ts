/** npm run hint: progressive, per stub, remembered in .kit/, on a copy of the repository. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../scripts/lib/regions.js';
import { copyRepo, kit, read, solveUpTo, write } from './helpers.js';

describe('hint (scripts/kit/hint.ts)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    copy = copyRepo();
    solveUpTo(copy.root, 2);
  });
  afterAll(() => copy.cleanup());

  it('gives the nudge, then the approach, then the shape, for the first unfinished stub, and remembers it in .kit/', () => {
    const first = kit(copy.root, ['hint', 'chapter3']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^Chapter 3 · executeToolCall {2}\(starter\/src\/execute-tool\.ts:\d+\)$/m);
    expect(first.stdout).toContain('Hint 1 of 3: Nudge');
    expect(first.stdout).toMatch(/Failing: executeToolCall \(src\/execute-tool\.ts\) > /);
    expect(first.stdout).toContain('again for the approach');
    expect(existsSync(path.join(copy.root, '.kit/hints.json'))).toBe(true);
    expect(kit(copy.root, ['hint', '3']).stdout).toContain('Hint 2 of 3: Approach');
    const third = kit(copy.root, ['hint', 'ch3']).stdout;
    expect(third).toContain('Hint 3 of 3: Shape');
    expect(third).toContain('npm run solution -- chapter3');
    expect(kit(copy.root, ['hint', 'chapter3']).stdout, 'stays on the last hint').toContain('Hint 3 of 3');
  });

  it('--reset starts over', () => {
    expect(kit(copy.root, ['hint', 'chapter3', '--reset']).stdout).toContain('start over');
    expect(kit(copy.root, ['hint', 'chapter3']).stdout).toContain('Hint 1 of 3');
  });

  it('moves to the next stub once the first one is written and its tests pass', () => {
    // Solve executeToolCall only: the next stub in teaching order is singleTurn.
    const key = 'chapter 3: executeToolCall';
    const solved = buildWorkspace(path.join(copy.root, 'solution/src'), (r) => r.chapter > 2 && `chapter ${r.chapter}: ${r.name}` !== key);
    write(copy.root, 'starter/src/execute-tool.ts', solved.files.get('execute-tool.ts')!);
    const out = kit(copy.root, ['hint', 'chapter3']).stdout;
    expect(out).toMatch(/Chapter 3 · singleTurn/);
    expect(out).toContain('Hint 1 of 3');
  });

  it('a stub with a body whose tests fail is still unfinished', () => {
    const broken = read(copy.root, 'starter/src/execute-tool.ts').replace('const tool = tools.get(call.name);', 'const tool = tools.get(call.name.toLowerCase() + "x");');
    write(copy.root, 'starter/src/execute-tool.ts', broken);
    const out = kit(copy.root, ['hint', 'chapter3']).stdout;
    expect(out).toMatch(/Chapter 3 · executeToolCall/);
    expect(out).toMatch(/Failing: executeToolCall/);
  });

  it('says when the chapter is finished', () => {
    solveUpTo(copy.root, 3);
    expect(kit(copy.root, ['hint', 'chapter3']).stdout).toMatch(/Every stub of chapter 3 is written and its \d+ tests pass/);
  });
});
