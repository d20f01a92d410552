/**
 * A real pseudo-terminal for the kit's tests: programs run in tmux panes of a private tmux server (its own socket in
 * a temp folder, never a person's server), with a fixed size and an environment the test gives in full. A test types
 * into a pane as a person does, reads the screen (`tmux capture-pane`) until what it waits for shows, and reads the
 * exit code of the program once it has ended (the pane's shell prints it; `remain-on-exit` keeps the screen).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { KIT_HANG_MS } from './helpers.js';

export const TMUX = '/usr/bin/tmux';

export interface PaneOptions {
  /** The folder the program starts in. */
  cwd: string;
  /** The program's whole environment (tmux adds TERM, TMUX and TMUX_PANE). */
  env: Record<string, string>;
  /** The pane's size (default 120 × 50). */
  columns?: number;
  rows?: number;
}

export interface WaitOptions {
  /** Milliseconds before the wait fails (default 10 s). */
  timeoutMs?: number;
}

/** One program in its own tmux session. */
export interface Pane {
  readonly name: string;
  /** Everything the pane has shown (scrollback included), wrapped lines joined, trailing blank lines dropped. */
  screen(): string;
  /** Types `text` literally, then Enter. */
  type(text: string): void;
  /** Presses keys by tmux's names: 'C-c', 'C-d', 'Enter'. */
  press(...keys: string[]): void;
  /**
   * Waits until the screen matches (a string it contains, a pattern, or a test of the whole screen) and returns the
   * screen; fails with `what`, what it waited for and the screen as it was.
   */
  waitFor(
    expected: string | RegExp | ((screen: string) => boolean),
    what: string,
    options?: WaitOptions,
  ): Promise<string>;
  /**
   * Waits until the prompt `> ` is the last line and at least `count` prompts have been shown (the first, then one
   * after each line typed at it), and returns the screen.
   */
  waitForPrompt(what: string, count?: number, options?: WaitOptions): Promise<string>;
  /** Waits until the program has ended (and all it wrote is on the screen) and returns its exit code. */
  exitCode(options?: WaitOptions): Promise<number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** What the pane's shell prints once the program has ended. */
const EXITED = /\n\[exited with (\d+)\]$/;

/**
 * A private tmux server for one test file: `start` runs a command in a new pane. The server (and every program still
 * running in it) is killed and its folder removed after the file's tests.
 */
export function tmuxServer() {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'kit-tmux-')));
  const socket = path.join(dir, 'socket');
  const config = path.join(dir, 'tmux.conf');
  // A pane whose program has ended stays, so its screen can still be read; the whole run stays in the scrollback.
  writeFileSync(
    config,
    'set-option -g remain-on-exit on\nset-option -g history-limit 20000\nset-option -g status off\n',
  );
  // The server's global environment is the one of the client that starts it: the bare minimum, nothing of ours.
  const tmuxEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' };
  const tmux = (...args: string[]) =>
    execFileSync(TMUX, ['-u', '-S', socket, '-f', config, ...args], {
      env: tmuxEnv,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  let count = 0;

  afterAll(() => {
    try {
      tmux('kill-server');
    } catch {
      // No server was started, or it has ended.
    }
    rmSync(dir, { recursive: true, force: true });
  });

  function start(command: readonly string[], options: PaneOptions): Pane {
    const name = `pane${++count}`;
    const env = Object.entries(options.env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
    const size = ['-x', String(options.columns ?? 120), '-y', String(options.rows ?? 50)];
    // The pane runs a shell that runs the program and then prints its exit code (tmux's own #{pane_dead_status}
    // cannot be relied on: its server sometimes leaves the ended program unreaped for many seconds).
    tmux(
      'new-session',
      '-d',
      '-s',
      name,
      ...size,
      '-c',
      options.cwd,
      ...env,
      '--',
      '/bin/sh',
      '-c',
      '"$@"; printf "\\n[exited with %s]\\n" "$?"',
      'sh',
      ...command,
    );
    const target = `=${name}:`;
    const screen = () =>
      tmux('capture-pane', '-p', '-J', '-S', '-', '-t', target)
        .replace(/\s+$/, '')
        // remain-on-exit's own line is tmux's, not the program's.
        .replace(/\n*Pane is dead.*$/, '');
    const pane: Pane = {
      name,
      screen,
      type(text) {
        tmux('send-keys', '-t', target, '-l', text);
        tmux('send-keys', '-t', target, 'Enter');
      },
      press(...keys) {
        tmux('send-keys', '-t', target, ...keys);
      },
      async waitFor(expected, what, { timeoutMs = KIT_HANG_MS } = {}) {
        const test =
          typeof expected === 'function'
            ? expected
            : typeof expected === 'string'
              ? (text: string) => text.includes(expected)
              : (text: string) => expected.test(text);
        const deadline = Date.now() + timeoutMs;
        let text = screen();
        while (!test(text)) {
          if (Date.now() > deadline) {
            const wanted =
              typeof expected === 'function'
                ? 'its condition'
                : typeof expected === 'string'
                  ? JSON.stringify(expected)
                  : String(expected);
            throw new Error(
              `${what}: expected ${wanted} within ${timeoutMs} ms in tmux pane ${name}, which shows:\n${'-'.repeat(60)}\n${text}\n${'-'.repeat(60)}`,
            );
          }
          await sleep(50);
          text = screen();
        }
        return text;
      },
      waitForPrompt(what, count = 1, options) {
        const prompts = (text: string) =>
          text.split('\n').filter((line) => line === '>' || line.startsWith('> ')).length;
        return pane.waitFor(
          (text) => text.split('\n').at(-1) === '>' && prompts(text) >= count,
          `${what} (the prompt "> " on the last line${count > 1 ? `, prompt number ${count}` : ''})`,
          options,
        );
      },
      async exitCode(options) {
        const screen = await pane.waitFor(EXITED, 'the program ends (the shell prints "[exited with N]")', options);
        return Number(EXITED.exec(screen)![1]);
      },
    };
    return pane;
  }

  return { start, socket };
}
