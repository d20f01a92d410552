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
      'systemPromptFromMeta step 3: { replace } → { replace }',
    ).toEqual({ replace: 'You are terse.' });
    expect(
      systemPromptFromMeta({ systemPrompt: { append: 'Use tabs.', replace: 'Only this.' } }),
      'systemPromptFromMeta step 3: with append and replace, replace wins',
    ).toEqual({ replace: 'Only this.' });
    expect(
      systemPromptFromMeta({ systemPrompt: { replace: 'Only this.', append: 'Use tabs.' } }),
      'systemPromptFromMeta step 3: whatever the order of the keys',
    ).toEqual({ replace: 'Only this.' });
    expect(
      systemPromptFromMeta({ systemPrompt: { replace: '' } }),
      'systemPromptFromMeta step 3: an empty replace still replaces',
    ).toEqual({ replace: '' });
    expect(
      systemPromptFromMeta({ systemPrompt: { append: 'Use tabs.', other: 1 } }),
      'systemPromptFromMeta step 3: other keys are not ours',
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
        `systemPromptFromMeta step 3: ${JSON.stringify(value)} must be refused`,
      );
      expect(error, `systemPromptFromMeta step 4: ${JSON.stringify(value)} is invalid params`).toMatchObject({
        code: -32602,
      });
      expect(error.message, 'systemPromptFromMeta step 4: the message shows the accepted shapes').toMatch(/replace/);
    }
  });
});

describe('resumeFromMeta (src/acp/session-setup.ts)', () => {
  test('reads _meta.claudeCode.options.resume, and nothing when any part of the path is missing', () => {
    expect(
      resumeFromMeta({ claudeCode: { options: { resume: 'abc-123_X', model: 'other' } } }),
      'resumeFromMeta step 2: the id',
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
        `resumeFromMeta step 1: ${JSON.stringify(meta)} → undefined`,
      ).toBeUndefined();
    }
  });

  test('a resume that is not a session id is refused: it comes from the client and names a file', async () => {
    for (const resume of ['../../etc/passwd', 'a/b', '', 42, { id: 'x' }]) {
      const error = await fails(
        () => resumeFromMeta({ claudeCode: { options: { resume } } }),
        `resumeFromMeta step 3: ${JSON.stringify(resume)} must be refused`,
      );
      expect(error, `resumeFromMeta step 3: ${JSON.stringify(resume)} is invalid params`).toMatchObject({
        code: -32602,
      });
      expect(error.message, `resumeFromMeta step 3: the message says the resume must be a session id`).toMatch(
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
    expect(session.sessionId, 'AcpServer.newSession step 2: the answer names the resumed session').toBe('old-1');
    expect(
      session.configOptions?.length,
      'AcpServer.newSession step 2: with the modes and config options, as session/resume answers',
    ).toBeGreaterThan(0);
    expect(
      factory.setups.map((setup) => [setup.sessionId, setup.resume, setup.systemPrompt]),
      'AcpServer.newSession step 2: the factory resumes old-1 (loadSession with replay false), with the _meta system prompt',
    ).toEqual([['old-1', true, { append: 'Be brief.' }]]);
    expect(e.of('old-1'), 'AcpServer.newSession step 2: resume, not load: nothing is replayed').toEqual([]);
    await e.prompt('old-1', 'Continue');
    const request = (factory.providers[0] as MockProvider).requests[0]!;
    expect(
      shape(request.messages as Message[]),
      'AcpServer.newSession step 2: the prompt continues the saved history',
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
      'AcpServer.newSession step 2: a saved session that is not there must fail',
    );
    expect(missing, 'AcpServer.newSession step 2: as session/resume: -32002 naming it').toMatchObject({
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
      'AcpServer.newSession step 2: a resume that is not an id must fail',
    );
    expect(bad.code, 'AcpServer.newSession step 2: resumeFromMeta refuses it: invalid params').toBe(-32602);
    expect(
      factory.setups.map((setup) => setup.sessionId),
      'AcpServer.newSession: only the missing session was looked for; no new session was made',
    ).toEqual(['gone']);
  });
});
