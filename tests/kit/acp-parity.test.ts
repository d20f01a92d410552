/**
 * Kit test: npm run acp is the same agent as npm run agent (issue 29, item 8). The settings' UserPromptSubmit hook
 * refuses a prompt over ACP as it does in the terminal, a Stop hook sends the run back to work, and two sessions
 * run at once, each with its own history and answer.
 */
import * as acp from '@agentclientprotocol/sdk';
import { spawn } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeModelApi, openaiAnswer, tempFolders } from './agent-process.js';
import { REPO } from './helpers.js';

const tempFolder = tempFolders('kit-acp-parity-');

/** A fake OpenAI API that answers every request with the text of its last user message. */
const api = fakeModelApi((body) =>
  openaiAnswer(`answer to: ${body.messages.filter((m: any) => m.role === 'user').at(-1)?.content ?? ''}`),
);
const { requests } = api;
beforeAll(api.start);
afterAll(api.stop);

function folder(settings?: object): string {
  const cwd = realpathSync(tempFolder());
  if (settings) {
    mkdirSync(path.join(cwd, '.claude'), { recursive: true });
    writeFileSync(path.join(cwd, '.claude', 'settings.json'), JSON.stringify(settings));
  }
  return cwd;
}

function startAcp(home: string) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    OPENAI_API_KEY: 'dummy-key',
    OPENAI_BASE_URL: api.url,
    OPENAI_MODEL: 'fake-model',
  };
  for (const name of Object.keys(env)) if (/^(ANTHROPIC|CLAUDE|KIT)_/.test(name)) delete env[name];
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, 'scripts/acp.ts'), '--trust-workspace'], {
    cwd: REPO,
    env,
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const updates: acp.SessionNotification[] = [];
  const connection = acp
    .client({ name: 'kit-test' })
    .onNotification(acp.methods.client.session.update, ({ params }) => void updates.push(params))
    .onRequest(acp.methods.client.session.requestPermission, async () => ({
      outcome: { outcome: 'selected', optionId: 'reject_once' },
    }))
    .connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
  return { child, connection, updates, stderr: () => stderr };
}

const said = (updates: acp.SessionNotification[], sessionId: string) =>
  updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk')
    .map((n) => (n.update as any).content?.text ?? '')
    .join('');

describe.skipIf(Boolean(process.env.KIT_MUTATION_CHAPTER))(
  'npm run acp behaves as npm run agent (scripts/acp.ts, capstone/prompt-hooks.ts)',
  { timeout: 300_000 },
  () => {
    it('a UserPromptSubmit hook refuses a prompt, a Stop hook sends the run back once, and two sessions run at once', async () => {
      const marks = realpathSync(tempFolder());
      const hooked = folder({
        hooks: {
          UserPromptSubmit: [
            {
              hooks: [
                { type: 'command', command: `grep -q secret && { echo "no secrets here" >&2; exit 2; }; exit 0` },
              ],
            },
          ],
          Stop: [
            {
              hooks: [
                {
                  type: 'command',
                  command: `test -e ${JSON.stringify(path.join(marks, 'once'))} && exit 0; touch ${JSON.stringify(path.join(marks, 'once'))}; echo "check the tests too" >&2; exit 2`,
                },
              ],
            },
          ],
        },
      });
      const plain = folder();
      const served = startAcp(realpathSync(tempFolder()));
      try {
        await served.connection.agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: {},
        });
        const a = await served.connection.agent.request(acp.methods.agent.session.new, { cwd: hooked, mcpServers: [] });
        const b = await served.connection.agent.request(acp.methods.agent.session.new, { cwd: plain, mcpServers: [] });

        const refused = await served.connection.agent
          .request(acp.methods.agent.session.prompt, {
            sessionId: a.sessionId,
            prompt: [{ type: 'text', text: 'tell me the secret' }],
          })
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        expect(
          String((refused as { message?: string })?.message ?? refused),
          `the UserPromptSubmit hook refuses the prompt over ACP too (stderr: ${served.stderr()})`,
        ).toMatch(/blocked by a UserPromptSubmit hook: no secrets here/);
        expect(
          requests.some((body) => JSON.stringify(body).includes('tell me the secret')),
          'a refused prompt is never sent to the model',
        ).toBe(false);

        requests.length = 0;
        const [first, second] = await Promise.all([
          served.connection.agent.request(acp.methods.agent.session.prompt, {
            sessionId: a.sessionId,
            prompt: [{ type: 'text', text: 'prompt A' }],
          }),
          served.connection.agent.request(acp.methods.agent.session.prompt, {
            sessionId: b.sessionId,
            prompt: [{ type: 'text', text: 'prompt B' }],
          }),
        ]);
        expect([first.stopReason, second.stopReason]).toEqual(['end_turn', 'end_turn']);
        expect(
          said(served.updates, a.sessionId),
          "session A: its answer, then the Stop hook's reason sent it back once",
        ).toBe('answer to: prompt Aanswer to: check the tests too');
        expect(said(served.updates, b.sessionId), 'session B: only its own answer (no Stop hook in its folder)').toBe(
          'answer to: prompt B',
        );
        const forA = requests.filter((body) => JSON.stringify(body).includes('prompt A'));
        expect(
          forA.every((body) => !JSON.stringify(body).includes('prompt B')),
          "the two sessions' histories do not mix",
        ).toBe(true);
      } finally {
        served.child.kill();
      }
    });
  },
);
