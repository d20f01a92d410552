/**
 * npm run reset -- chapter3 [--yes]: puts one chapter's stubs back in starter/src, leaving everything else alone.
 * npm run reset -- chapter3 --guided: gives the chapter's stubs not yet started their numbered steps (the guided
 * edition); `--contract` takes them away again. Either way a stub you have started is left as it is.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import {
  type Edition,
  type Region,
  listSources,
  treeRegions,
  rewriteRegions,
  stubLines,
  todoImportFor,
} from '../lib/regions.js';
import { chapterArg, parseCommandArgs } from './args.js';
import { bold, dim } from './ui.js';

export interface ResetPlan {
  /** Files (relative to the root) that would change, with the regions in each. */
  changes: Changes;
  /** Regions of the chapter that the learner's tree no longer has (markers deleted). */
  missing: string[];
}

/** Changed files (relative to the root), with the regions changed in each. */
type Changes = Array<{ file: string; regions: string[]; text: string }>;

/**
 * Rewrites the learner's regions of one chapter in starter/src: `replace` gets each region of the chapter that the
 * solution also has (with the solution's region and the learner's current inner lines) and returns the new inner
 * lines, or undefined to leave it. Returns the files that would change and which solution regions were never found.
 */
function rewriteChapter(
  root: string,
  chapter: number,
  replace: (rel: string, solution: Region, current: string[]) => string[] | undefined,
): { changes: Changes; missing: string[] } {
  const solution = new Map<string, Region>();
  for (const { rel, region } of treeRegions(path.join(root, 'solution/src')))
    if (region.chapter === chapter) solution.set(`${rel}#${region.name}`, region);
  const starterSrc = path.join(root, 'starter/src');
  const seen = new Set<string>();
  const changes: Changes = [];
  for (const rel of existsSync(starterSrc) ? listSources(starterSrc) : []) {
    const source = readFileSync(path.join(starterSrc, rel), 'utf8');
    const names: string[] = [];
    const text = rewriteRegions(
      source,
      todoImportFor(rel),
      (region) => {
        const reference = region.chapter === chapter ? solution.get(`${rel}#${region.name}`) : undefined;
        if (!reference) return undefined;
        seen.add(`${rel}#${region.name}`);
        const current = source.split('\n').slice(region.start + 1, region.end);
        const inner = replace(rel, reference, current);
        if (!inner || inner.join('\n') === current.join('\n')) return undefined;
        names.push(region.name);
        return inner;
      },
      rel,
    );
    if (text !== source) changes.push({ file: `starter/src/${rel}`, regions: names, text });
  }
  const missing = [...solution.keys()].filter((k) => !seen.has(k)).map((k) => k.replace('#', ': '));
  return { changes, missing };
}

/** What resetting a chapter would write (its contract stubs back). Nothing is written here. */
export function planReset(root: string, chapter: number): ResetPlan {
  return rewriteChapter(root, chapter, (_rel, region) => stubLines(region));
}

export interface EditionPlan {
  /** Files (relative to the root) that would change, with the stubs in each. */
  changes: Changes;
  /** Stubs left as they are because the learner has started them (their lines are neither edition's stub). */
  started: string[];
}

/**
 * What switching a chapter's stubs to `edition` would write: each stub that is exactly the other edition's stub
 * (not started) becomes this edition's; anything else is the learner's and stays. Nothing is written here.
 */
export function planEdition(root: string, chapter: number, edition: Edition): EditionPlan {
  const started: string[] = [];
  const { changes } = rewriteChapter(root, chapter, (rel, region, current) => {
    const other = stubLines(region, edition === 'guided' ? 'contract' : 'guided');
    const wanted = stubLines(region, edition);
    if (current.join('\n') === wanted.join('\n')) return undefined;
    if (current.join('\n') !== other.join('\n')) {
      started.push(`${rel}: ${region.name}`);
      return undefined;
    }
    return wanted;
  });
  return { changes, started };
}

export function applyReset(root: string, plan: Pick<ResetPlan, 'changes'>): void {
  for (const change of plan.changes) writeFileSync(path.join(root, change.file), change.text);
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: false });
  try {
    process.stdout.write(question);
    const answer = await Promise.race([
      rl.question(''),
      new Promise<string>((resolve) => rl.once('close', () => resolve(''))),
    ]);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

export async function resetCommand(root: string, args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('npm run reset -- chapterN [--yes | --guided | --contract]', {
    args,
    allowPositionals: true,
    options: { yes: { type: 'boolean', short: 'y' }, guided: { type: 'boolean' }, contract: { type: 'boolean' } },
  });
  const chapter = chapterArg(root, positionals, true)!;
  if (values.guided && values.contract) {
    console.error('Choose one: --guided (the stubs with their steps) or --contract (without them).');
    return 2;
  }
  if (values.guided || values.contract) return switchEdition(root, chapter, values.guided ? 'guided' : 'contract');
  const plan = planReset(root, chapter);
  for (const name of plan.missing)
    console.log(
      `Cannot find region ${name} in starter/src: its #region markers were removed. Restore them from solution/src.`,
    );
  if (plan.changes.length === 0) {
    console.log(`Chapter ${chapter}'s stubs are already as they started. Nothing to do.`);
    return plan.missing.length ? 1 : 0;
  }
  console.log(bold(`This puts the stubs of chapter ${chapter} back, throwing away your code in:`));
  for (const change of plan.changes) console.log(`  ${change.file}: ${change.regions.join(', ')}`);
  console.log(dim('Nothing outside those regions changes.'));
  if (!values.yes && !(await confirm('Reset them? [y/N] '))) {
    console.log('Nothing was changed.');
    return 1;
  }
  applyReset(root, plan);
  console.log(`Reset ${plan.changes.reduce((n, c) => n + c.regions.length, 0)} stub(s) of chapter ${chapter}.`);
  return 0;
}

/** `--guided` / `--contract`: no code of the learner is lost, so nothing is asked. */
function switchEdition(root: string, chapter: number, edition: Edition): number {
  const plan = planEdition(root, chapter, edition);
  const count = plan.changes.reduce((n, c) => n + c.regions.length, 0);
  applyReset(root, plan);
  for (const change of plan.changes) console.log(`  ${change.file}: ${change.regions.join(', ')}`);
  console.log(
    edition === 'guided'
      ? `${count} stub(s) of chapter ${chapter} now show their steps, numbered, above the TODO.`
      : `${count} stub(s) of chapter ${chapter} are back to the contract alone (the comment above each).`,
  );
  if (plan.started.length > 0)
    console.log(
      dim(
        `Left as they are, since you have started them: ${plan.started.join('; ')}. ` +
          `"npm run hint -- chapter${chapter}" gives the steps of the stub you are on as its second hint.`,
      ),
    );
  if (edition === 'guided' && count > 0)
    console.log(
      dim(`"npm run reset -- chapter${chapter} --contract" takes the steps away again from stubs not started.`),
    );
  return 0;
}
