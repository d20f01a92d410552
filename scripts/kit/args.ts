/** Argument helpers shared by the kit's commands. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CHAPTERS, chapterDir, parseChapter } from '../lib/chapters.js';

export class UsageError extends Error {
  override name = 'UsageError';
}

export function hasTests(root: string, chapter: number): boolean {
  return existsSync(path.join(root, chapterDir(chapter)));
}

export function chaptersWithTests(root: string): number[] {
  return CHAPTERS.map((c) => c.number).filter((n) => hasTests(root, n));
}

/** The chapter named in args (chapter3, ch3, 3), if any; throws UsageError for a chapter with no tests. */
export function chapterArg(root: string, args: readonly string[], required = false): number | undefined {
  const positional = args.filter((arg) => !arg.startsWith('-'));
  const named = positional.find((arg) => /^(chapter|ch)?-?\d+$/i.test(arg) || /^(chapter|ch)/i.test(arg));
  if (named === undefined) {
    if (required) throw new UsageError('Name a chapter, for example: chapter3');
    return undefined;
  }
  const chapter = parseChapter(named);
  if (chapter === undefined || !hasTests(root, chapter)) {
    const list = CHAPTERS.map(
      ({ number, title }) =>
        `  chapter${number}`.padEnd(13) + title + (hasTests(root, number) ? '' : '  (not written yet)'),
    );
    throw new UsageError(`Unknown chapter: ${named}. The chapters are:\n\n${list.join('\n')}`);
  }
  return chapter;
}

/** The value after a flag (`--json FILE` or `--json=FILE`). */
export function flagValue(args: readonly string[], flag: string): string | undefined {
  const eq = args.find((arg) => arg.startsWith(`${flag}=`));
  if (eq) return eq.slice(flag.length + 1);
  const index = args.indexOf(flag);
  if (index < 0) return undefined;
  const value = args[index + 1];
  if (value === undefined || value.startsWith('--')) throw new UsageError(`${flag} needs a value`);
  return value;
}
