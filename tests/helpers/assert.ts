/** Assertion helpers whose failures say what the kit expected, not only what happened. */
import { expect } from 'vitest';

/** What a promise rejected with; fails with `message` if it resolved instead. */
export async function rejection(promise: Promise<unknown>, message: string): Promise<unknown> {
  const outcome = await promise.then(
    (value) => ({ resolved: true as const, value }),
    (error: unknown) => ({ resolved: false as const, error }),
  );
  if (outcome.resolved) expect.fail(`${message} (it resolved with ${JSON.stringify(outcome.value)?.slice(0, 120)})`);
  const { error } = outcome as { error: unknown };
  // A stub's TODO is not the rejection a test waits for: report it as the TODO, not as a wrong error.
  if (error instanceof Error && error.name === 'TodoError') throw error;
  return error;
}

/** The value of a promise that must not reject; fails with `message` and the error if it does. */
export async function settles<T>(promise: Promise<T>, message: string): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    return expect.fail(
      `${message}; it threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    );
  }
}
