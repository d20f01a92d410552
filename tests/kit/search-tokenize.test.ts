/**
 * The local search's tokenizer (book/.vitepress/lib/search-tokenize.ts), with MiniSearch as VitePress's local search
 * runs it: a Chinese word in the middle of a sentence is found, English is tokenized as MiniSearch's default does.
 */
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { searchTokenize } from '../../book/.vitepress/lib/search-tokenize.js';

/** The index as VitePress builds it (its fields and search options), with the site's tokenizer. */
function index(docs: Array<{ id: string; title: string; text: string }>, tokenize?: (text: string) => string[]) {
  const search = new MiniSearch({
    fields: ['title', 'titles', 'text'],
    storeFields: ['title'],
    searchOptions: { fuzzy: 0.2, prefix: true, boost: { title: 4, text: 2, titles: 1 } },
    ...(tokenize ? { tokenize } : {}),
  });
  search.addAll(docs.map((d) => ({ ...d, titles: [] })));
  // The browser loads the index from JSON with the same options (VPLocalSearchBox: MiniSearch.loadJSON).
  return MiniSearch.loadJSON(JSON.stringify(search), {
    fields: ['title', 'titles', 'text'],
    storeFields: ['title'],
    searchOptions: { fuzzy: 0.2, prefix: true, boost: { title: 4, text: 2, titles: 1 } },
    ...(tokenize ? { tokenize } : {}),
  });
}

const DOCS = [
  {
    id: '/zh/chapter-03',
    title: '第 3 章：智能体循环',
    text: '模型回答一次以后，把工具调用交给智能体循环，再把工具结果追加到对话历史里。',
  },
  {
    id: '/zh/chapter-07',
    title: '第 7 章：事件、钩子与取消',
    text: '每个钩子（hook）都在工具调用之前运行；取消时中止信号（AbortSignal）会触发。',
  },
  {
    id: '/chapter-02',
    title: 'Chapter 2: Your first tool',
    text: "A zebra crossing of tools: defineTool() wraps a zod schema, and the tool's execute runs.",
  },
];

describe('searchTokenize (book/.vitepress/lib/search-tokenize.ts)', () => {
  it('cuts Chinese into words and leaves everything else as MiniSearch splits it', () => {
    expect(searchTokenize('把工具调用交给智能体循环')).toEqual(expect.arrayContaining(['工具', '循环']));
    expect(searchTokenize("A zebra crossing: defineTool() wraps a zod schema, and the tool's execute runs.")).toEqual(
      // The same words; MiniSearch drops the empty one its default leaves after the final full stop.
      MiniSearch.getDefault('tokenize')(
        "A zebra crossing: defineTool() wraps a zod schema, and the tool's execute runs.",
      ).filter(Boolean),
    );
    expect(searchTokenize('每个钩子（hook）都在 bash 工具之前运行')).toEqual(
      expect.arrayContaining(['钩子', 'hook', 'bash', '工具', '运行']),
    );
    expect(searchTokenize('，。！')).toEqual([]);
  });

  it('finds a Chinese word in the middle of a sentence, which the default tokenizer cannot', () => {
    const ids = (search: MiniSearch, query: string) => search.search(query).map((r) => r.id);
    const chinese = index(DOCS, searchTokenize);
    expect(ids(chinese, '对话历史')).toEqual(['/zh/chapter-03']);
    expect(ids(chinese, '钩子')).toEqual(['/zh/chapter-07']);
    expect(ids(chinese, '工具调用')[0], 'both pages say 工具调用 inside a sentence').toMatch(/^\/zh\//);
    expect(ids(chinese, 'hook')).toEqual(['/zh/chapter-07']);
    // Without it, the sentence is one token: the word inside it is not found.
    expect(ids(index(DOCS), '对话历史')).toEqual([]);
  });

  it('keeps the English search as it was', () => {
    const ids = (search: MiniSearch, query: string) => search.search(query).map((r) => r.id);
    for (const query of ['zebra', 'zod schema', 'defineTool', 'execute', 'tool']) {
      expect(ids(index(DOCS, searchTokenize), query), query).toEqual(ids(index(DOCS), query));
    }
    expect(ids(index(DOCS, searchTokenize), 'zebra')).toEqual(['/chapter-02']);
  });
});
