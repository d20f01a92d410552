/**
 * The guide as a site (npm run book / npm run book:build). book/src keeps the mdBook layout: SUMMARY.md is the one
 * table of contents, and the sidebar and prev/next links are generated from it.
 */
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { defineConfig, type DefaultTheme } from 'vitepress';
import { chapterHeaderPlugin, chapterLinkPlugin, codeKindPlugin, mermaidPlugin, quizPlugin } from './lib/markdown';
import { pageLink, parseSummary } from './lib/summary';

const require = createRequire(import.meta.url);
const srcDir = path.resolve(import.meta.dirname, '../src');
const summaryFile = path.join(srcDir, 'SUMMARY.md');
const entries = existsSync(summaryFile) ? parseSummary(readFileSync(summaryFile, 'utf8')) : [];

// README.md is mdBook's introduction page: serve it as the folder's index. Without one, the book's first page (the
// prefix chapter, e.g. introduction.md) is the home page, so the site's address is not a 404.
const rewrites: Record<string, string> = {};
for (const entry of entries) {
  if (entry.file && /(^|\/)README\.md$/.test(entry.file)) rewrites[entry.file] = entry.file.replace(/README\.md$/, 'index.md');
}
const home = entries.find((e) => e.file);
if (home?.file && !home.part && !home.file.includes('/') && !Object.values(rewrites).includes('index.md') && !existsSync(path.join(srcDir, 'index.md'))) rewrites[home.file] = 'index.md';

/** "Chapter 8: Permissions and safety" in SUMMARY.md: chapter 8 is that file (lib/markdown.ts chapterLinkPlugin). */
const chapters = new Map<number, string>();
for (const entry of entries) {
  const n = /^Chapter (\d+)\b/i.exec(entry.title)?.[1];
  if (n && entry.file) chapters.set(Number(n), entry.file);
}

function sidebar(): DefaultTheme.SidebarItem[] {
  const groups: DefaultTheme.SidebarItem[] = [];
  const loose: DefaultTheme.SidebarItem[] = [];
  const byPart = new Map<string, DefaultTheme.SidebarItem>();
  let last: DefaultTheme.SidebarItem | undefined;
  for (const entry of entries) {
    const item: DefaultTheme.SidebarItem = entry.file
      ? { text: entry.title, link: pageLink(rewrites[entry.file] ?? entry.file) }
      : { text: `${entry.title} <span class="coming-soon">coming soon</span>` };
    // A nested bullet (a part of a chapter: chapter-15-1.md under chapter-15.md) sits under the entry above it.
    const parent = entry.depth > 0 ? last : undefined;
    if (parent) {
      (parent.items ??= []).push(item);
      parent.collapsed ??= false;
      continue;
    }
    last = item;
    if (!entry.part) {
      loose.push(item);
      continue;
    }
    let group = byPart.get(entry.part);
    if (!group) {
      group = { text: entry.part, collapsed: false, items: [] };
      byPart.set(entry.part, group);
      groups.push(group);
    }
    group.items!.push(item);
  }
  return [...(loose.length ? [{ items: loose }] : []), ...groups];
}

export default defineConfig({
  title: 'Build a coding agent',
  description: 'Build a small Claude Code in TypeScript, one chapter at a time, with graded offline tests.',
  srcDir: 'src',
  srcExclude: ['SUMMARY.md', '**/wrong/**'],
  rewrites,
  cleanUrls: true,
  lastUpdated: false,
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' }]],
  ignoreDeadLinks: [/^https?:\/\/localhost/],
  markdown: {
    theme: { light: 'github-light', dark: 'github-dark' },
    config(md) {
      md.use(quizPlugin);
      md.use(mermaidPlugin);
      md.use(chapterHeaderPlugin);
      md.use(codeKindPlugin);
      md.use(chapterLinkPlugin, chapters);
    },
  },
  themeConfig: {
    sidebar: sidebar(),
    outline: { level: [2, 3], label: 'On this page' },
    search: { provider: 'local' },
    docFooter: { prev: 'Previous chapter', next: 'Next chapter' },
    nav: [{ text: 'Contents', link: home?.file ? pageLink(rewrites[home.file] ?? home.file) : '/' }],
  },
  // npm run book (dev): theme/diagrams.ts imports mermaid itself; pre-bundle it at start, not on the first diagram
  // (which would reload the page).
  vite: { optimizeDeps: { include: ['mermaid'] } },
  // ```mermaid blocks: lib/markdown.ts and theme/diagrams.ts, which loads mermaid's own prebuilt ESM files (copied
  // here, without their source maps) once a page with a diagram answers clicks.
  buildEnd(site) {
    const from = path.join(path.dirname(require.resolve('mermaid/package.json')), 'dist');
    const to = path.join(site.outDir, 'mermaid');
    cpSync(path.join(from, 'mermaid.esm.min.mjs'), path.join(to, 'mermaid.esm.min.mjs'));
    cpSync(path.join(from, 'chunks/mermaid.esm.min'), path.join(to, 'chunks/mermaid.esm.min'), {
      recursive: true,
      filter: (file) => !file.endsWith('.map'),
    });
  },
});
