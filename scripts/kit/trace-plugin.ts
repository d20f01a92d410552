/**
 * A vite plugin for the graded tests: adds one call, `enterRegion(chapter, name)`, at the start of every
 * `// #region chapter N: name` of the code under test (on the marker's own line, so line numbers do not move), so each
 * test records which stubs it reached (trace.ts). The kit points a failing test at the stub it actually exercised
 * (stubs.ts, `assignStubs`), not at the first name in its describe title. A region is always the start of a function
 * or method body (docs/authors.md), so a statement is valid there.
 */
import path from 'node:path';
import type { Plugin } from 'vite';

const START = /^(\s*)(\/\/ #region chapter (\d+): (\S.*?)\s*)$/;
const TRACE = path.join(import.meta.dirname, 'trace.ts');

/** The source with the trace calls added, or undefined when it has no region. */
export function addRegionTrace(code: string, file: string): string | undefined {
  if (!code.includes('// #region chapter')) return undefined;
  let found = false;
  const lines = code.split('\n').map((line) => {
    const match = START.exec(line);
    if (!match) return line;
    found = true;
    return `${match[1]}__kitEnterRegion(${match[3]}, ${JSON.stringify(match[4])}); ${match[2]}`;
  });
  if (!found) return undefined;
  let from = path.relative(path.dirname(file), TRACE).split(path.sep).join('/');
  if (!from.startsWith('.')) from = `./${from}`;
  lines[0] = `import { enterRegion as __kitEnterRegion } from ${JSON.stringify(from)}; ${lines[0]}`;
  return lines.join('\n');
}

export function regionTrace(): Plugin {
  // Mutation testing (Stryker) rewrites the code under test itself and needs no pointers: leave its code alone.
  if (process.env.STRYKER_MUTATOR_WORKER !== undefined) return { name: 'kit-region-trace' };
  return {
    name: 'kit-region-trace',
    enforce: 'pre',
    transform(code, id) {
      const file = id.split('?')[0]!;
      if (!/\.[cm]?ts$/.test(file) || file.includes('/node_modules/') || /\.test\.ts$/.test(file) || file === TRACE)
        return null;
      const traced = addRegionTrace(code, file);
      return traced === undefined ? null : { code: traced, map: null };
    },
  };
}
