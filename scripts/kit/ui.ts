/** Small output helpers: colours (only on a terminal, never with NO_COLOR), progress bars, tables. */
import { CHAPTERS } from '../lib/chapters.js';

const useColor = () => Boolean(process.stdout.isTTY) && !process.env.NO_COLOR && process.env.FORCE_COLOR !== '0';
const paint = (code: number) => (text: string) => (useColor() ? `\u001b[${code}m${text}\u001b[0m` : text);
export const bold = paint(1);
export const dim = paint(2);
export const red = paint(31);
export const green = paint(32);
export const yellow = paint(33);
export const cyan = paint(36);

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
  const visible = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '').length;
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
