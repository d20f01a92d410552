/** Types of tsc.js (plain JavaScript so that scripts/test.mjs needs no TypeScript loader). */

/** The command that runs tsc in `root`'s node_modules, or undefined when typescript is not installed. */
export declare function tscCommand(root: string): Promise<{ command: string; args: string[] } | undefined>;

/**
 * Runs `tsc ...args` in `root` and resolves to its exit code (null when it was killed) and everything it printed,
 * stdout and stderr together; undefined when typescript is not installed. Rejects when tsc cannot start or `signal`
 * aborts it. The compiler never outlives this process.
 */
export declare function runTsc(
  root: string,
  args: readonly string[],
  options?: { signal?: AbortSignal },
): Promise<{ code: number | null; output: string } | undefined>;
