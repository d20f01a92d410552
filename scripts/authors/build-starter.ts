/**
 * npm run build:starter                  writes starter/src from solution/src (every chapter region stubbed, in the
 *                                        contract edition: the contract above each stub, no steps)
 * npm run build:starter -- --check       exits 1 if the committed starter differs from what this would write
 * npm run build:starter -- --guided DIR  also writes the whole guided edition (every stub with its steps) to DIR;
 *                                        a learner gets one chapter's with `npm run reset -- chapterN --guided`
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseScriptArgs } from '../kit/args.js';
import { buildWorkspace, type Edition, listSources, treeRegions, withoutLinterNotes } from '../lib/regions.js';
import { ROOT } from '../lib/paths.js';

const solutionSrc = path.join(ROOT, 'solution/src');
const starterSrc = path.join(ROOT, 'starter/src');

/**
 * The starter's files: every region stubbed. The solution's notes to the linter go: an import the solution keeps for
 * its known-wrong solutions is, in the starter, one of the many a stub does not use yet (unused imports are allowed
 * there), so the note would only be reported as having no effect.
 */
export function starterFiles(edition: Edition = 'contract'): Map<string, string> {
  const { files } = buildWorkspace(solutionSrc, () => true, new Map(), edition);
  for (const [rel, text] of files) files.set(rel, withoutLinterNotes(text));
  return files;
}

/** Differences between the committed starter and the generated one, as sentences. Empty when in sync. */
export function starterDrift(): string[] {
  const files = starterFiles();
  const problems: string[] = [];
  for (const [rel, text] of files) {
    const target = path.join(starterSrc, rel);
    if (!existsSync(target)) problems.push(`starter/src/${rel} is missing`);
    else if (readFileSync(target, 'utf8') !== text)
      problems.push(`starter/src/${rel} differs from the generated stub file`);
  }
  for (const rel of existsSync(starterSrc) ? listSources(starterSrc) : []) {
    if (!files.has(rel)) problems.push(`starter/src/${rel} has no counterpart in solution/src`);
  }
  return problems;
}

/**
 * Why the guided edition grades as the contract edition does, checked rather than assumed: the two differ only in
 * comment lines inside regions (esbuild drops comments, so every test sees the same code), and every stub of the
 * solution has steps to show (else its guided stub would be its contract stub). Empty when both hold.
 */
export function editionProblems(): string[] {
  const contract = starterFiles('contract');
  const guided = starterFiles('guided');
  const problems: string[] = [];
  const code = (text: string) => text.split('\n').filter((line) => !/^\s*\/\//.test(line));
  for (const [rel, text] of contract) {
    const other = guided.get(rel);
    if (other === undefined) problems.push(`${rel}: missing from the guided edition`);
    else if (code(text).join('\n') !== code(other).join('\n'))
      problems.push(`${rel}: the guided edition differs from the contract edition in code, not only in comments`);
  }
  for (const { rel, region } of treeRegions(solutionSrc))
    if (region.steps.length === 0)
      problems.push(`${rel}: region "chapter ${region.chapter}: ${region.name}" has no steps for the guided edition`);
  return problems;
}

/** Writes a whole edition of the starter into `dir` (starter/src for the contract edition). */
export function writeStarter(edition: Edition = 'contract', dir = starterSrc): number {
  const files = starterFiles(edition);
  rmSync(dir, { recursive: true, force: true });
  for (const [rel, text] of files) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return files.size;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { values } = parseScriptArgs('npm run build:starter [-- --check] [-- --guided DIR]', {
    options: { check: { type: 'boolean' }, guided: { type: 'string' } },
  });
  if (values.check) {
    const drift = starterDrift();
    if (drift.length) {
      console.error(
        `The starter is out of sync with the solution:\n  ${drift.join('\n  ')}\nRun "npm run build:starter".`,
      );
      process.exit(1);
    }
    console.log('starter/src is in sync with solution/src');
  } else {
    console.log(`wrote ${writeStarter()} files to starter/src`);
    if (values.guided) {
      const dir = path.resolve(values.guided);
      // It is emptied first: never a folder that holds the kit's own sources.
      if ([solutionSrc, starterSrc, ROOT].some((kept) => kept === dir || kept.startsWith(dir + path.sep))) {
        console.error(`--guided needs a folder of its own, not ${values.guided}`);
        process.exit(2);
      }
      console.log(`wrote ${writeStarter('guided', dir)} files of the guided edition to ${values.guided}`);
    }
  }
}
