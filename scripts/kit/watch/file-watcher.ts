/** How npm run watch sees the learner's saves: fs.watch where it works, polling where it does not (or with --poll). */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

/** Calls `onChange` with the changed .ts files under `dir` (or [] when unknown): fs.watch, or polling. */
export function watchTree(
  dir: string,
  onChange: (files: string[]) => void,
  options: { poll: boolean; interval: number },
): { close(): void; mode: 'events' | 'polling' } {
  if (!options.poll) {
    try {
      const watcher: FSWatcher = watch(dir, { recursive: true }, (_event, file) => {
        if (!file) onChange([]);
        else if (String(file).endsWith('.ts')) onChange([path.join(dir, String(file))]);
      });
      let fallback: ReturnType<typeof watchTree> | undefined;
      watcher.on('error', () => {
        watcher.close();
        fallback ??= watchTree(dir, onChange, { ...options, poll: true });
      });
      return { close: () => (watcher.close(), fallback?.close()), mode: 'events' };
    } catch {
      // fall through to polling
    }
  }
  const snapshot = () => {
    const seen = new Map<string, string>();
    for (const file of tsFiles(dir)) {
      try {
        const s = statSync(file);
        seen.set(file, `${s.mtimeMs}:${s.size}`);
      } catch {
        // the file vanished mid-scan: the next tick sees the new state
      }
    }
    return seen;
  };
  let last = snapshot();
  const timer = setInterval(() => {
    const now = snapshot();
    const changed = [...new Set([...now.keys(), ...last.keys()])].filter((file) => now.get(file) !== last.get(file));
    last = now;
    if (changed.length) onChange(changed);
  }, options.interval);
  return { close: () => clearInterval(timer), mode: 'polling' };
}

/** Every .ts file under `dir`, as far as it can be read (a folder that vanishes mid-walk is left out). */
export function tsFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (sub: string) => {
    for (const entry of readdirSync(sub, { withFileTypes: true })) {
      const full = path.join(sub, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) out.push(full);
    }
  };
  try {
    walk(dir);
  } catch {
    // a folder vanished mid-walk: what was found so far
  }
  return out;
}
