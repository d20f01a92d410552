/**
 * Type-checks the learner's project (tsconfig.starter.json: starter/src and the tests that import it, or some
 * chapters' tests and what they load) with the native TypeScript compiler, and returns each error as
 * `file:line: message`. vitest strips types without checking them, so this is what tells the learner about a type
 * error in watch and doctor. The check is npm test's (scripts/lib/starter-types.js): incremental, and read back from
 * .kit/typecheck.json when no file tsc reads changed since the last check of the same scope, whichever command ran it.
 */
import path from 'node:path';
import { checkStarterTypes } from '../lib/starter-types.js';

export interface TypeErrorInfo {
  /** The file, relative to the root, with forward slashes. */
  file: string;
  line: number;
  column: number;
  /** TS2322 and the like. */
  code: string;
  /** The message, continuation lines included. */
  message: string;
  /** `file:line: message` (first line of the message), ready to print. */
  text: string;
}

export interface TypecheckResult {
  /** No type errors (also true when the check was skipped). */
  ok: boolean;
  /** Errors in starter/src first (the learner's own code), then the rest, each group in file order. */
  errors: TypeErrorInfo[];
  /** Wall time in ms. */
  duration: number;
  /** Why the check did not run (typescript not installed); the errors are then empty. */
  skipped?: string;
  /** The result was read back: nothing tsc reads changed since the last check. */
  cached?: boolean;
}

export interface TypecheckOptions {
  /** Check only what these chapters' tests load (default: everything tsconfig.starter.json includes). */
  chapters?: readonly number[];
  signal?: AbortSignal;
}

const LINE = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;

/** Parses `tsc --pretty false` output. */
export function parseTscOutput(root: string, output: string): TypeErrorInfo[] {
  const errors: TypeErrorInfo[] = [];
  for (const raw of output.split(/\r?\n/)) {
    const match = LINE.exec(raw);
    if (match) {
      const [, file, line, column, code, message] = match;
      const rel = path.relative(root, path.resolve(root, file!)).split(path.sep).join('/');
      errors.push({ file: rel, line: Number(line), column: Number(column), code: code!, message: message!, text: '' });
    } else if (raw.trim() && errors.length && /^\s/.test(raw)) {
      errors.at(-1)!.message += `\n${raw.trim()}`;
    }
  }
  for (const error of errors) error.text = `${error.file}:${error.line}: ${error.message.split('\n')[0]}`;
  const mine = (e: TypeErrorInfo) => (e.file.startsWith('starter/') ? 0 : 1);
  return errors.sort(
    (a, b) => mine(a) - mine(b) || a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column,
  );
}

/** Type-checks the learner's project. Never throws for type errors; resolves with them. */
export async function typecheckStarter(root: string, options: TypecheckOptions = {}): Promise<TypecheckResult> {
  const started = Date.now();
  const ran = await checkStarterTypes(root, options);
  if (!ran)
    return {
      ok: true,
      errors: [],
      duration: Date.now() - started,
      skipped: 'typescript is not installed (run "npm install")',
    };
  const { code, output } = ran;
  const errors = parseTscOutput(root, output);
  if (code !== 0 && errors.length === 0 && output.trim()) {
    // tsc failed without a located error (a broken tsconfig, say): report its output as one error.
    const project = 'tsconfig.starter.json';
    const message = output.trim().split('\n').slice(0, 5).join('\n');
    errors.push({
      file: project,
      line: 1,
      column: 1,
      code: 'tsc',
      message,
      text: `${project}: ${message.split('\n')[0]}`,
    });
  }
  return { ok: errors.length === 0, errors, duration: Date.now() - started, cached: ran.cached };
}

/** A short block for a screen: the first `max` errors, then how many more. Empty when there are none. */
export function formatTypeErrors(errors: readonly TypeErrorInfo[], max = 5): string {
  if (errors.length === 0) return '';
  const lines = errors.slice(0, max).map((e) => e.text);
  if (errors.length > max) lines.push(`… and ${errors.length - max} more (npm run typecheck shows them all)`);
  return lines.join('\n');
}
