/**
 * Kit test of scripts/lib/learner-tree.ts, the one wiring's filled copy of a learner's tree: what counts as not
 * written yet, which chapters are filled from the reference and which are left out, that every stand-in replaces a
 * region that exists and type-checks where it lands, and that a tree with nothing missing runs as it is.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentTree, GLUE_CHAPTERS, notWritten, OPTIONAL_CHAPTERS, STAND_INS } from '../../scripts/lib/learner-tree.js';
import { listRegions, listSources, parseRegions, stubLines } from '../../scripts/lib/regions.js';
import { stubbedTree, tempFolders } from './agent-process.js';
import { REPO } from './helpers.js';

const tempFolder = tempFolders('kit-learner-tree-');
const solution = path.join(REPO, 'solution/src');
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe('the learner tree the agent runs (scripts/lib/learner-tree.ts)', () => {
  it('a stub counts as not written while its only code is the TodoError, whatever its comments', () => {
    const region = { chapter: 3, name: 'singleTurn', indent: '  ', steps: ['  // 1. Ask the model.'] };
    const stub = stubLines(region);
    expect(notWritten({ body: stub.slice(1) }), 'the generated stub').toBe(true);
    expect(notWritten({ body: ['  // my notes', ...stub.slice(1), ''] }), 'with a comment of the learner').toBe(true);
    expect(notWritten({ body: ['  const x = 1;', ...stub.slice(1)] }), 'started: code before the throw').toBe(false);
    expect(notWritten({ body: ['  return 1;'] }), 'written').toBe(false);
    const written = listRegions(REPO, 'solution').filter((info) => notWritten(info));
    expect(written, 'no region of the reference counts as not written').toEqual([]);
  });

  it('every stand-in replaces a region the reference has, and only the optional chapters (8-13, 16) have stand-ins', () => {
    const regions = new Set(listRegions(REPO, 'solution').map((info) => `chapter ${info.chapter}: ${info.name}`));
    for (const [chapter, standIns] of Object.entries(STAND_INS)) {
      expect(OPTIONAL_CHAPTERS as readonly number[]).toContain(Number(chapter));
      for (const key of Object.keys(standIns))
        expect(
          regions,
          `the stand-in "${key}" of chapter ${chapter} names no region: it would never be used`,
        ).toContain(key);
    }
    expect(GLUE_CHAPTERS).toEqual([6, 7, 15]);
  });

  it('the reference and a finished tree run as they are, without a copy', () => {
    expect(agentTree(solution)).toEqual({ src: solution, leftOut: [], filled: [] });
  });

  it('before chapter 8: chapters 8-13 and 16 left out, chapter 15 filled, one note; the copy type-checks with every stand-in', () => {
    const src = stubbedTree(tempFolder(), (region) => region.chapter > 7);
    const tree = agentTree(src);
    expect(tree.leftOut).toEqual([8, 9, 10, 11, 12, 13, 16]);
    expect(tree.filled).toEqual([15]);
    expect(tree.note).toMatch(
      /^\(your code, without permission rules \(8: .*planning tools \(13\), the sandbox \(16: .*\) until those/,
    );
    expect(tree.src, 'a copy under .kit/agent-tree, never the learner folder').toContain(
      path.join(REPO, '.kit/agent-tree'),
    );
    expect(agentTree(src).src, 'the same tree gives the same copy').toBe(tree.src);

    const left: string[] = [];
    for (const rel of listSources(tree.src)) {
      for (const region of parseRegions(readFileSync(path.join(tree.src, rel), 'utf8'), rel)) {
        const key = `chapter ${region.chapter}: ${region.name}`;
        const standIn = Object.values(STAND_INS).some((standIns) => key in standIns);
        if (region.chapter === 15 || standIn) {
          if (notWritten(region)) left.push(key);
        }
      }
    }
    expect(left, 'no stub of chapter 15 and no stand-in region is left throwing').toEqual([]);
    const learnerCopy = readFileSync(path.join(src, 'permissions/gate.ts'), 'utf8');
    expect(learnerCopy, "the learner's own files are not touched").toContain('throw new TodoError(8,');

    // Type-check the copy in place, stand-ins included, with the kit's own compiler settings.
    const dir = mkdtempSync(path.join(REPO, '.kit', 'tsc-'));
    scratch.push(dir);
    mkdirSync(dir, { recursive: true });
    const config = {
      extends: path.join(REPO, 'tsconfig.base.json'),
      compilerOptions: { noEmit: true, types: ['node'], typeRoots: [path.join(REPO, 'node_modules/@types')] },
      include: [path.join(tree.src, '**/*.ts')],
      exclude: [path.join(tree.src, 'node_modules')],
    };
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
    const tsc = spawnSync(path.join(REPO, 'node_modules/.bin/tsc'), ['-p', path.join(dir, 'tsconfig.json')], {
      encoding: 'utf8',
    });
    expect(tsc.status, `the filled copy type-checks:\n${tsc.stdout}${tsc.stderr}`).toBe(0);
  });

  it('a chapter half written is left out whole, and a written stub of chapter 15 stays the learner’s', () => {
    const src = stubbedTree(tempFolder(), (region) => {
      const { chapter, name } = region as { chapter: number; name: string };
      return (chapter === 10 && name === 'RetryingProvider.stream') || (chapter === 15 && name === 'retryPolicy');
    });
    const tree = agentTree(src);
    expect(tree.leftOut, 'one stub of chapter 10 not written: the whole part is left out').toEqual([10]);
    expect(tree.filled).toEqual([15]);
    const pieces = readFileSync(path.join(tree.src, 'capstone/factory-pieces.ts'), 'utf8');
    expect(pieces, 'retryPolicy is filled from the reference').not.toContain("TodoError(15, 'retryPolicy')");
    const retries = readFileSync(path.join(tree.src, 'retry/with-retries.ts'), 'utf8');
    expect(retries).toContain('Stand-in (chapter 10 not finished)');
    expect(retries, "the learner's nextTry (written) is kept").toContain('state.attempt += 1;');
  });
});
