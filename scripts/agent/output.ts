/**
 * What npm run agent prints: stdout redacted as it streams (a credential split over two chunks is still caught,
 * scripts/lib/redacting-writer.ts), and notes on stderr, written after what stdout still holds.
 */
import { redactingWriter } from '../lib/redacting-writer.js';

/** Takes credentials out of what is printed (set once the tree's code is loaded: redactCredentials, chapter 15). */
let redact = (text: string) => text;

const stdout = redactingWriter(
  (text) => process.stdout.write(text),
  () => redact,
);

/** From now on, everything printed goes through `redaction` first. */
export function redactWith(redaction: (text: string) => string): void {
  redact = redaction;
}

/** Writes to stdout. */
export const out = (text: string) => stdout.write(text);

/** Writes what stdout holds back now (before a prompt, a question or the end). */
export const flush = () => stdout.flush();

/** A line on stderr, for the person: after what stdout holds, without a credential in it. */
export const note = (text: string) => {
  stdout.flush();
  process.stderr.write(`${redact(text)}\n`);
};
