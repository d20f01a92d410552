/** The processes of claude-compare: a run with a time limit (its whole process group ended), the fake API, git. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';

/** A run that takes longer than this is a hang (a run takes a few seconds). */
export const RUN_TIMEOUT_MS = 60_000;

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs a program in its own process group, stdin closed; a run past `timeoutMs` is killed (the whole group). */
export function run(
  command: string,
  argv: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(command, argv, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, options.timeoutMs ?? RUN_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}${error.message}`, timedOut });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** Ends a process this script started, and its children (its process group), by its id. */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** A fake Anthropic API that makes `calls` in turn, logging every request to `log`. */
export async function startFake(fake: string, calls: unknown[], log: string): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [fake, log], {
    env: { ...process.env, FAKE_CALLS: JSON.stringify(calls), FAKE_LIFE_S: '150' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const port = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('the fake server printed no port')), 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split('\n')[0]!.trim();
      if (text.includes('\n') && /^\d+$/.test(line)) {
        clearTimeout(timer);
        resolve(line);
      }
    });
    child.on('exit', (code) => reject(new Error(`the fake server exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => killGroup(child) };
}

/** The environment of an agent's run: this one's without credentials or npm's variables, and the case's own. */
export function agentEnv(home: string, url: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^(ANTHROPIC_|OPENAI_|CLAUDE|npm_|INIT_CWD$|FAKE_)/i.test(name)) env[name] = value;
  return {
    ...env,
    HOME: home,
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    IS_SANDBOX: '1',
    NO_COLOR: '1',
    NO_UPDATE_NOTIFIER: '1',
    npm_config_update_notifier: 'false',
  };
}

export function git(cwd: string, ...argv: string[]): void {
  const done = spawnSync('git', ['-c', 'user.name=compare', '-c', 'user.email=compare@example.invalid', ...argv], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });
  if (done.status !== 0) throw new Error(`git ${argv.join(' ')} in ${cwd}: ${done.stderr}`);
}
