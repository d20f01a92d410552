/** Helpers shared by chapter 10's test files. */
import { expect } from 'vitest';

/**
 * Checks the facts a StreamInterruptedError's message must carry (withRetries.stream step 3 says what it conveys, not
 * its words): the stream had begun, so it is not retried, and (when given) the cause's own message.
 */
export function expectCutMessage(message: string | undefined, where: string, cause?: string): void {
  const text = message ?? '';
  expect(text, `${where}: stream guided step 3: the message says the stream was cut after it had begun`).toMatch(
    /\b(began|begun|started|already|after)\b/i,
  );
  expect(text, `${where}: stream guided step 3: the message says it is not retried`).toMatch(/retr(y|ied|ies|ying)/i);
  if (cause !== undefined) {
    expect(text, `${where}: stream guided step 3: the message carries the cause's own message`).toContain(cause);
    expect(
      text.replace(cause, ''),
      `${where}: stream guided step 3: more than the cause's message: say what happened`,
    ).toMatch(/[a-z]{3,}/i);
  }
}
