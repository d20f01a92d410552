/**
 * The guide as a site (npm run book / npm run book:build). book/src keeps the mdBook layout: SUMMARY.md is the one
 * table of contents, and the sidebar and prev/next links are generated from it.
 */
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { defineConfig, type DefaultTheme } from 'vitepress';
import {
  behindNotePlugin,
  cjkStrongPlugin,
  permalinkLabelPlugin,
  chapterHeaderPlugin,
  chapterLinkPlugin,
  codeKindPlugin,
  mermaidPlugin,
  quizPlugin,
  tableFramePlugin,
} from './lib/markdown';
import { LOCALES, STRINGS } from './lib/i18n';
import { pageLink, parseSummary } from './lib/summary';
import { searchTokenize } from './lib/search-tokenize';

const require = createRequire(import.meta.url);
const srcDir = path.resolve(import.meta.dirname, '../src');

/**
 * One language of the guide: `dir` is its folder under book/src ('' for English, at the root), with its own
 * SUMMARY.md. Its sidebar and prev/next links come from that SUMMARY.md; the page files are the same in every
 * language (zh/chapter-03.md is chapter-03.md in Chinese), so the switcher keeps the reader on the same page.
 */
function edition(dir: string, comingSoon: string) {
  const prefix = dir ? `${dir}/` : '';
  const summaryFile = path.join(srcDir, prefix, 'SUMMARY.md');
  const entries = existsSync(summaryFile) ? parseSummary(readFileSync(summaryFile, 'utf8')) : [];
  // README.md is mdBook's introduction page: serve it as the folder's index. Without one, the book's first page (the
  // prefix chapter, e.g. introduction.md) is the home page, so the site's address is not a 404.
  const rewrites: Record<string, string> = {};
  for (const entry of entries) {
    if (entry.file && /(^|\/)README\.md$/.test(entry.file))
      rewrites[prefix + entry.file] = prefix + entry.file.replace(/README\.md$/, 'index.md');
  }
  const home = entries.find((e) => e.file);
  if (
    home?.file &&
    !home.part &&
    !home.file.includes('/') &&
    !Object.values(rewrites).includes(`${prefix}index.md`) &&
    !existsSync(path.join(srcDir, prefix, 'index.md'))
  ) {
    rewrites[prefix + home.file] = `${prefix}index.md`;
  }
  const link = (file: string) => pageLink(rewrites[prefix + file] ?? prefix + file);

  function sidebar(): DefaultTheme.SidebarItem[] {
    const groups: DefaultTheme.SidebarItem[] = [];
    const loose: DefaultTheme.SidebarItem[] = [];
    const byPart = new Map<string, DefaultTheme.SidebarItem>();
    let last: DefaultTheme.SidebarItem | undefined;
    for (const entry of entries) {
      const item: DefaultTheme.SidebarItem = entry.file
        ? { text: entry.title, link: link(entry.file) }
        : { text: `${entry.title} <span class="coming-soon">${comingSoon}</span>` };
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
  return { entries, rewrites, sidebar: sidebar(), home: home?.file ? link(home.file) : `/${prefix}` };
}

const english = edition('', STRINGS.en.comingSoon);
const editions = LOCALES.map((locale) => ({ ...locale, ...edition(locale.dir, STRINGS[locale.lang].comingSoon) }));
const rewrites = Object.assign({}, english.rewrites, ...editions.map((e) => e.rewrites)) as Record<string, string>;

/**
 * "Chapter 8: Permissions and safety" in the English SUMMARY.md: chapter 8 is that file (lib/markdown.ts
 * chapterLinkPlugin). The other languages name their pages as the English does, so one map serves every language.
 */
const chapters = new Map<number, string>();
for (const entry of english.entries) {
  const n = /^Chapter (\d+)\b/i.exec(entry.title)?.[1];
  if (n && entry.file) chapters.set(Number(n), entry.file);
}

/** The Chinese edition's theme strings (VitePress's own labels, in the reader's language). */
const zhTheme: DefaultTheme.Config = {
  outline: { level: [2, 3], label: '本页内容' },
  docFooter: { prev: '上一章', next: '下一章' },
  lastUpdated: { text: '最后更新于' },
  darkModeSwitchLabel: '外观',
  lightModeSwitchTitle: '切换到浅色模式',
  darkModeSwitchTitle: '切换到深色模式',
  sidebarMenuLabel: '目录',
  returnToTopLabel: '回到顶部',
  langMenuLabel: '切换语言',
  skipToContentLabel: '跳到正文',
  notFound: {
    title: '页面不存在',
    quote: '这个地址没有页面：也许它改了名字，或者还没有写。',
    linkLabel: '回到首页',
    linkText: '回到首页',
  },
};

export default defineConfig({
  title: 'Build a coding agent',
  description: 'Build a small Claude Code in TypeScript, one chapter at a time, with graded offline tests.',
  srcDir: 'src',
  srcExclude: ['**/SUMMARY.md', '**/wrong/**'],
  rewrites,
  cleanUrls: true,
  lastUpdated: false,
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' }]],
  ignoreDeadLinks: [/^https?:\/\/localhost/],
  markdown: {
    theme: { light: 'github-light', dark: 'github-dark' },
    config(md) {
      md.use(cjkStrongPlugin);
      md.use(quizPlugin);
      md.use(mermaidPlugin, path.resolve(srcDir, '../..'));
      md.use(chapterHeaderPlugin);
      md.use(codeKindPlugin);
      md.use(chapterLinkPlugin, chapters);
      md.use(behindNotePlugin, rewrites);
      md.use(permalinkLabelPlugin);
      md.use(tableFramePlugin);
    },
  },
  locales: {
    root: { label: 'English', lang: 'en' },
    ...Object.fromEntries(
      editions.map((e) => [
        e.dir,
        {
          label: e.label,
          lang: e.htmlLang,
          link: `/${e.dir}/`,
          ...(e.lang === 'zh'
            ? {
                title: '动手构建编程智能体',
                description: '用 TypeScript 一章一章地构建一个小型 Claude Code，每章都有离线计分测试。',
              }
            : {}),
          themeConfig: {
            ...(e.lang === 'zh' ? zhTheme : {}),
            sidebar: e.sidebar,
            nav: [{ text: '目录', link: e.home }],
          },
        },
      ]),
    ),
  },
  themeConfig: {
    sidebar: english.sidebar,
    outline: { level: [2, 3], label: 'On this page' },
    search: {
      provider: 'local',
      options: {
        // One tokenizer for every language's index and for the queries: Chinese runs are cut into words
        // (lib/search-tokenize.ts), everything else splits on spaces and punctuation as MiniSearch's default does.
        miniSearch: { options: { tokenize: searchTokenize } },
        locales: {
          zh: {
            translations: {
              button: { buttonText: '搜索', buttonAriaLabel: '搜索' },
              modal: {
                displayDetails: '显示详细列表',
                resetButtonTitle: '清除查询',
                backButtonTitle: '关闭搜索',
                noResultsText: '没有找到',
                footer: { selectText: '选择', navigateText: '切换', closeText: '关闭' },
              },
            },
          },
        },
      },
    },
    docFooter: { prev: 'Previous chapter', next: 'Next chapter' },
    nav: [{ text: 'Contents', link: english.home }],
  },
  // The language switcher keeps the reader on the same page; a page with no counterpart in a language (the Chinese
  // glossary) switches to that language's home page instead (theme/langs.ts, which reads noCounterpartIn).
  transformPageData(page) {
    const here = LOCALES.find((l) => page.filePath.startsWith(`${l.dir}/`))?.dir;
    const own = here ? page.filePath.slice(here.length + 1) : page.filePath;
    const missing = ['root', ...LOCALES.map((l) => l.dir)].filter(
      (dir) => dir !== (here ?? 'root') && !existsSync(path.join(srcDir, dir === 'root' ? '' : dir, own)),
    );
    if (missing.length) return { frontmatter: { ...page.frontmatter, noCounterpartIn: missing } };
  },
  vite: {
    // npm run book (dev): theme/diagrams.ts imports mermaid itself; pre-bundle it at start, not on the first diagram
    // (which would reload the page).
    optimizeDeps: { include: ['mermaid'] },
    // The default theme's switchers import '../composables/langs' (NotFound.vue './composables/langs'): theirs with
    // the one exception above (VitePress's documented way of replacing a part of its theme).
    resolve: {
      alias: [
        { find: /^\.{1,2}\/composables\/langs(\.js)?$/, replacement: path.join(import.meta.dirname, 'theme/langs.ts') },
      ],
    },
  },
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
