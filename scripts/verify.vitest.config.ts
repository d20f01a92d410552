/** The vitest configuration verify runs: one project per workspace to check, read from KIT_VERIFY_PLAN. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

interface PlannedProject {
  name: string;
  src: string;
  include: string[];
}

const root = path.resolve(import.meta.dirname, '..');
const plan = JSON.parse(readFileSync(process.env.KIT_VERIFY_PLAN!, 'utf8')) as { projects: PlannedProject[] };

export default defineConfig({
  test: {
    reporters: [path.join(root, 'scripts/lib/verify-reporter.ts')],
    // Much of a graded run is waiting (processes, timeouts, fake servers), not computing: more workers than cores
    // keep the CPU busy while others wait. KIT_VERIFY_WORKERS overrides.
    maxWorkers: Number(process.env.KIT_VERIFY_WORKERS ?? 4),
    projects: plan.projects.map((project) => ({
      root,
      resolve: {
        alias: [
          { find: /^kit$/, replacement: path.join(project.src, 'index.ts') },
          { find: /^kit\/(.*)$/, replacement: `${project.src}/$1` },
        ],
      },
      test: {
        name: project.name,
        include: project.include,
        setupFiles: [path.join(root, 'tests/setup.ts')],
        testTimeout: 10_000,
        pool: 'threads' as const,
        // Workers keep their module cache between the files of one project (never across projects): half the time.
        isolate: false,
      },
    })),
  },
});
