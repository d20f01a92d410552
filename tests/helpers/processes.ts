/** Helpers for tests that start real processes: find them by their command line, and kill what a test left. */
import { readdirSync, readFileSync } from 'node:fs';

/** The pids of running processes whose command line contains `text` (Linux: read from /proc). */
export function processesRunning(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Kills, by pid, what a test started and a wrong implementation left running. */
export function killLeftOver(text: string): void {
  for (const pid of processesRunning(text)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
