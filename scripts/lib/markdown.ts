/**
 * Markdown as the site reads it, for the guide's checks: VitePress's own markdown-it (createMarkdownRenderer, with
 * the site's options and plugins from book/.vitepress/config.ts), so the fenced blocks and the heading anchors
 * checked are the ones the site builds; and the front matter read with gray-matter, as VitePress's front matter
 * plugin reads it (it strips the front matter before markdown-it sees the page).
 *
 * The renderer is made once, when this module loads (a top-level await): the call sites stay synchronous.
 */
import path from 'node:path';
import matter from 'gray-matter';
import { createMarkdownRenderer } from 'vitepress';
import site from '../../book/.vitepress/config.js';
import { ROOT } from './paths.js';

/**
 * The site's markdown-it. Only `highlight` differs from the site's: the code is left as it is, since the checks read
 * tokens, never HTML, and loading shiki's grammars would take seconds.
 */
const md = await createMarkdownRenderer(path.join(ROOT, 'book/src'), {
  ...site.markdown,
  highlight: (code: string) => code,
});

type Token = ReturnType<typeof md.parse>[number];

/** A page as the site reads it: its front matter (undefined without one), its tokens, and the lines before them. */
interface ParsedPage {
  data: Record<string, unknown> | undefined;
  tokens: Token[];
  /** The lines of front matter that the tokens' line maps do not count. */
  offset: number;
}

const parsed = new Map<string, ParsedPage>();

/** Parses a page once (the checks read each page several times); throws what the site's build would stop on. */
function parse(markdown: string): ParsedPage {
  const known = parsed.get(markdown);
  if (known) return known;
  let page: ParsedPage;
  try {
    const file = matter(markdown);
    const present = file.content !== markdown;
    page = {
      data: present ? { ...file.data } : undefined,
      tokens: md.parse(file.content, {}),
      offset: present ? markdown.slice(0, markdown.length - file.content.length).split('\n').length - 1 : 0,
    };
  } catch (error) {
    throw new Error(`the site cannot read this page: ${String((error as Error)?.message ?? error).split('\n')[0]}`);
  }
  if (parsed.size >= 256) parsed.clear();
  parsed.set(markdown, page);
  return page;
}

/** Why the site cannot read a page (a front matter that is not YAML, an `{#id}` used twice), or undefined. */
export function pageError(markdown: string): string | undefined {
  try {
    parse(markdown);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The front matter of a markdown page, as VitePress reads it (YAML), or undefined when the page has none. */
export function frontMatter(markdown: string): Record<string, unknown> | undefined {
  return parse(markdown).data;
}

/** Markdown as the guide's checks read it: its fenced code blocks. */
export interface FencedBlock {
  /** The info string after the fence, e.g. `ts check`. */
  info: string;
  content: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** The fenced code blocks of a markdown text, wherever markdown-it finds them (in lists and quotes too). */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const { tokens, offset } = parse(markdown);
  return tokens.flatMap((token) =>
    token.type === 'fence' && token.map
      ? [{ info: token.info.trim(), content: token.content.replace(/\n$/, ''), line: token.map[0] + 1 + offset }]
      : [],
  );
}

/** A heading of a page: `text` as written, without its `{#id}`; `anchor` the id the site gives it. */
export interface Heading {
  level: number;
  /** 1-based line. */
  line: number;
  text: string;
  /** The explicit `{#id}`, if the heading has one. */
  id?: string;
  anchor: string;
}

/** The headings of a page, with the anchor the site gives each (its explicit `{#id}`, else VitePress's slug). */
export function headings(markdown: string): Heading[] {
  const { tokens, offset } = parse(markdown);
  return tokens.flatMap((token, i) => {
    if (token.type !== 'heading_open' || !token.map) return [];
    const source = tokens[i + 1]?.content ?? '';
    const attrs = /\s*\{([^{}]*)\}\s*$/.exec(source);
    const explicit = attrs && /(^|\s)#\S/.test(attrs[1]!);
    const anchor = token.attrGet('id') ?? '';
    return [
      {
        level: Number(token.tag.slice(1)),
        line: token.map[0] + 1 + offset,
        text: attrs ? source.slice(0, attrs.index) : source,
        ...(explicit ? { id: anchor } : {}),
        anchor,
      },
    ];
  });
}
