/** Types of starter-types.js (plain JavaScript so that scripts/test.mjs needs no TypeScript loader). */

/** The scope's name: `all`, or the chapters' numbers (`ch1`, `ch1-3-7`). */
export declare function typecheckScope(chapters?: readonly number[]): string;

export interface StarterTypesRun {
  /** tsc's exit code; null when it was stopped. */
  code: number | null;
  /** Everything tsc printed (`--pretty false`). */
  output: string;
  /** Read back from .kit/typecheck.json: no file tsc reads changed since that scope was last checked. */
  cached: boolean;
  ms: number;
  scope: string;
}

/**
 * Type-checks the starter for `chapters` (their tests and every file those load; none or empty: everything
 * tsconfig.starter.json includes), reusing the last result when nothing changed; undefined when typescript is not
 * installed.
 */
export declare function checkStarterTypes(
  root: string,
  options?: { chapters?: readonly number[]; signal?: AbortSignal },
): Promise<StarterTypesRun | undefined>;

/** A hash of the files tsc can read for tsconfig.starter.json. */
export declare function typecheckKey(root: string): string;
