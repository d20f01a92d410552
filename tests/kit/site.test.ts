/**
 * The guide as a site: buildSite() on a fixture guide (offline), then, where Debian's Chromium is installed, the
 * built page as a reader sees it: header, mermaid, highlighted TypeScript, prev/next, a quiz that answers, search.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSite } from '../../scripts/lib/guide.js';
import { copyRepo, GOOD_QUIZ, REPO } from './helpers.js';

const CHAPTER = `# 1. Messages and the mock provider

> **What you build:** the message types and a scripted provider.
> **Files:** \`starter/src/messages.ts\`, \`starter/src/mock-provider.ts\`
> **Command:** \`npm test -- chapter1\`
> **Time:** about 45 minutes

## The conversation as data

\`\`\`mermaid
flowchart TD
  C["provider.complete({ system, messages: history, tools })"] --> R{"turn.stopReason"}
  R -- tool_use --> X["run each tool call, in order<br/>(executeToolCall never throws)"]
\`\`\`

\`\`\`ts check
import { textOf, assistantText } from 'kit/messages';
const text: string = textOf(assistantText('hi'));
\`\`\`

## Check yourself

\`\`\`quiz
${GOOD_QUIZ}
\`\`\`
`;

describe('the site (book/.vitepress)', () => {
  let copy: ReturnType<typeof copyRepo>;
  let dist: string;
  beforeAll(async () => {
    copy = copyRepo();
    rmSync(path.join(copy.root, 'book/src'), { recursive: true, force: true });
    const src = path.join(copy.root, 'book/src');
    mkdirSync(src, { recursive: true });
    writeFileSync(path.join(src, 'SUMMARY.md'), '# Summary\n\n[Introduction](README.md)\n\n# Part I: The loop\n\n- [Messages](chapter01.md)\n- [Your first tool](chapter02.md)\n- [The agentic loop]()\n');
    writeFileSync(path.join(src, 'README.md'), '# Build a coding agent\n\nStart with [chapter 1](chapter01.md).\n');
    writeFileSync(path.join(src, 'chapter01.md'), CHAPTER);
    writeFileSync(path.join(src, 'chapter02.md'), '# 2. Your first tool\n\nA zebra crossing of tools.\n');
    await buildSite(copy.root);
    dist = path.join(copy.root, 'book/.vitepress/dist');
  }, 120_000);
  afterAll(() => copy.cleanup());

  it('builds a static page per chapter, with sidebar, drafts, header, quiz and prev/next from SUMMARY.md', () => {
    const html = readFileSync(path.join(dist, 'chapter01.html'), 'utf8');
    expect(existsSync(path.join(dist, 'index.html')), 'README.md is the home page').toBe(true);
    expect(existsSync(path.join(dist, 'SUMMARY.html')), 'SUMMARY.md is not a page').toBe(false);
    expect(html).toContain('<div class="chapter-header">');
    expect(html).toMatch(/class="quiz"/);
    expect(html).toContain('coming soon');
    expect(html).toMatch(/pager-link prev" href="\/"/);
    expect(html).toMatch(/pager-link next" href="\/chapter02"/);
    expect(html).toMatch(/language-ts/);
  });

  it.skipIf(!existsSync('/usr/bin/chromium'))('renders in Chromium: mermaid, highlighting, a quiz that answers, and search', async () => {
    const server = http.createServer((req, res) => {
      const p = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      for (const candidate of p.endsWith('/') ? [`${p}index.html`] : [p, `${p}.html`]) {
        const file = path.join(dist, candidate);
        if (file.startsWith(dist) && existsSync(file) && !file.endsWith('/')) {
          const type = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' }[path.extname(file)];
          res.writeHead(200, type ? { 'content-type': type } : {});
          res.end(readFileSync(file));
          return;
        }
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const shot = path.join(copy.root, 'chapter01.png');
      const run = await new Promise<string>((resolve) => {
        const child = spawn(process.execPath, ['--experimental-websocket', '--import', 'tsx', path.join(REPO, 'tests/kit/browser-check.ts'), `http://127.0.0.1:${port}/chapter01`, shot], { cwd: REPO, env: { ...process.env, SEARCH_WORD: 'zebra' } });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c));
        child.stderr.on('data', (c: Buffer) => (out += c));
        child.on('close', () => resolve(out));
      });
      const result = JSON.parse(run.trim().split('\n').at(-1)!) as Record<string, unknown>;
      expect(result.error, run).toBeUndefined();
      expect(result.title).toMatch(/Messages and the mock provider/);
      expect(result.header).toMatch(/What you build:.*\nFiles:/);
      expect(result.mermaid, 'the mermaid diagram is drawn as SVG').toBe(true);
      expect(result.clippedLabels, 'no diagram label is cut off').toBe(0);
      expect(result.highlighted as number).toBeGreaterThan(3);
      expect(result).toMatchObject({ prev: '/', next: '/chapter02', quizzes: 1, searchOpened: true, searchFound: true });
      expect(result.quizFirst).toMatch(/^✗\s*No: nothing is re-sorted\. Try another answer\.$/);
      expect(result.quizSecond).toMatch(/✓[\s\S]*a result answers the tool_call before it/);
      expect(result.searchResults).toEqual(expect.arrayContaining([expect.stringContaining('Your first tool')]));
      expect(existsSync(shot)).toBe(true);
    } finally {
      server.close();
    }
  });
});


