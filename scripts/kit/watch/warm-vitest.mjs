/**
 * The warm vitest of `npm run watch`, in a child process of its own (plain Node, no TypeScript loader in front of
 * vitest or its workers: starting vitest under tsx's loader took 2.5 s instead of 0.9 s). runners.ts forks it and talks
 * over IPC:
 *
 *   → { type: 'run', id, filters }        ← { type: 'result', id, report, duration, cancelled } | { type: 'error', id, message }
 *   → { type: 'invalidate', files }
 *   → { type: 'cancel', id }              (stops run `id` if it is the one under way; a run not started yet is dropped)
 *   → { type: 'reset' }                   (every transformed module forgotten: the next run starts from a clean slate)
 *   → { type: 'close' }                    (the process exits)
 *   ← { type: 'ready' } once vitest is up, or { type: 'error', message } if it cannot start.
 *
 * `report` is the one reporter.ts writes (raw-report.js).
 *
 * A run tests the files as they are on disk when it starts, whatever the file watcher saw: every file vite has read
 * is remembered with a digest of the text it read (the `kit-loaded` plugin below), and before each run the ones whose
 * text on disk differs are invalidated. The watcher's events only say when to run; a save it missed (Node 20's
 * recursive fs.watch on Linux loses a file an editor saved by renaming a new copy over it) can no longer leave old code
 * in this vitest, which no key but quitting used to clear.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { rawReport } from '../raw-report.js';

const root = process.cwd();
const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });
const digest = (text) => createHash('sha1').update(text).digest('hex');

/** Each file vite has read (its module id, which is its path), with the digest of the text it read. */
const loaded = new Map();
/** Reads the project's own files itself (not node_modules: they do not change under a session), remembering each. */
const loadedPlugin = {
  name: 'kit-loaded',
  enforce: 'pre',
  load(id) {
    if (id.includes('?') || id.includes('\0') || id.includes('/node_modules/') || !path.isAbsolute(id)) return null;
    if (!/\.[cm]?[jt]s$/.test(id)) return null;
    let code;
    try {
      code = readFileSync(id, 'utf8');
    } catch {
      return null; // vite's own load reports a file that cannot be read
    }
    loaded.set(id, digest(code));
    return code;
  },
};

/** Invalidates every file whose text on disk is not the text vite read; returns how many. */
function forgetChanged() {
  let changed = 0;
  for (const [file, read] of loaded) {
    let now;
    try {
      now = digest(readFileSync(file, 'utf8'));
    } catch {
      now = undefined; // deleted or unreadable: its importers must load again
    }
    if (now === read) continue;
    loaded.delete(file);
    vitest.invalidateFile(file);
    changed++;
  }
  return changed;
}

/** Every module of every environment forgotten (`r`). */
function forgetAll() {
  loaded.clear();
  for (const project of vitest.projects)
    for (const environment of Object.values(project.vite.environments)) environment.moduleGraph.invalidateAll();
}

let vitest;
try {
  const { createVitest } = await import('vitest/node');
  vitest = await createVitest(
    'test',
    {
      root,
      config: path.join(root, 'vitest.config.ts'),
      watch: false,
      reporters: [{}],
      includeTaskLocation: true,
      passWithNoTests: true,
    },
    { plugins: [loadedPlugin] },
    { stdout: quiet(), stderr: quiet() },
  );
  process.send({ type: 'ready' });
} catch (error) {
  process.send({ type: 'error', message: String(error?.stack ?? error) });
  process.exit(1);
}

let queue = Promise.resolve();
/** The run under way, and the ids cancelled before their turn came. */
let current;
const dropped = new Set();
process.on('message', (message) => {
  if (message.type === 'invalidate') {
    for (const file of message.files) vitest.invalidateFile(file);
  } else if (message.type === 'reset') {
    forgetAll();
  } else if (message.type === 'cancel') {
    if (current?.id === message.id) {
      current.cancelled = true;
      void vitest.cancelCurrentRun('keyboard-input').catch(() => undefined);
    } else dropped.add(message.id);
  } else if (message.type === 'close') {
    void Promise.race([vitest.close(), new Promise((r) => setTimeout(r, 1000))]).finally(() => process.exit(0));
  } else if (message.type === 'run') {
    queue = queue.then(async () => {
      const started = Date.now();
      const empty = { modules: [], unhandledErrors: [] };
      if (dropped.delete(message.id))
        return process.send({ type: 'result', id: message.id, report: empty, duration: 0, cancelled: true });
      current = { id: message.id, cancelled: false };
      try {
        forgetChanged();
        const specs = await vitest.globTestSpecifications(message.filters);
        if (specs.length === 0)
          return process.send({ type: 'result', id: message.id, report: empty, duration: 0, cancelled: false });
        const { testModules, unhandledErrors } = await vitest.runTestSpecifications(specs);
        // vitest keeps the modules of earlier runs in its state: report only the ones this run asked for.
        const asked = new Set(specs.map((spec) => spec.moduleId));
        const report = rawReport(
          testModules.filter((m) => asked.has(m.moduleId)),
          unhandledErrors,
        );
        process.send({
          type: 'result',
          id: message.id,
          report: JSON.parse(JSON.stringify(report)),
          duration: Date.now() - started,
          // A cancelled run's files that had not run keep an earlier run's results in vitest's state: never shown.
          cancelled: current.cancelled,
        });
      } catch (error) {
        process.send({ type: 'error', id: message.id, message: String(error?.message ?? error) });
      } finally {
        current = undefined;
      }
    });
  }
});
process.on('disconnect', () => process.exit(0));
