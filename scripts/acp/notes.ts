/**
 * npm run acp's notes for the person reading the editor's log: stderr, never stdout (stdout carries the protocol's
 * frames and nothing else), with no credential in them.
 */

/** Takes credentials out of every note (set once the tree's code is loaded: redactCredentials, chapter 15). */
let redact = (text: string) => text;

/** From now on, every note goes through `redaction` first. */
export function redactWith(redaction: (text: string) => string): void {
  redact = redaction;
}

/** A note for the person reading the editor's log: stderr, never stdout; no credential in it. */
export const note = (text: string) => process.stderr.write(`${redact(text)}\n`);
