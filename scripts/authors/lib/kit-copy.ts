/**
 * A throw-away copy of the kit for the authors' measurements (bench.ts, watch-timing.ts), so that the checkout's
 * .kit/ and starter/src are left alone: the sources, the tests (not tests/kit), the scripts and the files that decide
 * how they run, with node_modules linked in, never copied.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../../lib/paths.js';
import { buildWorkspace } from '../../lib/regions.js';

const KIT_ENTRIES = [
  'solution',
  'starter',
  'tests',
  'scripts',
  'vitest.config.ts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.base.json',
  'tsconfig.starter.json',
];

/** Copies the kit at `root` into a new temp folder whose name starts with `prefix`; returns the copy's path. */
export function copyKit(prefix: string, root = ROOT): string {
  const copy = mkdtempSync(path.join(tmpdir(), prefix));
  for (const entry of KIT_ENTRIES) {
    const from = path.join(root, entry);
    if (existsSync(from))
      cpSync(from, path.join(copy, entry), {
        recursive: true,
        filter: (src) => !/[\\/](node_modules|tests[\\/]kit)$/.test(src),
      });
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  return copy;
}

/** The copy's starter/src with chapters 1..n solved (the reference's code), the later ones stubbed. */
export function solveUpTo(copy: string, n: number): void {
  const { files } = buildWorkspace(path.join(copy, 'solution/src'), (region) => region.chapter > n);
  for (const [rel, text] of files) {
    mkdirSync(path.dirname(path.join(copy, 'starter/src', rel)), { recursive: true });
    writeFileSync(path.join(copy, 'starter/src', rel), text);
  }
}
