/**
 * The guide's checks that run other programs: every ```ts check block through tsc against solution/src, every
 * ```mermaid block through mermaid's own parser, and the site through the VitePress build.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FencedBlock } from './markdown.js';
import { ROOT } from './paths.js';

let mermaidApi: Promise<{ parse(text: string): Promise<unknown> }> | undefined;

/**
 * mermaid's own parser, in Node. mermaid.parse needs no DOM for parsing, but some diagram kinds (state diagrams)
 * register DOMPurify hooks while they load, and DOMPurify without a window has no hooks: give it inert ones (nothing is
 * sanitised or drawn here, only parsed).
 */
function loadMermaid(): Promise<{ parse(text: string): Promise<unknown> }> {
  mermaidApi ??= (async () => {
    const purify = (await import('dompurify')).default as unknown as Record<string, unknown>;
    purify.addHook ??= () => {};
    purify.removeHook ??= () => {};
    purify.removeHooks ??= () => {};
    purify.sanitize ??= (dirty: unknown) => String(dirty);
    const mermaid = (await import('mermaid')).default;
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
    return mermaid;
  })();
  return mermaidApi;
}

/** Why mermaid cannot parse a diagram's source (its first lines), or undefined when it parses. */
export async function diagramError(source: string): Promise<string | undefined> {
  const mermaid = await loadMermaid();
  try {
    await mermaid.parse(source);
    return undefined;
  } catch (error) {
    return String((error as Error)?.message ?? error)
      .split('\n')
      .slice(0, 4)
      .join(' | ')
      .slice(0, 400);
  }
}

/** Writes each block to its own module in a temp dir under the repo and runs tsc with `kit` mapped to solution/src. */
export async function typeCheckBlocks(
  root: string,
  blocks: Array<{ page: string; block: FencedBlock }>,
): Promise<string[]> {
  mkdirSync(path.join(root, '.kit'), { recursive: true });
  const dir = mkdtempSync(path.join(root, '.kit', 'guide-ts-'));
  try {
    const where = new Map<string, { page: string; line: number }>();
    blocks.forEach(({ page, block }, i) => {
      const name = `${String(i).padStart(3, '0')}-${page.replace(/[^a-z0-9]+/gi, '-')}-L${block.line}.ts`;
      // The block's first line is line 1 of the file; `export {}` makes every block its own module.
      writeFileSync(path.join(dir, name), `${block.content}\nexport {};\n`);
      where.set(name, { page, line: block.line });
    });
    const rel = path.relative(dir, root).split(path.sep).join('/');
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: `${rel}/tsconfig.base.json`,
        compilerOptions: {
          noUnusedLocals: false,
          paths: { kit: [`${rel}/solution/src/index.ts`], 'kit/*': [`${rel}/solution/src/*`] },
        },
        include: ['*.ts'],
      }),
    );
    const tsc = path.join(root, 'node_modules/.bin/tsc');
    const { code, output } = await run(tsc, ['-p', path.join(dir, 'tsconfig.json'), '--pretty', 'false'], root);
    if (code === 0) return [];
    const problems: string[] = [];
    for (const line of output.split('\n')) {
      const m = /^(?:.*[\\/])?([^\\/()]+\.ts)\((\d+),(\d+)\): (error .*)$/.exec(line.trim());
      const at = m && where.get(m[1]!);
      if (m && at)
        problems.push(`book/src/${at.page}:${at.line + Number(m[2])}: ts check block does not type-check: ${m[4]}`);
      else if (m) problems.push(`${m[1]}(${m[2]},${m[3]}): ${m[4]}`);
    }
    return problems.length ? problems : [`tsc failed on the guide's ts check blocks:\n${output.trim()}`];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Builds the site into book/.vitepress/dist. Rejects with VitePress's output if the build fails. Needs no network. */
export async function buildSite(root = ROOT, bookDir = 'book'): Promise<void> {
  const vitepress = path.join(root, 'node_modules/vitepress/bin/vitepress.js');
  const { code, output } = await run(process.execPath, [vitepress, 'build', bookDir], root);
  if (code !== 0)
    throw new Error(`the VitePress build failed (exit ${code}):\n${output.trim().split('\n').slice(-30).join('\n')}`);
}
