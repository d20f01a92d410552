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

import { randomBytes } from 'node:crypto';
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
  } as SandboxRuntimeConfig;
}

/** A new id for one wrapped command: 128 random bits, as the runtime asks of an id a network list is kept under. */
export function newCommandId(): string {
  return randomBytes(16).toString('base64url');
}

/** How many times the runtime's start is tried when its bridges were too slow to make their sockets. */
const BRIDGE_ATTEMPTS = 5;

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
            if (attempt >= BRIDGE_ATTEMPTS || !/bridge sockets/.test(String(error))) throw error;
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
      return manager.wrapWithSandbox(command, undefined, { filesystem }, signal, { commandId: id });
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
    const { errors } = SandboxManager.checkDependencies();
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
  const { spawnSync } = process.getBuiltinModule('node:child_process') as typeof import('node:child_process');
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', 'true'];
  const run = spawnSync('bwrap', args, { encoding: 'utf8', timeout: 30_000 });
  if (run.status === 0) return [];
  const why = (run.stderr || run.error?.message || `exit code ${run.status}`).trim().split('\n')[0];
  return [
    `bubblewrap cannot make its namespaces here (${why}); in a container, allow user namespaces or run it outside`,
  ];
}
