/** Argument helpers shared by the kit's commands. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CHAPTERS, chapterDir, parseChapter } from '../lib/chapters.js';

export class UsageError extends Error {
  override name = 'UsageError';
  /** True when the person asked for the usage (--help, -h): it is printed to stdout and the command exits 0. */
  readonly asked: boolean;
  constructor(message: string, asked = false) {
    super(message);
    this.asked = asked;
  }
}

/**
 * node:util's parseArgs, strict (its default): an unknown option, an option without its value or a word where none
 * is taken is a UsageError that shows `usage` (kit.ts prints it and exits 2), never silently ignored. `--help` or
 * `-h` anywhere is a UsageError too, marked asked: kit.ts prints the usage and exits 0, and the command does nothing
 * else (a hint is not used up, no test runs).
 */
export function parseCommandArgs<T extends ParseArgsConfig>(usage: string, config: T): ReturnType<typeof parseArgs<T>> {
  const words = config.args ?? process.argv.slice(2);
  const end = words.indexOf('--');
  if ((end === -1 ? words : words.slice(0, end)).some((word) => word === '--help' || word === '-h'))
    throw new UsageError(`Usage: ${usage}`, true);
  try {
    return parseArgs(config);
  } catch (error) {
    if (!String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_')) throw error;
    // Node's advice on an unknown option (quote it after `--`) is for a word, not a typo, and npm eats that `--`.
    const message = (error as Error).message.replace(/\. To specify a positional argument .*$/s, '');
    throw new UsageError(`${message}\nUsage: ${usage}`);
  }
}

/** parseCommandArgs for a script run on its own (no kit.ts around it): a usage error is printed, and it exits 2. */
export function parseScriptArgs<T extends ParseArgsConfig>(usage: string, config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseCommandArgs(usage, config);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    if (error.asked) {
      console.log(error.message);
      process.exit(0);
    }
    console.error(error.message);
    process.exit(2);
  }
}

export function hasTests(root: string, chapter: number): boolean {
  return existsSync(path.join(root, chapterDir(chapter)));
}

export function chaptersWithTests(root: string): number[] {
  return CHAPTERS.map((c) => c.number).filter((n) => hasTests(root, n));
}

/** The chapter named by the command's one word (chapter3, ch3, 3), if any; throws UsageError for a chapter with no tests. */
export function chapterArg(root: string, positionals: readonly string[], required = false): number | undefined {
  const [named, ...more] = positionals;
  if (more.length) throw new UsageError(`Name one chapter at a time, not ${positionals.join(' ')}`);
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
