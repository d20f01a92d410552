/** Temporary workspaces on disk for tests that touch files. Each is removed when its test file ends. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new directory holding `files` (path -> content), with a sibling `outside/secret.txt` beyond its root. */
export function tempWorkspace(files: Record<string, string> = {}): { root: string; outside: string } {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'kit-ws-')));
  made.push(base);
  const root = path.join(base, 'project');
  const outside = path.join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'top secret\n');
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
  return { root, outside };
}
