/**
 * The vitest configuration verify runs, read from KIT_VERIFY_PLAN: a project for the solution and one for the
 * starter, and one project for every unlock and known-wrong workspace together. Such a workspace holds its own copy
 * of the tests it runs beside its source (ws/<name>/tests, ws/<name>/src), and `kit` resolves to the src of the
 * workspace the importing file lies in, so one project (one set of warm workers, one Vite server) runs them all,
 * each test against its own workspace's code.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig, type Plugin } from 'vitest/config';
import { regionTrace } from '../kit/trace-plugin.js';
import { TEST_TIMEOUT_MS } from '../../tests/helpers/limits.js';

interface PlannedProject {
  name: string;
  src: string;
  include: string[];
  /** Set for the project of the known-wrong workspaces: its root (WORK/ws); `include` is relative to it. */
  workspaces?: string;
}

const root = path.resolve(import.meta.dirname, '../..');
const plan = JSON.parse(readFileSync(process.env.KIT_VERIFY_PLAN!, 'utf8')) as { projects: PlannedProject[] };

export default defineConfig({
  test: {
    reporters: [path.join(root, 'scripts/authors/lib/verify-reporter.ts')],
    // Much of a graded run is waiting (processes, timeouts, fake servers), not computing: more workers than cores
    // keep the CPU busy while others wait. KIT_VERIFY_WORKERS overrides.
    maxWorkers: Number(process.env.KIT_VERIFY_WORKERS ?? 4),
    projects: plan.projects.map((project) => ({
      root: project.workspaces ?? root,
      ...(project.workspaces
        ? { plugins: [kitOfWorkspace(project.workspaces, project.src)] }
        : {
            // The region trace: which regions each test of the solution reached (verify.ts narrows the known-wrong
            // workspaces' runs to the tests that reached the region they change).
            plugins: [regionTrace()],
            resolve: {
              alias: [
                { find: /^kit$/, replacement: path.join(project.src, 'index.ts') },
                { find: /^kit\/(.*)$/, replacement: `${project.src}/$1` },
              ],
            },
          }),
      test: {
        name: project.name,
        include: project.include,
        setupFiles: [
          path.join(root, 'tests/setup.ts'),
          ...(project.workspaces && process.env.KIT_VERIFY_ALLOW
            ? [path.join(root, 'scripts/authors/lib/verify-allow.ts')]
            : []),
        ],
        // As in vitest.config.ts: a last resort above the tests' own hang limits (tests/helpers/limits.ts).
        testTimeout: TEST_TIMEOUT_MS,
        hookTimeout: TEST_TIMEOUT_MS,
        pool: 'threads' as const,
        // Workers keep their module cache between the files of one project (never across projects): half the time.
        isolate: false,
      },
    })),
  },
});

/** `kit` and `kit/<file>` from a file under <workspaces>/<name>/ resolve into <workspaces>/<name>/src; from anywhere
 *  else (tests/setup.ts) into `fallback`. */
function kitOfWorkspace(workspaces: string, fallback: string): Plugin {
  return {
    name: 'kit-of-workspace',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source !== 'kit' && !source.startsWith('kit/')) return null;
      const inside = importer ? path.relative(workspaces, importer.split('?')[0]!) : '..';
      const name = inside.startsWith('..') || path.isAbsolute(inside) ? undefined : inside.split(path.sep)[0];
      const src = name ? path.join(workspaces, name, 'src') : fallback;
      return this.resolve(source === 'kit' ? path.join(src, 'index.ts') : path.join(src, source.slice(4)), importer, {
        skipSelf: true,
      });
    },
  };
}
