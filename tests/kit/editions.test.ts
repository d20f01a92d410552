/**
 * The two editions of a stub (scripts/lib/regions.ts): the contract edition learners get, the guided one a chapter
 * switches to with `npm run reset -- chapterN --guided`, and the steps as the second hint (scripts/kit/hints.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editionProblems, starterFiles } from '../../scripts/authors/build-starter.js';
import { hintLevels, stubSteps } from '../../scripts/kit/hints.js';
import { stepNote } from '../../scripts/kit/step-note.js';
import { parseRegions } from '../../scripts/lib/regions.js';
import { copyRepo, kit, read, REPO, write } from './helpers.js';

describe('the contract and the guided edition', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    copy = copyRepo({ chapters: 3 });
  });
  afterAll(() => copy.cleanup());

  it('the starter is the contract edition: no stub shows its steps, each says where they are', () => {
    for (const [rel, text] of starterFiles('contract'))
      for (const region of parseRegions(text, rel)) {
        expect(region.steps, `${rel}: ${region.name}`).toHaveLength(1);
        expect(region.steps[0], `${rel}: ${region.name}`).toContain(
          `npm run reset -- chapter${region.chapter} --guided`,
        );
      }
    expect(editionProblems(), 'the editions differ in comments only, and every stub has steps').toEqual([]);
  });

  it('--guided gives the stubs not started their steps, leaves a started one alone, and --contract undoes it', () => {
    const file = 'starter/src/simple-agent.ts';
    const before = read(copy.root, file);
    const started = before.replace(
      /(\/\/ #region chapter 3: singleTurn\n)(?:.*\n)*?(\s*throw new TodoError\(3, 'singleTurn'\);)/,
      "$1    const notes = 'mine';\n$2",
    );
    expect(started, 'the test found singleTurn').not.toBe(before);
    write(copy.root, file, started);

    const guided = kit(copy.root, ['reset', 'chapter3', '--guided']);
    expect(guided.status, guided.stderr).toBe(0);
    expect(guided.stdout).toMatch(/Left as they are, since you have started them: simple-agent\.ts: singleTurn/);
    const steps = stubSteps(REPO, 3);
    const agentRun = parseRegions(read(copy.root, file), file).find((r) => r.name === 'SimpleAgent.run')!;
    expect(agentRun.steps.join('\n'), 'a stub not started shows its steps').toContain(
      steps.get('SimpleAgent.run')!.split('\n')[0]!,
    );
    expect(read(copy.root, file), 'the started stub keeps its line').toContain("const notes = 'mine';");

    const back = kit(copy.root, ['reset', 'chapter3', '--contract']);
    expect(back.status, back.stderr).toBe(0);
    expect(read(copy.root, file), '--contract puts the contract stubs back, the started one as it was').toBe(started);
  });

  it("the approach hint is the stub's steps, between the idea and the shape", () => {
    const steps = stubSteps(REPO, 3);
    for (const section of hintLevels(REPO, 3)) {
      const approach = section.hints.find((h) => h.title === 'Approach');
      expect(approach, `${section.stub} has an approach`).toBeDefined();
      if (!read(REPO, 'tests/chapter03/hints.md').includes(`## ${section.stub}\n\n### Idea`)) continue;
      expect(section.hints.map((h) => h.title)).toEqual(['Idea', 'Approach', 'Shape']);
      expect(approach!.text).toBe(steps.get(section.stub));
    }
  });

  it('a failure that names a step says where the steps are; one that names none adds nothing', () => {
    expect(stepNote('executeToolCall step 3: run the tool through untilAborted', 3)).toMatch(
      /^"step 3" is a step of the guided edition: .*"npm run hint -- chapter3".*"npm run reset -- chapter3 --guided"/,
    );
    expect(stepNote('steps 2 and 4: the results follow their calls', 7)).toContain('"step 2"');
    expect(stepNote("a thrown tool's result starts with Error: (the first step of many)", 3)).toBeUndefined();
    expect(stepNote('see SimpleAgent.step 2', 3), 'a name ending in .step is not a step').toBeUndefined();
  });
});
