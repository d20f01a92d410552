/**
 * Chapter 15: what the kit never prints and never writes to a session file: the environment's secrets, found by the
 * variable's name or by the value's shape, and the text they are taken out of.
 */
import { REDACTED } from '../session/store.js';

/** Known shapes of credentials, found by their value whatever the variable is called. */
export const CREDENTIAL_SHAPES: readonly RegExp[] = [
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bglpat-[A-Za-z0-9_-]{16,}/g,
];

/**
 * Values of the environment that are secrets: variables named like KEY, TOKEN, SECRET, PASSWORD (and a few more),
 * any value shaped like a known credential, and the password of any URL with one (`postgres://me:pw@db/app`).
 * Never written to a session file, never printed.
 */
export function secretsOf(env: Record<string, string | undefined>): string[] {
  const secrets = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < 8) continue;
    if (/KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|_PAT\b|^PAT$/i.test(name)) secrets.add(value);
    for (const shape of CREDENTIAL_SHAPES) for (const match of value.matchAll(shape)) secrets.add(match[0]);
    for (const match of value.matchAll(/[a-z][a-z0-9+.-]*:\/\/([^\s/@:]*):([^\s/@]+)@/gi))
      if (match[2]!.length >= 4) secrets.add(match[2]!);
  }
  return [...secrets];
}

/**
 * `text` without credentials: every value of `secrets` and every credential-shaped string replaced by [REDACTED],
 * and the password of a URL too (`https://me:[REDACTED]@host`). For whatever the kit prints or writes.
 */
export function redactCredentials(text: string, secrets: readonly string[] = []): string {
  let clean = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length))
    if (secret.length >= 4) clean = clean.split(secret).join(REDACTED);
  for (const shape of CREDENTIAL_SHAPES) clean = clean.replace(shape, REDACTED);
  return clean.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:)([^\s/@]+)@/gi, `$1${REDACTED}@`);
}
