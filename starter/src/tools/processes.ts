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

// The clock of the operating system's waits below (a process in the middle of exec, pipes still held open), taken
// when this file loads: a test that fakes the clock to move a command's own timeout (chapter 4's tests do) must not
// stop these waits too, or a busy machine, where some process is always in the middle of exec, would hang them.
const { setTimeout, clearTimeout } = globalThis;

/** The variable that marks every process one command started. */
export const RUN_MARKER = 'KIT_COMMAND_RUN';

/** Names of variables a command never sees: the agent's own provider settings, API keys included. */
export const HIDDEN_VARIABLES = /^(ANTHROPIC|OPENAI)_/;

/** A copy of `env` without the provider settings, with RUN_MARKER set to `runId`. */
export function commandEnvironment(runId: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const kept = Object.entries(env).filter(([name]) => !HIDDEN_VARIABLES.test(name));
  return { ...Object.fromEntries(kept), [RUN_MARKER]: runId };
}

/** Reads a file under /proc, or undefined if it cannot (the process has ended, or belongs to another user). */
function procFile(file: string, encoding: BufferEncoding = 'utf8'): string | undefined {
  try {
    return readFileSync(file, encoding);
  } catch {
    return undefined;
  }
}

/**
 * The pid and command line of each running process whose environment carries RUN_MARKER=runId (Linux only), and
 * how many processes could not be judged: a process in the middle of exec shows an empty environment for a moment,
 * so one that reads as empty (and is neither a kernel thread, nor a zombie, nor init) may be one of ours.
 * Synchronous on purpose: files under /proc are made by the kernel on the spot, never read from a disk, and a
 * few hundred small reads take milliseconds, less than queueing them on libuv's thread pool.
 */
function processesOfRun(runId: string): { found: Array<{ pid: number; command: string }>; unsure: number } {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return { found: [], unsure: 0 };
  }
  const mark = `${RUN_MARKER}=${runId}`;
  const found: Array<{ pid: number; command: string }> = [];
  let unsure = 0;
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    const environ = procFile(`/proc/${pid}/environ`, 'latin1');
    if (environ === undefined) continue;
    if (environ === '') {
      if (userProcess(pid)) unsure++;
      continue;
    }
    if (!environ.split('\0').includes(mark)) continue;
    const command = (procFile(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ').trim();
    found.push({ pid: Number(pid), command: command.length > 80 ? `${command.slice(0, 80)}…` : command });
  }
  return { found, unsure };
}

/**
 * Whether a process is alive and neither a kernel thread nor init: its state is not Z (zombie), and its parent is
 * not 0 (init and kthreadd) or 2 (kthreadd's threads).
 */
function userProcess(pid: string): boolean {
  const stat = procFile(`/proc/${pid}/stat`);
  // `pid (command) state ppid ...`; the command may hold spaces and parentheses, so read after the last ')'.
  const [state, ppid] = stat?.slice(stat.lastIndexOf(')') + 2).split(' ') ?? [];
  return state !== undefined && state !== 'Z' && ppid !== '0' && ppid !== '2';
}

/**
 * Kills (SIGKILL) every process still running that the command with this run id started, wherever it moved, and
 * returns each as `<pid> <command line>`. Looks again after killing, in case one forked meanwhile, and again after a
 * few milliseconds while some process could not be judged (see processesOfRun). On systems without /proc it finds
 * nothing and returns [].
 */
export async function stopLeftovers(runId: string): Promise<string[]> {
  const stopped = new Map<number, string>();
  for (let round = 0; round < 8; round++) {
    const { found: all, unsure } = processesOfRun(runId);
    const found = all.filter(({ pid }) => !stopped.has(pid));
    if (found.length === 0) {
      if (unsure === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
      continue;
    }
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

/** The step of settlesWithin's wait. */
const WAIT_STEP_MS = 10;

/**
 * True if `promise` settles within `ms`, false if it is still pending then. Never rejects; leaves no timer. The wait
 * is counted in turns of the event loop as well as in time (steps of WAIT_STEP_MS): on a busy machine this process
 * can be kept off the CPU for longer than the whole wait, and one long timer would then fire before the output
 * already waiting in a pipe had been read, where each short step gives it a turn to be read first.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = promise.then(
    () => true,
    () => true,
  );
  let waited = 0;
  do {
    const step = Math.min(WAIT_STEP_MS, ms - waited);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), step)));
    const done = await Promise.race([settled, late]);
    clearTimeout(timer);
    if (done) return true;
    waited += step;
  } while (waited < ms);
  return false;
}
