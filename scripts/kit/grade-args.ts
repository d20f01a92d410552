/**
 * npm run grade's options, read once by parseArgs (strict: a mistyped flag would otherwise be ignored and its file
 * silently never written), for the command (grade.ts) and for the repositories it grades (class-grade.ts).
 */
import { parseCommandArgs, UsageError } from './args.js';

export const GRADE_USAGE =
  'npm run grade -- [--solution] [--chapters 1-4] [--json F] [--junit F] [--classroom50 F] [--gradescope F]\n' +
  '       npm run grade -- --repo DIR | --repos DIR… | --repos-file FILE [--chapters 1-4] [--jobs N] [--timeout MIN]\n' +
  '                        [--logs DIR] [--json F] [--csv F] [--markdown F] [--junit F] [--classroom50 F] [--gradescope F]';

const OPTIONS = {
  solution: { type: 'boolean' },
  chapters: { type: 'string' },
  json: { type: 'string' },
  junit: { type: 'string' },
  classroom50: { type: 'string' },
  gradescope: { type: 'string' },
  repo: { type: 'string' },
  repos: { type: 'boolean' },
  'repos-file': { type: 'string' },
  jobs: { type: 'string' },
  logs: { type: 'string' },
  csv: { type: 'string' },
  markdown: { type: 'string' },
  timeout: { type: 'string' },
} as const;

export type GradeArgs = ReturnType<typeof parseGradeArgs>;

/** The options, and `folders`: the words after `--repos` (a shell's glob, up to the next option). */
export function parseGradeArgs(args: readonly string[]) {
  const { values, tokens } = parseCommandArgs(GRADE_USAGE, {
    args,
    options: OPTIONS,
    allowPositionals: true,
    tokens: true,
  });
  const folders: string[] = [];
  let afterRepos = false;
  for (const token of tokens) {
    if (token.kind !== 'positional') afterRepos = token.kind === 'option' && token.name === 'repos';
    else if (afterRepos) folders.push(token.value);
    else
      throw new UsageError(
        `Unexpected argument '${token.value}': the folders to grade follow --repos\nUsage: ${GRADE_USAGE}`,
      );
  }
  return { ...values, folders };
}

/** The value of `--jobs` or `--timeout`: a whole number of 1 or more, if given. */
export function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(`${flag} needs a whole number of 1 or more, not "${value}"`);
  return Number(value);
}
