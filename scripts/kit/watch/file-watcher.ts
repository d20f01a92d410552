/** How npm run watch sees the learner's saves: fs.watch where it works, polling where it does not (or with --poll). */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

/**
 * Calls `onChange` with the changed .ts files under `dir` (or [] when unknown): fs.watch, or polling.
 *
 * fs.watch's own recursive mode is used only where the system provides it (macOS, Windows). Elsewhere each folder is
 * watched on its own: Node 20's recursive mode on Linux watches each file, and loses a file for good once an editor
 * saves it by renaming a new copy over it (vim, JetBrains' safe write), so later saves of it went unseen. A folder's
 * own watch sees those renames, and a folder added later is watched as it appears.
 */
export function watchTree(
  dir: string,
  onChange: (files: string[]) => void,
  options: { poll: boolean; interval: number },
): { close(): void; mode: 'events' | 'polling' } {
  if (!options.poll) {
    try {
      let fallback: ReturnType<typeof watchTree> | undefined;
      const watchers = new Map<string, FSWatcher>();
      const closeAll = () => {
        for (const watcher of watchers.values()) watcher.close();
        watchers.clear();
      };
      const failed = () => {
        closeAll();
        fallback ??= watchTree(dir, onChange, { ...options, poll: true });
      };
      const recursive = process.platform === 'darwin' || process.platform === 'win32';
      const watchFolder = (folder: string) => {
        const watcher = watch(folder, { recursive }, (event, file) => {
          if (!file) onChange([]);
          else if (String(file).endsWith('.ts')) onChange([path.join(folder, String(file))]);
          // A folder added or removed: watch the folders there are now.
          if (!recursive && event === 'rename') syncFolders();
        });
        watcher.on('error', () => {
          // A watched folder that was removed: forget it; anything else, fall back to polling.
          if (folder !== dir && !isFolder(folder)) {
            watcher.close();
            watchers.delete(folder);
          } else failed();
        });
        watchers.set(folder, watcher);
      };
      const syncFolders = () => {
        if (fallback) return;
        const now = new Set(folders(dir));
        for (const [folder, watcher] of watchers)
          if (!now.has(folder)) {
            watcher.close();
            watchers.delete(folder);
          }
        for (const folder of now)
          if (!watchers.has(folder))
            try {
              watchFolder(folder);
            } catch (error) {
              // A folder removed since it was listed: the next rename event lists the folders again.
              if (folder === dir) throw error;
            }
      };
      if (recursive) watchFolder(dir);
      else syncFolders();
      return { close: () => (closeAll(), fallback?.close()), mode: 'events' };
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

const isFolder = (file: string) => {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
};

/** `dir` and every folder under it, as far as they can be read. */
function folders(dir: string): string[] {
  const out = [dir];
  const walk = (sub: string) => {
    for (const entry of readdirSync(sub, { withFileTypes: true }))
      if (entry.isDirectory()) {
        out.push(path.join(sub, entry.name));
        walk(path.join(sub, entry.name));
      }
  };
  try {
    walk(dir);
  } catch {
    // a folder vanished mid-walk: what was found so far
  }
  return out;
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
