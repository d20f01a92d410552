/**
 * Chapter 15: no secret reaches a session file (buildAgent gives the store secretsOf(env), src/capstone/factory.ts).
 * Secrets are found by value as well as by name: a password inside DATABASE_URL, a GitHub token in GITHUB_PAT.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { redactCredentials, secretsOf, shownUrl } from 'kit/capstone/secrets';
import { assistantText } from 'kit/messages';
import { sessionsDir } from 'kit/session/store';
import { build, runPrompt, workspace } from './factory-fixtures.js';

const PASSWORD = 'hunter2-database-pw';
const PAT = 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz';
const ENV = { DATABASE_URL: `postgres://app:${PASSWORD}@db.internal:5432/app`, GITHUB_PAT: PAT, EDITOR: 'vim' };

describe('secrets by value (savedSessionFor and assembleAgent, src/capstone/factory-steps.ts)', () => {
  test("a session file holds neither a URL's password nor a token whose variable is not named like one", async () => {
    const { cwd, home } = workspace();
    const { built } = await build([assistantText(`Connecting with ${ENV.DATABASE_URL} and ${PAT}.`)], {
      cwd,
      home,
      env: ENV,
      sessionId: 'secret-test',
    });
    await runPrompt(built, `use ${ENV.DATABASE_URL}`);
    await built.close();
    const text = readFileSync(path.join(sessionsDir(home, cwd), 'secret-test.jsonl'), 'utf8');
    expect(
      text,
      "savedSessionFor: the store's secrets are secretsOf(env): the password of DATABASE_URL must not be written",
    ).not.toContain(PASSWORD);
    expect(text, 'savedSessionFor: a github_pat_ value is a secret whatever its variable is called').not.toContain(PAT);
    expect(text, 'the rest of the URL stays readable').toContain('db.internal:5432');
    expect(secretsOf(ENV), 'an ordinary value is not a secret').not.toContain('vim');
    expect(
      redactCredentials(`at https://me:${PASSWORD}@example.com/x with ghp_abcdefghijklmnopqrstuvwxyz0123456789`),
      "redactCredentials: a URL's user and password, and a token shape",
    ).toBe('at https://[REDACTED]@example.com/x with [REDACTED]');
  });

  test("a key in a base URL's query string, or a gateway's user:password, never reaches the session file", async () => {
    const { cwd, home } = workspace();
    const QUERY_KEY = 'gw-query-key-0123456789';
    const SIGNED = 'c2lnbmF0dXJl+IQ==';
    const env = {
      ANTHROPIC_BASE_URL: `https://gw-user:gw-pass-word@gateway.example/v1?api_key=${QUERY_KEY}&region=eu&sig=${encodeURIComponent(SIGNED)}`,
    };
    const { built } = await build([assistantText(`The gateway is ${env.ANTHROPIC_BASE_URL} (signed ${SIGNED}).`)], {
      cwd,
      home,
      env,
      sessionId: 'url-secret-test',
    });
    await runPrompt(built, 'which gateway?');
    await built.close();
    const text = readFileSync(path.join(sessionsDir(home, cwd), 'url-secret-test.jsonl'), 'utf8');
    expect(
      text,
      'savedSessionFor: secretsOf(env) holds the value of a query parameter named like a credential (api_key)',
    ).not.toContain(QUERY_KEY);
    expect(text, 'secretsOf: a signature is a credential too, as written and decoded').not.toContain(SIGNED);
    expect(text, "secretsOf: the gateway's password is a secret").not.toContain('gw-pass-word');
    expect(text, 'the rest of the URL stays readable').toContain('gateway.example/v1');
    expect(text, 'a query value not named like a credential stays').toContain('region=eu');
    expect(
      redactCredentials(`GET https://h/x?token=abc123&page=2&X-Amz-Credential=AKIDEXAMPLE%2F2026`),
      'redactCredentials: the values of query parameters named like credentials, whatever the environment',
    ).toBe('GET https://h/x?token=[REDACTED]&page=2&X-Amz-Credential=[REDACTED]');
    expect(shownUrl('http://127.0.0.1:8080/v1'), 'shownUrl: a URL with nothing to hide is shown as written').toBe(
      'http://127.0.0.1:8080/v1',
    );
    expect(shownUrl(env.ANTHROPIC_BASE_URL), 'shownUrl: no user, no password, no query value').toBe(
      'https://[REDACTED]@gateway.example/v1?api_key=[REDACTED]&region=[REDACTED]&sig=[REDACTED]',
    );
  });
});
