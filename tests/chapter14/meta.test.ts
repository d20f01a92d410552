import * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, test } from 'vitest';
import { resumeFromMeta, systemPromptFromMeta } from 'kit/acp/session-setup';
import { assistantText, userMessage, type Message } from 'kit/messages';
import type { MockProvider } from 'kit/mock-provider';
import { rejection } from '../helpers/assert.js';
import { shape } from '../helpers/transcript.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { editor, testFactory } from './fixtures.js';

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const e of open.splice(0)) e.close();
});
const fails = (run: () => unknown, message: string) =>
  rejection(Promise.resolve().then(run), message) as Promise<{ code?: number; message?: string }>;

describe('systemPromptFromMeta: replace and append (src/acp/session-setup.ts)', () => {
  test('{ replace } replaces; with both, replace wins; { append } alone adds', () => {
    expect(
      systemPromptFromMeta({ systemPrompt: { replace: 'You are terse.' } }),
      'systemPromptFromMeta: { replace } → { replace } (guided step 3)',
    ).toEqual({ replace: 'You are terse.' });
    expect(
      systemPromptFromMeta({ systemPrompt: { append: 'Use tabs.', replace: 'Only this.' } }),
      'systemPromptFromMeta: with append and replace, replace wins (guided step 3)',
    ).toEqual({ replace: 'Only this.' });
    expect(
      systemPromptFromMeta({ systemPrompt: { replace: 'Only this.', append: 'Use tabs.' } }),
      'systemPromptFromMeta: whatever the order of the keys (guided step 3)',
    ).toEqual({ replace: 'Only this.' });
    expect(
      systemPromptFromMeta({ systemPrompt: { replace: '' } }),
      'systemPromptFromMeta: an empty replace still replaces (guided step 3)',
    ).toEqual({ replace: '' });
    expect(
      systemPromptFromMeta({ systemPrompt: { append: 'Use tabs.', other: 1 } }),
      'systemPromptFromMeta: other keys are not ours (guided step 3)',
    ).toEqual({ append: 'Use tabs.' });
  });

  test('a replace or append of the wrong type is refused, even beside a good one', async () => {
    for (const value of [
      { replace: 7 },
      { append: 'x', replace: 7 },
      { replace: 'x', append: false },
      { replace: null, append: 'x' },
      { replace: ['x'] },
    ]) {
      const error = await fails(
        () => systemPromptFromMeta({ systemPrompt: value }),
        `systemPromptFromMeta: ${JSON.stringify(value)} must be refused (guided step 3)`,
      );
      expect(error, `systemPromptFromMeta: ${JSON.stringify(value)} is invalid params (guided step 4)`).toMatchObject({
        code: -32602,
      });
      expect(error.message, 'systemPromptFromMeta: the message shows the accepted shapes (guided step 4)').toMatch(
        /replace/,
      );
    }
  });
});

describe('resumeFromMeta (src/acp/session-setup.ts)', () => {
  test('reads _meta.claudeCode.options.resume, and nothing when any part of the path is missing', () => {
    expect(
      resumeFromMeta({ claudeCode: { options: { resume: 'abc-123_X', model: 'other' } } }),
      'resumeFromMeta: the id (guided step 2)',
    ).toBe('abc-123_X');
    for (const meta of [
      undefined,
      null,
      {},
      { claudeCode: null },
      { claudeCode: 'x' },
      { claudeCode: {} },
      { claudeCode: { options: null } },
      { claudeCode: { options: [] } },
      { claudeCode: { options: { resume: null } } },
      { claudeCode: { options: { cwd: '/x' } } },
    ]) {
      expect(
        resumeFromMeta(meta as never),
        `resumeFromMeta: ${JSON.stringify(meta)} → undefined (guided step 1)`,
      ).toBeUndefined();
    }
  });

  test('a resume that is not a session id is refused: it comes from the client and names a file', async () => {
    for (const resume of ['../../etc/passwd', 'a/b', '', 42, { id: 'x' }]) {
      const error = await fails(
        () => resumeFromMeta({ claudeCode: { options: { resume } } }),
        `resumeFromMeta: ${JSON.stringify(resume)} must be refused (guided step 3)`,
      );
      expect(error, `resumeFromMeta: ${JSON.stringify(resume)} is invalid params (guided step 3)`).toMatchObject({
        code: -32602,
      });
      expect(error.message, `resumeFromMeta: the message says the resume must be a session id (guided step 3)`).toMatch(
        /session ?id/i,
      );
    }
  });
});

describe('AcpServer.newSession: resume through _meta (src/acp/server.ts)', () => {
  const saved = () =>
    new Map<string, Message[]>([['old-1', [userMessage('Earlier'), assistantText('Earlier answer')]]]);

  test('session/new with claudeCode.options.resume continues that saved session under its id, without a replay', async () => {
    const factory = testFactory({ saved: saved(), script: [assistantText('Again')] });
    const e = editor({ openSession: factory.openSession });
    open.push(e);
    const { root } = tempWorkspace();
    const session = await e.open(root, {
      _meta: { claudeCode: { options: { resume: 'old-1' } }, systemPrompt: { append: 'Be brief.' } },
    });
    expect(session.sessionId, 'AcpServer.newSession: the answer names the resumed session (guided step 2)').toBe(
      'old-1',
    );
    expect(
      session.configOptions?.length,
      'AcpServer.newSession: with the modes and config options, as session/resume answers (guided step 2)',
    ).toBeGreaterThan(0);
    expect(
      factory.setups.map((setup) => [setup.sessionId, setup.resume, setup.systemPrompt]),
      'AcpServer.newSession: the factory resumes old-1 (loadSession with replay false), with the _meta system prompt (guided step 2)',
    ).toEqual([['old-1', true, { append: 'Be brief.' }]]);
    expect(e.of('old-1'), 'AcpServer.newSession: resume, not load: nothing is replayed (guided step 2)').toEqual([]);
    await e.prompt('old-1', 'Continue');
    const request = (factory.providers[0] as MockProvider).requests[0]!;
    expect(
      shape(request.messages as Message[]),
      'AcpServer.newSession: the prompt continues the saved history (guided step 2)',
    ).toEqual(['user', 'assistant text', 'user']);
  });

  test('a saved session that is not there is -32002, and a bad id is refused before the factory is asked', async () => {
    const factory = testFactory({ saved: saved() });
    const e = editor({ openSession: factory.openSession });
    open.push(e);
    const { root } = tempWorkspace();
    await e.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
    const missing = await fails(
      () =>
        e.agent.request(acp.methods.agent.session.new, {
          cwd: root,
          mcpServers: [],
          _meta: { claudeCode: { options: { resume: 'gone' } } },
        }),
      'AcpServer.newSession: a saved session that is not there must fail (guided step 2)',
    );
    expect(missing, 'AcpServer.newSession: as session/resume: -32002 naming it (guided step 2)').toMatchObject({
      code: -32002,
      message: expect.stringContaining('gone'),
    });
    const bad = await fails(
      () =>
        e.agent.request(acp.methods.agent.session.new, {
          cwd: root,
          mcpServers: [],
          _meta: { claudeCode: { options: { resume: '../x' } } },
        }),
      'AcpServer.newSession: a resume that is not an id must fail (guided step 2)',
    );
    expect(bad.code, 'AcpServer.newSession: resumeFromMeta refuses it: invalid params (guided step 2)').toBe(-32602);
    expect(
      factory.setups.map((setup) => setup.sessionId),
      'AcpServer.newSession: only the missing session was looked for; no new session was made',
    ).toEqual(['gone']);
  });
});
