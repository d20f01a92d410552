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
 * A URL's query parameter that carries a credential by its name (`?api_key=…`, `&token=…`, `sig=…` of a signed URL,
 * `X-Amz-Credential=…`): group 1 is `?name=` (or `&`, `;`, `#`), group 2 the value.
 */
export const QUERY_CREDENTIAL =
  /([?&;#][^=&#\s]*?(?:key|token|secret|pass|pwd|auth|sig|credential|session)[^=&#\s]*=)([^&#\s]+)/gi;

/**
 * Values of the environment that are secrets: variables named like KEY, TOKEN, SECRET, PASSWORD (and a few more),
 * any value shaped like a known credential, the password of any URL with one (`postgres://me:pw@db/app`), and the
 * value of a query parameter named like a credential (`ANTHROPIC_BASE_URL=https://gw/v1?api_key=…`), as written
 * and decoded. Never written to a session file, never printed.
 */
export function secretsOf(env: Record<string, string | undefined>): string[] {
  const secrets = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < 8) continue;
    if (/KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|_PAT\b|^PAT$/i.test(name)) secrets.add(value);
    for (const shape of CREDENTIAL_SHAPES) for (const match of value.matchAll(shape)) secrets.add(match[0]);
    for (const match of value.matchAll(/[a-z][a-z0-9+.-]*:\/\/([^\s/@:]*):([^\s/@]+)@/gi))
      if (match[2]!.length >= 4) secrets.add(match[2]!);
    for (const match of value.matchAll(QUERY_CREDENTIAL)) {
      const raw = match[2]!;
      if (raw.length < 4) continue;
      secrets.add(raw);
      try {
        const decoded = decodeURIComponent(raw);
        if (decoded.length >= 4) secrets.add(decoded);
      } catch {
        // not percent-encoded text: the raw value is enough
      }
    }
  }
  return [...secrets];
}

/**
 * `text` without credentials: every value of `secrets` and every credential-shaped string replaced by [REDACTED],
 * a URL's user and password too (`https://[REDACTED]@host`), and the value of a query parameter named like a
 * credential (`?api_key=[REDACTED]`). For whatever the kit prints or writes.
 */
export function redactCredentials(text: string, secrets: readonly string[] = []): string {
  let clean = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length))
    if (secret.length >= 4) clean = clean.split(secret).join(REDACTED);
  for (const shape of CREDENTIAL_SHAPES) clean = clean.replace(shape, REDACTED);
  clean = clean.replace(QUERY_CREDENTIAL, `$1${REDACTED}`);
  return clean.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]*:[^\s/@]+@/gi, `$1${REDACTED}@`);
}

/**
 * A URL as the kit shows it (a banner, a log line): whatever is between `//` and `@` (a user, a password, a token)
 * and every query value replaced by [REDACTED], the rest as written. A base URL is settings, not a secret, but a
 * gateway's often carries one. A URL with none of these is shown as written; text that is not a URL is only given to
 * redactCredentials.
 */
export function shownUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactCredentials(url);
  }
  if (!parsed.username && !parsed.password && !parsed.search && !parsed.hash) return url;
  const origin = `${parsed.protocol}//${parsed.username || parsed.password ? `${REDACTED}@` : ''}${parsed.host}`;
  const query = [...parsed.searchParams.keys()].map((name) => `${encodeURIComponent(name)}=${REDACTED}`).join('&');
  return `${origin}${parsed.pathname}${query ? `?${query}` : ''}${parsed.hash ? '#…' : ''}`;
}
