/**
 * npm run agent -- --starter, stopped by a stub the learner has not written (issue 44, point 5): one line says which
 * chapter to finish, not the stub's error and then the same advice again.
 */
import { describe, expect, it } from 'vitest';
import { runAgent, stubbedTree, tempFolders, writeFiles } from './agent-process.js';

const tempFolder = tempFolders('kit-agent-stub-');

describe('npm run agent, stopped by an unwritten stub', () => {
  it('ends with one line naming the chapter to finish', async () => {
    // Chapters 1-2 written: the offline model's first calls reach chapter 3's executeToolCall, still a stub.
    const src = stubbedTree(tempFolder(), (region) => region.chapter >= 3);
    const cwd = writeFiles(tempFolder(), { 'notes.md': '# Notes\n' });
    const home = tempFolder();
    const run = await runAgent(['-p', 'list the files'], { cwd, home, env: { KIT_SRC: src } });
    const all = `${run.stdout}\n${run.stderr}`;
    expect(run.stderr).toMatch(/^This needs chapter 3 \(executeToolCall\): finish chapter 3 first/m);
    expect(
      all.split('\n').filter((line) => /chapter ?3|TODO/.test(line)),
      `one line about the stub that stopped the run:\n${all}`,
    ).toHaveLength(1);
  });
});
