/**
 * Chapter 4, given: the parts of running a command that are about the operating system rather than about tools.
 *
 * The bash tool kills a command's whole process group, but a process can leave the group: `setsid`, `nohup … &`
 * with `disown`, a daemon that forks twice. Such a process keeps running after the tool has answered, and if it
 * still holds the command's output pipes the tool would wait for them forever. Two helpers close that gap:
 *
 * - commandEnvironment() gives each command an environment with a marker of its own (KIT_COMMAND_RUN=<id>). Every
 *   process the command starts inherits it, whatever group or session it moves to, so stopLeftovers() can find
 *   them afterwards (on Linux, by reading /proc/<pid>/environ) and stop them. A process that clears its whole
 *   environment escapes this; the bash tool's bounded wait covers that case.
 * - The same environment leaves out the agent's own provider settings (ANTHROPIC_*, OPENAI_*): a command the model
 *   writes could otherwise print the API key with `env` and send it anywhere.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The variable that marks every process one command started. */
export const RUN_MARKER = 'KIT_COMMAND_RUN';

/** Names of variables a command never sees: the agent's own provider settings, API keys included. */
export const HIDDEN_VARIABLES = /^(ANTHROPIC|OPENAI)_/;

/** A copy of `env` without the provider settings, with RUN_MARKER set to `runId`. */
export function commandEnvironment(runId: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const kept = Object.entries(env).filter(([name]) => !HIDDEN_VARIABLES.test(name));
  return { ...Object.fromEntries(kept), [RUN_MARKER]: runId };
}

/** Reads a file under /proc, or '' if it cannot (the process has ended, or belongs to another user). */
function procFile(file: string, encoding: BufferEncoding = 'utf8'): string {
  try {
    return readFileSync(file, encoding);
  } catch {
    return '';
  }
}

/**
 * The pid and command line of each running process whose environment carries RUN_MARKER=runId (Linux only).
 * Synchronous on purpose: files under /proc are made by the kernel on the spot, never read from a disk, and a
 * few hundred small reads take milliseconds, less than queueing them on libuv's thread pool.
 */
function processesOfRun(runId: string): Array<{ pid: number; command: string }> {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const mark = `${RUN_MARKER}=${runId}`;
  const found: Array<{ pid: number; command: string }> = [];
  for (const pid of entries) {
    if (!/^\d+$/.test(pid) || !procFile(`/proc/${pid}/environ`, 'latin1').split('\0').includes(mark)) continue;
    const command = procFile(`/proc/${pid}/cmdline`).split('\0').join(' ').trim();
    found.push({ pid: Number(pid), command: command.length > 80 ? `${command.slice(0, 80)}…` : command });
  }
  return found;
}

/**
 * Kills (SIGKILL) every process still running that the command with this run id started, wherever it moved, and
 * returns each as `<pid> <command line>`. Looks again after killing, in case one forked meanwhile. On systems
 * without /proc it finds nothing and returns [].
 */
export async function stopLeftovers(runId: string): Promise<string[]> {
  const stopped = new Map<number, string>();
  for (let round = 0; round < 3; round++) {
    const found = processesOfRun(runId).filter(({ pid }) => !stopped.has(pid));
    if (found.length === 0) break;
    for (const { pid, command } of found) {
      try {
        process.kill(pid, 'SIGKILL');
        stopped.set(pid, `${pid} ${command}`);
      } catch {
        // It ended on its own meanwhile.
      }
    }
  }
  return [...stopped.values()];
}

/** True if `promise` settles within `ms`, false if it is still pending then. Never rejects; leaves no timer. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
