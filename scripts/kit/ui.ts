/** Small output helpers: colours (only on a terminal, never with NO_COLOR), progress bars, tables. */
import { createRequire } from 'node:module';
import { stripVTControlCharacters } from 'node:util';
import { CHAPTERS } from '../lib/chapters.js';

// Loaded so that a missing install is not fatal: doctor runs before `npm install`, to say it is needed (in plain text).
const colors = (() => {
  try {
    return (createRequire(import.meta.url)('picocolors') as typeof import('picocolors')).createColors(true);
  } catch {
    return undefined;
  }
})();
// Decided at each call, on the kit's own rule (stdout a terminal, no NO_COLOR, no FORCE_COLOR=0): picocolors' own
// guess also colours in CI and on Windows.
const useColor = () => Boolean(process.stdout.isTTY) && !process.env.NO_COLOR && process.env.FORCE_COLOR !== '0';
const paint = (name: 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan') => (text: string) =>
  colors && useColor() ? colors[name](text) : text;
export const bold = paint('bold');
export const dim = paint('dim');
export const red = paint('red');
export const green = paint('green');
export const yellow = paint('yellow');
export const cyan = paint('cyan');

/** A bar of `width` cells filled in proportion to passed/total. */
export function bar(passed: number, total: number, width = 20): string {
  const filled = total === 0 ? 0 : Math.round((passed / total) * width);
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}

export function chapterTitle(chapter: number): string {
  return CHAPTERS.find((c) => c.number === chapter)?.title ?? `Chapter ${chapter}`;
}

/** Plain-text table with left-aligned columns (right-aligned where `right[i]`). */
export function table(rows: string[][], right: boolean[] = []): string {
  const visible = (s: string) => stripVTControlCharacters(s).length;
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => visible(row[i] ?? ''))));
  return rows
    .map((row) =>
      row
        .map((cell, i) => {
          const pad = ' '.repeat(widths[i]! - visible(cell));
          return right[i] ? pad + cell : cell + pad;
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function indent(text: string, by = '    '): string {
  return text
    .split('\n')
    .map((line) => (line ? by + line : line))
    .join('\n');
}
