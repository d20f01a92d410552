/** The guide's files: its pages under book/src, the edition a page belongs to, the pages of a chapter. */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { EDITIONS } from './guide-locale.js';
import { ROOT } from './paths.js';

/** The guide's sources (mdBook's layout: SUMMARY.md and the pages; each edition in a folder of its own). */
export function bookSrc(root: string): string {
  return path.join(root, 'book/src');
}

/** Every markdown page under book/src (relative paths, forward slashes), SUMMARY.md excluded. */
export function guidePages(root = ROOT): string[] {
  const dir = bookSrc(root);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map((f) => String(f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.md') && f !== 'SUMMARY.md')
    .sort();
}

/** The edition a page belongs to: '' for English, else its folder (`zh`). */
export function editionOf(page: string): string {
  return EDITIONS.find((e) => page.startsWith(`${e.dir}/`))?.dir ?? '';
}

/**
 * A chapter's pages: chapter-NN.md, and chapter-NN-K.md for part K of a chapter too long for one sitting (in an
 * edition's folder too: zh/chapter-NN.md).
 */
export function chapterPage(page: string): { chapter: number; part?: number } | undefined {
  const m = /^(?:zh\/)?chapter-(\d+)(?:-(\d+))?\.md$/.exec(page);
  return m ? { chapter: Number(m[1]), ...(m[2] ? { part: Number(m[2]) } : {}) } : undefined;
}
