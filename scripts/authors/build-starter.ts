/**
 * npm run build:starter           writes starter/src from solution/src (every chapter region stubbed)
 * npm run build:starter -- --check   exits 1 if the committed starter differs from what this would write
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseScriptArgs } from '../kit/args.js';
import { buildWorkspace, listSources } from '../lib/regions.js';
import { ROOT } from '../lib/paths.js';

const solutionSrc = path.join(ROOT, 'solution/src');
const starterSrc = path.join(ROOT, 'starter/src');

/**
 * The starter's files: every region stubbed. The solution's notes to the linter go: an import the solution keeps for
 * its known-wrong solutions is, in the starter, one of the many a stub does not use yet (unused imports are allowed
 * there), so the note would only be reported as having no effect.
 */
function starterFiles(): Map<string, string> {
  const { files } = buildWorkspace(solutionSrc, () => true);
  for (const [rel, text] of files)
    files.set(rel, text.replace(/^\/\/ biome-ignore lint\/correctness\/noUnusedImports:.*\n/gm, ''));
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

export function writeStarter(): number {
  const files = starterFiles();
  rmSync(starterSrc, { recursive: true, force: true });
  for (const [rel, text] of files) {
    mkdirSync(path.dirname(path.join(starterSrc, rel)), { recursive: true });
    writeFileSync(path.join(starterSrc, rel), text);
  }
  return files.size;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { values } = parseScriptArgs('npm run build:starter [-- --check]', { options: { check: { type: 'boolean' } } });
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
  }
}
