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

/** What a copy of the kit holds (node_modules is linked in, never copied; the guide only when asked for). */
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

export interface KitCopyOptions {
  /** Copy the guide (book/) too, without its build's cache and output. */
  book?: boolean;
  /** Copy the tests of chapters 1..n only (the code stays whole). */
  chapters?: number;
  /** Link node_modules in (the default); false leaves it out, a kit that cannot run. */
  link?: boolean;
}

/**
 * Copies the kit at `root` into a new temp folder whose name starts with `prefix`; returns the copy's path. The
 * kit's own tests (tests/kit) are never copied: a copy is what they run commands on (tests/kit/helpers.ts copyRepo).
 */
export function copyKit(prefix: string, root = ROOT, options: KitCopyOptions = {}): string {
  const copy = mkdtempSync(path.join(tmpdir(), prefix));
  const later = (src: string) => {
    const match = /[\\/]tests[\\/]chapter(\d+)$/.exec(src);
    return options.chapters !== undefined && match !== null && Number(match[1]) > options.chapters;
  };
  for (const entry of options.book ? [...KIT_ENTRIES, 'book'] : KIT_ENTRIES) {
    const from = path.join(root, entry);
    if (existsSync(from))
      cpSync(from, path.join(copy, entry), {
        recursive: true,
        filter: (src) => !/[\\/](node_modules|\.vitepress[\\/](cache|dist)|tests[\\/]kit)$/.test(src) && !later(src),
      });
  }
  if (options.link !== false) symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
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
