/**
 * The warm vitest of `npm run watch`, in a child process of its own (plain Node, no TypeScript loader in front of
 * vitest or its workers: starting vitest under tsx's loader took 2.5 s instead of 0.9 s). runners.ts forks it and talks
 * over IPC:
 *
 *   → { type: 'run', id, filters }        ← { type: 'result', id, report, duration } | { type: 'error', id, message }
 *   → { type: 'invalidate', files }
 *   → { type: 'cancel' }
 *   → { type: 'close' }                    (the process exits)
 *   ← { type: 'ready' } once vitest is up, or { type: 'error', message } if it cannot start.
 *
 * `report` is the one reporter.ts writes (raw-report.js).
 */
import { Writable } from 'node:stream';
import path from 'node:path';
import { rawReport } from '../raw-report.js';

const root = process.cwd();
const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });

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
    {},
    { stdout: quiet(), stderr: quiet() },
  );
  process.send({ type: 'ready' });
} catch (error) {
  process.send({ type: 'error', message: String(error?.stack ?? error) });
  process.exit(1);
}

let queue = Promise.resolve();
process.on('message', (message) => {
  if (message.type === 'invalidate') {
    for (const file of message.files) vitest.invalidateFile(file);
  } else if (message.type === 'cancel') {
    void vitest.cancelCurrentRun('keyboard-input').catch(() => undefined);
  } else if (message.type === 'close') {
    void Promise.race([vitest.close(), new Promise((r) => setTimeout(r, 1000))]).finally(() => process.exit(0));
  } else if (message.type === 'run') {
    queue = queue.then(async () => {
      const started = Date.now();
      try {
        const specs = await vitest.globTestSpecifications(message.filters);
        if (specs.length === 0)
          return process.send({
            type: 'result',
            id: message.id,
            report: { modules: [], unhandledErrors: [] },
            duration: 0,
          });
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
        });
      } catch (error) {
        process.send({ type: 'error', id: message.id, message: String(error?.message ?? error) });
      }
    });
  }
});
process.on('disconnect', () => process.exit(0));
