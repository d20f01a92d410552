/**
 * Chapter regions: how one solution produces the starter, the progressive-unlock workspaces and the known-wrong
 * solutions. A region wraps the body a chapter asks the learner to write:
 *
 *   /** The contract: what it must do and why. *\/   <- above the function, the same in every edition
 *   function singleTurn(...) {
 *     // #region chapter 3: singleTurn
 *     // 1. First step ...        <- the numbered steps: in the solution and in the guided edition only
 *     ...reference code...        <- replaced in a stub by `throw new TodoError(3, 'singleTurn');`
 *     // #endregion
 *
 * A stub comes in two editions. The contract edition (starter/src, what a learner gets) keeps only the contract
 * above and one line saying where the steps are; the guided edition (`npm run reset -- chapter3 --guided`) keeps
 * the steps too. The two differ only in comment lines inside regions, so every test gives the same result on both.
 * The marker lines are the same in every workspace, so tools can find a learner's body again (hint, reset, diff).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface Region {
  chapter: number;
  name: string;
  indent: string;
  /** Index of the `#region` line in the file's lines. */
  start: number;
  /** Index of the `#endregion` line. */
  end: number;
  /** The numbered-step comment lines right after the marker. */
  steps: string[];
  /** The code after the steps, up to the end marker. */
  body: string[];
}

const START = /^(\s*)\/\/ #region chapter (\d+): (\S.*?)\s*$/;
const END = /^\s*\/\/ #endregion\s*$/;
const COMMENT = /^\s*\/\//;

export function parseRegions(source: string, file = '<source>'): Region[] {
  const lines = source.split('\n');
  const regions: Region[] = [];
  let open: { chapter: number; name: string; indent: string; start: number } | undefined;
  lines.forEach((line, index) => {
    const start = START.exec(line);
    if (start) {
      if (open) throw new Error(`${file}:${index + 1}: region "${start[3]}" starts inside region "${open.name}"`);
      open = { indent: start[1]!, chapter: Number(start[2]), name: start[3]!, start: index };
    } else if (END.test(line)) {
      if (!open) throw new Error(`${file}:${index + 1}: #endregion without a #region`);
      const inner = lines.slice(open.start + 1, index);
      let split = 0;
      while (split < inner.length && COMMENT.test(inner[split]!)) split++;
      regions.push({ ...open, end: index, steps: inner.slice(0, split), body: inner.slice(split) });
      open = undefined;
    }
  });
  if (open) throw new Error(`${file}: region "${open.name}" has no #endregion`);
  return regions;
}

/** The editions of a stub: the contract alone (the default), or the contract and the numbered steps. */
export type Edition = 'contract' | 'guided';

/** The one comment line of a contract stub: the contract is above, and the steps are one command away. */
export function contractLine(region: Pick<Region, 'chapter' | 'indent'>): string {
  return `${region.indent}// Write it from the contract above. Step by step instead: npm run reset -- chapter${region.chapter} --guided`;
}

/** The lines a stub has between its markers, in the given edition (a region without steps has only the contract). */
export function stubLines(
  region: Pick<Region, 'chapter' | 'name' | 'indent' | 'steps'>,
  edition: Edition = 'contract',
): string[] {
  return [
    ...(edition === 'guided' && region.steps.length > 0 ? region.steps : [contractLine(region)]),
    `${region.indent}throw new TodoError(${region.chapter}, '${region.name.replace(/'/g, "\\'")}');`,
  ];
}

/**
 * Rewrites the inside of regions. `replace` returns the new inner lines of a region, or undefined to keep it.
 * Adds the TodoError import when a stub is written into a file that lacks it.
 */
export function rewriteRegions(
  source: string,
  todoImport: string,
  replace: (region: Region) => string[] | undefined,
  file?: string,
): string {
  const lines = source.split('\n');
  const regions = parseRegions(source, file);
  let out: string[] = [];
  let cursor = 0;
  for (const region of regions) {
    const inner = replace(region);
    if (!inner) continue;
    out.push(...lines.slice(cursor, region.start + 1), ...inner);
    cursor = region.end;
  }
  out.push(...lines.slice(cursor));
  const text = out.join('\n');
  if (text.includes('throw new TodoError(') && !/import \{[^}]*\bTodoError\b[^}]*\} from/.test(text)) {
    const firstImport = out.findIndex((line) => line.startsWith('import '));
    const at = firstImport >= 0 ? firstImport : out.findIndex((line) => line.startsWith(' */')) + 1;
    out = [...out.slice(0, at), todoImport, ...out.slice(at)];
  }
  return out.join('\n');
}

/** Every `.ts` file under `dir`, as paths relative to it, sorted. */
export function listSources(dir: string): string[] {
  const found: string[] = [];
  const walk = (sub: string) => {
    for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.ts')) found.push(rel);
    }
  };
  walk('');
  return found.sort();
}

/** Every region of a source tree (`dir`, e.g. solution/src), with the file it is in; none when `dir` is missing. */
export function treeRegions(dir: string): Array<{ rel: string; region: Region }> {
  if (!existsSync(dir)) return [];
  return listSources(dir).flatMap((rel) =>
    parseRegions(readFileSync(path.join(dir, rel), 'utf8'), rel).map((region) => ({ rel, region })),
  );
}

/** The import line for TodoError in a file at `rel` (relative to src/). */
export function todoImportFor(rel: string): string {
  const depth = rel.split('/').length - 1;
  return `import { TodoError } from '${depth === 0 ? './' : '../'.repeat(depth)}todo.js';`;
}

export interface Workspace {
  /** File contents by path relative to src/. */
  files: Map<string, string>;
}

/**
 * The source tree with every region for which `stub(region)` is true replaced by its stub (in `edition`), and the
 * regions named in `patches` replaced by the given inner lines. Everything else is the solution, byte for byte.
 */
export function buildWorkspace(
  solutionSrc: string,
  stub: (region: Region) => boolean,
  patches: Map<string, string[]> = new Map(),
  edition: Edition = 'contract',
): Workspace {
  const files = new Map<string, string>();
  for (const rel of listSources(solutionSrc)) {
    const source = readFileSync(path.join(solutionSrc, rel), 'utf8');
    files.set(
      rel,
      rewriteRegions(
        source,
        todoImportFor(rel),
        (region) => {
          const key = `chapter ${region.chapter}: ${region.name}`;
          if (patches.has(key)) return patches.get(key)!;
          return stub(region) ? stubLines(region, edition) : undefined;
        },
        rel,
      ),
    );
  }
  return { files };
}

export interface StubInfo {
  chapter: number;
  name: string;
  /** Path relative to the repository root. */
  file: string;
  /** 1-based line of the `#region` marker. */
  line: number;
  steps: string[];
  body: string[];
}

/** Every region of a source tree (`solution/src` or `starter/src`), in file and line order. */
export function listRegions(root: string, workspace: 'solution' | 'starter'): StubInfo[] {
  const src = path.join(root, workspace, 'src');
  return listSources(src).flatMap((rel) =>
    parseRegions(readFileSync(path.join(src, rel), 'utf8'), rel).map((region) => ({
      chapter: region.chapter,
      name: region.name,
      file: `${workspace}/src/${rel}`,
      line: region.start + 1,
      steps: region.steps.map((line) => line.trim().replace(/^\/\/ ?/, '')),
      body: region.body,
    })),
  );
}

/**
 * `text` without the solution's notes to the linter about imports it keeps for known-wrong solutions: the starter
 * has none (unused imports are allowed there), so build:starter drops them and doctor compares without them.
 */
export function withoutLinterNotes(text: string): string {
  return text.replace(/^\/\/ biome-ignore lint\/correctness\/noUnusedImports:.*\n/gm, '');
}
