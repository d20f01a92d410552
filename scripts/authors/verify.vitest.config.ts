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
  /** Each workspace's own source files (relative to its src/); the others resolve to the solution's (`src`). */
  own?: Record<string, string[]>;
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
        ? { plugins: [kitOfWorkspace(project.workspaces, project.src, project.own ?? {})] }
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

/**
 * `kit` and `kit/<file>` from a file under <workspaces>/<name>/ resolve into <workspaces>/<name>/src; from anywhere
 * else (tests/setup.ts) into `fallback`, the solution's src. Then, for the kit's imports and for the imports between
 * a workspace's source files alike: a source file that is not one of the workspace's own (`own`: it neither differs
 * from the solution's nor imports one that does) is the solution's file itself, so its module is loaded once for all
 * workspaces (the bash grammar, the providers, the tools) instead of once for each of 450. It runs the same code
 * either way: only the workspace's own files hold anything else. STATEFUL files are never shared.
 */
/**
 * Source files whose module state a test reads (RegexSearch.running counts the searches still open): each workspace
 * keeps its own copy, or a known-wrong solution that leaves searches open (as it should, to be caught) would be
 * counted in the tests of every workspace that shares the module after it, in the same worker.
 */
const STATEFUL = new Set(['tools/regex-search.ts']);

function kitOfWorkspace(workspaces: string, fallback: string, own: Record<string, string[]>): Plugin {
  const owned = new Map(Object.entries(own).map(([name, files]) => [name, new Set(files)]));
  const workspaceOf = (file: string | undefined) => {
    const inside = file ? path.relative(workspaces, file.split('?')[0]!) : '..';
    return inside.startsWith('..') || path.isAbsolute(inside) ? undefined : inside.split(path.sep)[0];
  };
  /** The solution's file for `resolved` when it is a workspace source file that is not the workspace's own. */
  const shared = (resolved: string): string | undefined => {
    const name = workspaceOf(resolved);
    if (!name || !owned.has(name)) return undefined;
    const rel = path.relative(path.join(workspaces, name, 'src'), resolved.split('?')[0]!);
    if (rel.startsWith('..') || path.isAbsolute(rel) || owned.get(name)!.has(rel) || STATEFUL.has(rel))
      return undefined;
    return path.join(fallback, rel);
  };
  return {
    name: 'kit-of-workspace',
    enforce: 'pre',
    async resolveId(source, importer) {
      const isKit = source === 'kit' || source.startsWith('kit/');
      if (!isKit && !(source.startsWith('.') && workspaceOf(importer))) return null;
      let target = source;
      if (isKit) {
        const name = workspaceOf(importer);
        const src = name ? path.join(workspaces, name, 'src') : fallback;
        target = source === 'kit' ? path.join(src, 'index.ts') : path.join(src, source.slice(4));
      }
      const resolved = await this.resolve(target, importer, { skipSelf: true });
      if (!resolved) return null;
      const solutions = shared(resolved.id);
      return solutions ? { ...resolved, id: solutions } : resolved;
    },
  };
}
