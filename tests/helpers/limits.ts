/**
 * The limits of a graded test (no imports, so the vitest configs read them too). A correct solution never reaches
 * either, on any machine: see tests/helpers/wait.ts and docs/authors.md ("A test's outcome depends on the code").
 */

/** How long a wait for a real event (a process, a server, a file) may take before the test calls it a hang. */
export const HANG_MS = 15_000;

/** vitest's limit for one test: above any few waits of HANG_MS, so a hang fails with its step's message first. */
export const TEST_TIMEOUT_MS = 120_000;

/**
 * A real program's start-up and answers (a Node MCP server, the ACP server over stdio) given as its own time limit:
 * a Node process that loads an SDK can take many seconds to answer on a loaded machine.
 */
export const REAL_SERVER_MS = 4 * HANG_MS;
