/**
 * Chapter 16, given: the operating system's part, Anthropic's sandbox runtime (`@anthropic-ai/sandbox-runtime`).
 *
 * On Linux the runtime runs a command through bubblewrap: in namespaces of its own (its own process ids, so the
 * agent's processes and their environments are out of sight; no network but a socket to the runtime's proxy), with the
 * filesystem mounted read-only but for the folders it may write and with the denied folders hidden. socat carries the
 * proxy's socket in; the proxy lets through only the hosts on the list. On macOS the same policy becomes a Seatbelt
 * profile for sandbox-exec. None of that is the chapter's lesson, so it is given here behind a small interface, which
 * the tests replace with a fake where they test the chapter's own code.
 *
 * What a command that runs without a question must never write is what runs, or what the agent is told, the next
 * time: chapter 8's protected paths (`.claude` and its settings, `.git/hooks` and `.git/config`, `.vscode`,
 * `.mcp.json`, `CLAUDE.md`, `.bashrc`, ...). runtimeConfig denies writing them in every folder the policy lets a
 * command write, whatever the policy says. (The runtime has such a list of its own, but it protects them under the
 * agent process's working directory, which is not always the workspace.)
 */

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import path from 'node:path';
import { PROTECTED_FILES, PROTECTED_FOLDERS } from '../permissions/protected-paths.js';
import type { SandboxPolicy } from './policy.js';

/** The paths under a writable folder that stay read-only: chapter 8's protected paths, `.git` but its objects. */
export function protectedWrites(folder: string): string[] {
  const folders = [...PROTECTED_FOLDERS].flatMap((name) => (name === '.git' ? ['.git/hooks', '.git/config'] : [name]));
  return [...folders, ...PROTECTED_FILES].map((name) => path.join(folder, name));
}

/** What the agent needs of a sandbox runtime. */
export interface SandboxRuntime {
  /** Why the sandbox cannot start on this machine (an unsupported platform, a missing program); empty when it can. */
  missing(): Promise<string[]>;
  /** Starts the runtime (its proxies) for `policy`. Rejects when it cannot. */
  start(policy: SandboxPolicy): Promise<void>;
  /** The shell command that runs `command` inside the sandbox; `id` pairs the violations it causes with it. */
  wrap(command: string, id: string, signal?: AbortSignal): Promise<string>;
  /** `output` with a `<sandbox_violations>` block appended for what the runtime refused while `id` ran, if anything. */
  violations(id: string, output: string): string;
  /** Cleans what the wrapped command `id` left behind (its network list, bubblewrap's mount points); after each one. */
  afterCommand(id: string): void;
  /** Stops the runtime's proxies (once every runtime of the process that started has stopped). */
  stop(): Promise<void>;
}

/** The runtime's configuration object for a policy (given: the shapes are the runtime's, the policy is chapter 16's). */
export function runtimeConfig(policy: SandboxPolicy): SandboxRuntimeConfig {
  return {
    network: {
      allowedDomains: policy.network.allowedDomains,
      deniedDomains: [],
      ...(policy.network.allowUnixSockets.length > 0 ? { allowUnixSockets: policy.network.allowUnixSockets } : {}),
      allowLocalBinding: policy.network.allowLocalBinding,
    },
    filesystem: {
      allowWrite: policy.filesystem.allowWrite,
      denyWrite: [...policy.filesystem.denyWrite, ...policy.filesystem.allowWrite.flatMap(protectedWrites)],
      denyRead: policy.filesystem.denyRead,
      allowRead: policy.filesystem.allowRead,
    },
    enableWeakerNestedSandbox: policy.enableWeakerNestedSandbox,
    // Named, so the runtime need not ask `which` (with its 1 s limit) for them on every start.
    ...(programOnPath('bwrap') ? { bwrapPath: programOnPath('bwrap') } : {}),
    ...(programOnPath('socat') ? { socatPath: programOnPath('socat') } : {}),
  } as SandboxRuntimeConfig;
}

/**
 * Where `name` is on the PATH, found by looking at the folders (no program is started), or undefined. The runtime
 * finds its programs with `which` under a 1 s limit, which a busy machine can miss with the program right there:
 * the kit names them itself where it can, and tries again where it cannot (RUNTIME_ATTEMPTS).
 */
export function programOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

/**
 * How often a step of the runtime that failed only because its `which` ran out of time is tried. Four were too few
 * for a fresh clone's verify at load 15 on 2 cores: ripgrep was "not found" four times in a row (2026-12-04).
 */
const RUNTIME_ATTEMPTS = 8;

/** Runs `step` again while it fails with a reason `whichMissed` says may be the runtime's `which` running out of time. */
async function retryWhich<T>(step: () => Promise<T>, whichMissed: (error: unknown) => boolean): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (attempt >= RUNTIME_ATTEMPTS || !whichMissed(error)) throw error;
    }
  }
}

/** A new id for one wrapped command: 128 random bits, as the runtime asks of an id a network list is kept under. */
export function newCommandId(): string {
  return randomBytes(16).toString('base64url');
}

/** How many times the runtime's start is tried when its bridges were too slow to make their sockets, or a `which`. */
const BRIDGE_ATTEMPTS = 8;

/** How many started runtimes of this process share Anthropic's SandboxManager (a single object per process). */
let running = 0;

/**
 * The runtime of this machine: Anthropic's SandboxManager, loaded when first used, so that a run without a sandbox
 * never loads it. The manager is one object per process, shared by every runtime started in it (an editor's
 * sessions, the agent built again after /clear): it is initialized by the first start and reset by the last stop,
 * and each command is wrapped with its own policy's folders (the wrap's per-command configuration) and its own
 * policy's hosts (a network list kept under the command's id), so that two workspaces never share a boundary. The
 * Unix-socket and local-binding switches are the first policy's (the runtime has no per-command form of them).
 */
export function osSandbox(): SandboxRuntime {
  let manager: typeof import('@anthropic-ai/sandbox-runtime').SandboxManager | undefined;
  let policy: SandboxPolicy | undefined;
  return {
    missing() {
      return sandboxMissing();
    },
    async start(given) {
      if (policy) throw new Error('this sandbox runtime is already started');
      manager ??= (await import('@anthropic-ai/sandbox-runtime')).SandboxManager;
      if (running === 0) {
        const base = runtimeConfig(given);
        // The runtime gives its socat bridges about 0.6 s to make their sockets; on a busy machine that can pass
        // with nothing wrong, so that one failure is tried again a few times before the sandbox counts as unavailable.
        for (let attempt = 1; ; attempt++) {
          try {
            await manager.initialize({ ...base, network: { ...base.network, allowedDomains: [] } });
            break;
          } catch (error) {
            await manager.reset();
            // A `which` that ran out of time (a program "not installed" or "not found" that is on the PATH: bubblewrap,
            // socat, ripgrep, the shell) is tried again too.
            const slow = /bridge sockets|not installed|not found/.test(String(error));
            if (attempt >= BRIDGE_ATTEMPTS || !slow) throw error;
          }
        }
      }
      running++;
      policy = given;
    },
    async wrap(command, id, signal) {
      if (!manager || !policy) throw new Error('the sandbox runtime is not started');
      manager.registerCommandNetworkLists(id, { allowedDomains: policy.network.allowedDomains });
      const { filesystem } = runtimeConfig(policy);
      const sandbox = manager;
      // The runtime finds the shell with `which` for every command; on a busy machine that can miss.
      return retryWhich(
        () => sandbox.wrapWithSandbox(command, undefined, { filesystem }, signal, { commandId: id }),
        (error) => /not found in PATH/.test(String(error)) && programOnPath('bash') !== undefined,
      );
    },
    violations(id, output) {
      return manager ? manager.annotateStderrWithSandboxFailures(id, output) : output;
    },
    afterCommand(id) {
      manager?.unregisterCommandNetworkLists(id);
      manager?.cleanupAfterCommand();
    },
    async stop() {
      if (!policy) return;
      policy = undefined;
      running--;
      if (running === 0) await manager?.reset();
    },
  };
}

/**
 * Why the runtime cannot start on this machine, as the runtime's own checks say (an unsupported platform, bubblewrap,
 * socat or ripgrep missing); empty when it can. `npm run doctor` and the tests ask this before anything starts.
 */
export async function sandboxMissing(): Promise<string[]> {
  try {
    const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
    if (!SandboxManager.isSupportedPlatform()) return [`the sandbox does not support ${process.platform} here`];
    // The check finds bubblewrap, socat and ripgrep with `which` under a 1 s limit: a program it says is missing
    // while it is on the PATH is asked about again, a few times, before the sandbox counts as unavailable.
    const onPath = ['bwrap', 'socat', 'rg'].every((name) => programOnPath(name) !== undefined);
    let errors = SandboxManager.checkDependencies().errors;
    for (let attempt = 1; errors.length > 0 && onPath && attempt < RUNTIME_ATTEMPTS; attempt++)
      errors = SandboxManager.checkDependencies().errors;
    return errors.length > 0 || process.platform !== 'linux' ? errors : namespacesMissing();
  } catch (error) {
    return [`the sandbox runtime could not be loaded: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/**
 * Whether bubblewrap can make the namespaces the sandbox needs here (a container may forbid them while the programs
 * are installed): one tiny run of its own, with a new process-id and network namespace. The reason when it cannot.
 */
function namespacesMissing(): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', 'true'];
  const run = spawnSync('bwrap', args, { encoding: 'utf8', timeout: 30_000 });
  if (run.status === 0) return [];
  const why = (run.stderr || run.error?.message || `exit code ${run.status}`).trim().split('\n')[0];
  return [
    `bubblewrap cannot make its namespaces here (${why}); in a container, allow user namespaces or run it outside`,
  ];
}
