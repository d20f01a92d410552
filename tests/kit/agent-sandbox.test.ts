/**
 * `npm run agent` with chapter 16's sandbox, as a person runs it: a child process in a temp workspace, the OpenAI
 * provider pointed at a fake API on 127.0.0.1, and `sandbox.enabled` in the person's own settings. With the sandbox,
 * commands run without a question and cannot write outside the workspace, read the person's credentials, reach a
 * host not on the list (the fake API itself, on 127.0.0.1) or read the agent's own key; without it (bubblewrap out
 * of reach), the agent says so and asks as before.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxMissing } from '../../solution/src/sandbox/runtime.js';
import { agentWorkspace, fileModelApi, openaiAnswer, openaiToolCall, runAgent, tempFolders } from './agent-process.js';
import { KIT_HANG_MS } from './helpers.js';

const tempFolder = tempFolders('kit-agent-sandbox-');
const api = fileModelApi();
const missing = await sandboxMissing();
const KEY = 'sk-dummy-KEY-THAT-MUST-NOT-LEAK-4242';

/** A workspace whose person turned the sandbox on with auto-allow, and a secret in their ~/.ssh. */
function folder() {
  const where = agentWorkspace(tempFolder, {
    'README.md': 'hi\n',
    '.env': 'DB_PASSWORD=hunter2\n',
    '.claude/settings.json': JSON.stringify({ permissions: { deny: ['Read(./.env)'] } }),
  });
  mkdirSync(path.join(where.home, '.claude'), { recursive: true });
  writeFileSync(
    path.join(where.home, '.claude/settings.json'),
    JSON.stringify({ sandbox: { enabled: true, autoAllowBashIfSandboxed: true } }),
  );
  mkdirSync(path.join(where.home, '.ssh'));
  writeFileSync(path.join(where.home, '.ssh/id_ed25519'), 'PRIVATE-KEY-MATERIAL\n');
  return where;
}

/** The tool results the model was sent, by call id, from the last request. */
function results(): Record<string, string> {
  const messages = (api.requests.at(-1)?.messages ?? []) as Array<{
    role: string;
    tool_call_id?: string;
    content?: unknown;
  }>;
  return Object.fromEntries(
    messages
      .filter((m) => m.role === 'tool')
      .map((m) => [m.tool_call_id!, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)]),
  );
}

const calls = (commands: string[]) =>
  commands.map((command, index) => openaiToolCall('bash', { command }, `call_${index}`));

describe('npm run agent with the sandbox (chapter 16)', () => {
  it.skipIf(missing.length > 0)(
    `a command runs without a question and cannot leave the workspace, read a credential, reach an unlisted host or read the agent's key${missing.length > 0 ? ` (skipped here: ${missing.join('; ')}; npm run doctor says how to install it)` : ''}`,
    async () => {
      const where = folder();
      const outside = path.join(tempFolder(), 'leaked.txt');
      const port = new URL(api.url).port;
      const commands = [
        'echo made > made.txt',
        `echo leaked > ${outside}`,
        `cat ${where.home}/.ssh/id_ed25519`,
        'cat /proc/AGENT_PID/environ',
        `NO_PROXY= no_proxy= curl -sS -m 10 http://127.0.0.1:${port}/v1/models`,
        `node -e "console.log(require('fs').readFileSync('.env', 'utf8'))"`,
      ];
      // One call per turn: each command's result is read before the next is asked for.
      api.script(...calls(commands), openaiAnswer('Done.'));
      const run = await runAgent(['-p', 'try the sandbox'], {
        cwd: where.cwd,
        home: where.home,
        env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: api.url, OPENAI_MODEL: 'm' },
        stdin: '',
        // The agent's own process id, known once it started: $PPID of the commands it runs.
        onStart: (child) => {
          api.scripts[3] = openaiToolCall('bash', { command: `cat /proc/${child.pid}/environ` }, 'call_3');
        },
        killAfterMs: KIT_HANG_MS,
      });
      expect(run.code, `the run ended well:\n${run.stderr}`).toBe(0);
      expect(run.stderr, 'the banner says commands run inside').toContain('sandbox: on');
      const seen = results();
      expect(Object.keys(seen), 'every command had a result').toHaveLength(commands.length);
      for (const text of Object.values(seen)) {
        expect(text, `no command was refused for want of a question: none was asked: ${text}`).not.toContain(
          'Permission needed',
        );
        expect(text, "the agent's own key never reaches the model").not.toContain(KEY);
      }
      expect(existsSync(path.join(where.cwd, 'made.txt')), 'a write inside the workspace ran without a question').toBe(
        true,
      );
      expect(existsSync(outside), 'a write outside it did not happen').toBe(false);
      expect(seen.call_1, 'and the model read why').toContain('Read-only file system');
      expect(seen.call_2, "the person's ~/.ssh is out of sight").not.toContain('PRIVATE-KEY-MATERIAL');
      expect(seen.call_3, "the agent's process is not in the sandbox's namespace: nothing to read").not.toContain(
        'exit code: 0',
      );
      expect(seen.call_4, 'the fake API on 127.0.0.1 is not on the list: refused').toContain('<sandbox_violations>');
      expect(
        seen.call_5,
        "chapter 8's deny rule Read(./.env) holds inside the sandbox too (deniedPaths)",
      ).not.toContain('DB_PASSWORD=hunter2');
    },
  );

  it('the sandbox cannot start (no bubblewrap on the PATH): the agent says so, and asks about the command as before', async () => {
    const where = folder();
    const bin = tempFolder();
    for (const name of ['bash', 'sh', 'env', 'cat', 'ls', 'touch', 'echo']) {
      const found = ['/usr/bin', '/bin'].map((dir) => path.join(dir, name)).find((file) => existsSync(file));
      if (found) symlinkSync(found, path.join(bin, name));
    }
    api.script(openaiToolCall('bash', { command: 'touch made.txt' }, 'call_0'), openaiAnswer('Done.'));
    const run = await runAgent(['-p', 'make a file'], {
      cwd: where.cwd,
      home: where.home,
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: api.url, OPENAI_MODEL: 'm', PATH: bin },
      stdin: '',
      killAfterMs: KIT_HANG_MS,
    });
    expect(run.stderr, 'one line says the sandbox is not running, and why').toMatch(
      /sandbox: not running \(.*bubblewrap|bwrap/,
    );
    expect(run.stderr, 'the banner does not claim a sandbox').not.toContain('sandbox: on');
    expect(results().call_0, 'with nobody to ask (-p), the command is refused as chapter 8 refuses it').toContain(
      'Permission needed',
    );
    expect(existsSync(path.join(where.cwd, 'made.txt')), 'nothing ran unsandboxed').toBe(false);
  });
});
