/**
 * The guide's own checks, for verify:
 * - checkGuide(): SUMMARY.md and the pages agree; every ```ts check block type-checks against solution/src; every
 *   ```quiz block parses. Returns problems as sentences (empty = fine).
 * - guideTestCommands(): every `npm test -- ...` command quoted in the guide, so verify can check each selects tests.
 * - buildSite(): the VitePress build (offline).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseQuiz } from '../../book/.vitepress/lib/quiz.js';
import { parseSummary } from '../../book/.vitepress/lib/summary.js';
import { ROOT } from './paths.js';

export interface FencedBlock {
  /** The info string after the fence, e.g. `ts check`. */
  info: string;
  content: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** The fenced code blocks of a markdown text (``` or ~~~, any length, nested longer fences respected). */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { fence: string; info: string; line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((line, index) => {
    if (!open) {
      const start = /^ {0,3}(`{3,}|~{3,})\s*([^`]*)$/.exec(line);
      if (start) open = { fence: start[1]!, info: start[2]!.trim(), line: index + 1, lines: [] };
      return;
    }
    const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
    if (close && close[1]![0] === open.fence[0] && close[1]!.length >= open.fence.length) {
      blocks.push({ info: open.info, content: open.lines.join('\n'), line: open.line });
      open = undefined;
    } else open.lines.push(line);
  });
  return blocks;
}

function bookSrc(root: string): string {
  return path.join(root, 'book/src');
}

/** Every markdown page under book/src (relative paths, forward slashes), SUMMARY.md excluded. */
export function guidePages(root = ROOT): string[] {
  const dir = bookSrc(root);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map((f) => String(f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.md') && f !== 'SUMMARY.md')
    .sort();
}

/** The language of a block's info string and whether it asks to be type-checked (```ts check). */
const isCheckedTs = (info: string) => /^(ts|typescript)\b/.test(info) && /\bcheck\b/.test(info);

export async function checkGuide(root = ROOT): Promise<string[]> {
  const problems: string[] = [];
  const dir = bookSrc(root);
  const summaryFile = path.join(dir, 'SUMMARY.md');
  if (!existsSync(summaryFile)) return ['book/src/SUMMARY.md is missing'];
  const entries = parseSummary(readFileSync(summaryFile, 'utf8'));
  const linked = new Set<string>();
  for (const entry of entries) {
    if (!entry.file) continue;
    const file = entry.file.replace(/#.*$/, '');
    linked.add(file);
    if (!existsSync(path.join(dir, file))) problems.push(`book/src/SUMMARY.md:${entry.line}: "${entry.title}" links ${file}, which does not exist`);
  }
  const pages = guidePages(root);
  for (const page of pages) {
    if (!linked.has(page)) problems.push(`book/src/${page} is not in SUMMARY.md (add it there, or delete the page)`);
  }

  const checked: Array<{ page: string; block: FencedBlock }> = [];
  for (const page of pages) {
    for (const block of fencedBlocks(readFileSync(path.join(dir, page), 'utf8'))) {
      const kind = block.info.split(/\s+/)[0];
      if (kind === 'quiz') {
        for (const problem of parseQuiz(block.content).problems) problems.push(`book/src/${page}:${block.line}: quiz: ${problem}`);
      } else if (isCheckedTs(block.info)) checked.push({ page, block });
    }
  }
  if (checked.length) problems.push(...(await typeCheckBlocks(root, checked)));
  return problems;
}

/** Writes each block to its own module in a temp dir under the repo and runs tsc with `kit` mapped to solution/src. */
async function typeCheckBlocks(root: string, blocks: Array<{ page: string; block: FencedBlock }>): Promise<string[]> {
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
        compilerOptions: { noUnusedLocals: false, paths: { kit: [`${rel}/solution/src/index.ts`], 'kit/*': [`${rel}/solution/src/*`] } },
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
      if (m && at) problems.push(`book/src/${at.page}:${at.line + Number(m[2])}: ts check block does not type-check: ${m[4]}`);
      else if (m) problems.push(`${m[1]}(${m[2]},${m[3]}): ${m[4]}`);
    }
    return problems.length ? problems : [`tsc failed on the guide's ts check blocks:\n${output.trim()}`];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface GuideTestCommand {
  /** The page, relative to the repository root. */
  file: string;
  /** 1-based line. */
  line: number;
  /** What follows `npm test --`, split on spaces. */
  args: string[];
}

/** Every `npm test -- ...` command in the guide (prose or code), in file and line order. */
export function guideTestCommands(root = ROOT): GuideTestCommand[] {
  const dir = bookSrc(root);
  if (!existsSync(dir)) return [];
  const commands: GuideTestCommand[] = [];
  const files = readdirSync(dir, { recursive: true }).map((f) => String(f).split(path.sep).join('/')).filter((f) => f.endsWith('.md')).sort();
  for (const file of files) {
    readFileSync(path.join(dir, file), 'utf8')
      .split('\n')
      .forEach((text, index) => {
        for (const match of text.matchAll(/npm test -- ([^`\n]*)/g)) {
          const command = match[1]!.replace(/\s#.*$/, '').replace(/\s*(&&|\||;).*$/, '');
          commands.push({ file: `book/src/${file}`, line: index + 1, args: shellWords(command) });
        }
      });
  }
  return commands;
}

/** Splits a command line as a shell would for plain words and '...' or "..." quoting. */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  for (const match of command.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) {
    words.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3]!));
  }
  return words;
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
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
  if (code !== 0) throw new Error(`the VitePress build failed (exit ${code}):\n${output.trim().split('\n').slice(-30).join('\n')}`);
}
