/** Helpers for the chapter 12 tests: a temp home, a clock, a session store, and histories with tool rounds. */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { assistantText, assistantToolCalls, toolResult, userMessage, type Message } from 'kit/messages';
import { SessionStore, type StoreOptions } from 'kit/session/store';

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder standing for $HOME, and a project folder (a git repository) beside it. */
export function tempHome(): { home: string; project: string; base: string } {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'kit-ch12-')));
  made.push(base);
  const home = path.join(base, 'home');
  const project = path.join(base, 'work', 'app');
  mkdirSync(home, { recursive: true });
  mkdirSync(path.join(project, '.git'), { recursive: true });
  return { home, project, base };
}

/** A clock that starts at 2026-01-01T00:00:00Z and moves one second each time it is read. */
export function testClock(start = '2026-01-01T00:00:00.000Z'): () => Date {
  let t = Date.parse(start);
  return () => new Date((t += 1000) - 1000);
}

/** A store in a temp home, with a fixed clock and ids s1, s2, … */
export function testStore(options: Partial<StoreOptions> = {}) {
  const { home, project, base } = tempHome();
  let n = 0;
  const store = new SessionStore({ home, cwd: project, now: testClock(), newId: () => `s${++n}`, ...options });
  return { store, home, project, base };
}

/** The records of a session file, parsed by the test itself (not by the learner's parser). */
export function fileRecords(file: string): any[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

/** One line per record: `session s1`, `message user`, `message assistant`, `usage`, `status idle end_turn`. */
export function recordShape(records: readonly any[]): string[] {
  return records.map((r) => {
    if (r.type === 'message') return `message ${r.message.role}`;
    if (r.type === 'status') return `status ${r.status}${r.reason ? ` ${r.reason}` : ''}`;
    if (r.type === 'session') return `session ${r.id}`;
    if (r.type === 'compaction') return `compaction ${r.from}+${r.count}`;
    return r.type;
  });
}

/** A history of `rounds` tool rounds (each a turn with two calls and their two results) and a final answer. */
export function longHistory(rounds: number, size = 200): Message[] {
  const history: Message[] = [userMessage('Fix the failing tests in src/.')];
  for (let i = 1; i <= rounds; i++) {
    const a = { id: `r${i}a`, name: 'read', arguments: { path: `src/file${i}.ts` } };
    const b = { id: `r${i}b`, name: 'grep', arguments: { pattern: `thing${i}` } };
    history.push(assistantToolCalls([a, b], `Round ${i}.`));
    history.push(toolResult(a, `content of file${i} `.repeat(size / 20)));
    history.push(toolResult(b, `match ${i}`));
  }
  history.push(assistantText('All fixed.'));
  return history;
}
