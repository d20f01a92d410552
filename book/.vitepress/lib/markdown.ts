/**
 * markdown-it plugins for the guide:
 * - ```quiz blocks become an interactive <Quiz> component (theme/Quiz.vue);
 * - the chapter header (the block right after the page's h1 that names what you build, the files, the command and
 *   the time) is wrapped in <div class="chapter-header"> so the theme can show it as a card;
 * - TypeScript blocks say which kind they are: ```ts check (type-checked by verify, complete) or ```ts (a shape);
 * - "chapter 8" in the prose links to chapter 8's page ("第 8 章" on a Chinese page);
 * - a translated page whose front matter says `behind: true` opens with a note that the English has moved on.
 * - `**bold**` next to Chinese punctuation is bold (cjkStrongPlugin).
 * Every string these show is in the page's language (lib/i18n.ts).
 */
import type { MarkdownRenderer as MarkdownIt } from 'vitepress';
import { diagramWidth, MIN_SCALE, storedDiagram } from './diagram-store';
import { englishPath, pageLang, STRINGS, type Lang } from './i18n';
import { parseQuiz } from './quiz';
import { pageLink } from './summary';

/** The language of the page being rendered (a quiz's own inline text has no page: English). */
const langOfEnv = (env: unknown) => pageLang((env as { relativePath?: string } | undefined)?.relativePath);

type Renderer = NonNullable<MarkdownIt['renderer']['rules']['fence']>;

export function quizPlugin(md: MarkdownIt): void {
  const fallback: Renderer =
    md.renderer.rules.fence ?? ((tokens, idx, options, env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    if (token.info.trim().split(/\s+/)[0] !== 'quiz') return fallback(tokens, idx, options, env, self);
    const { quiz, problems } = parseQuiz(token.content);
    if (problems.length) {
      return `<div class="quiz quiz-broken"><p><strong>${STRINGS[langOfEnv(env)].quizBroken}</strong></p><ul>${problems.map((p) => `<li>${md.utils.escapeHtml(p)}</li>`).join('')}</ul></div>`;
    }
    const data = {
      question: md.renderInline(quiz.question),
      choices: quiz.choices.map((c) => ({
        html: md.renderInline(c.text),
        correct: c.correct,
        explanation: md.renderInline(c.explanation),
      })),
    };
    return `<Quiz data="${encodeURIComponent(JSON.stringify(data))}" />\n`;
  };
}

/** The header card's labels, in English and as the Chinese pages write them (`> **你要构建的：**`). */
const HEADER_WORDS = /what you (will )?build|files?\b|command|time\b|你要构建的|要编辑的文件|命令|用时/i;

/** Wraps the block that follows the first h1, when it reads like a chapter header, in a styled container. */
export function chapterHeaderPlugin(md: MarkdownIt): void {
  md.core.ruler.push('chapter_header', (state) => {
    const tokens = state.tokens;
    const h1 = tokens.findIndex((t) => t.type === 'heading_open' && t.tag === 'h1');
    if (h1 < 0) return;
    const start = h1 + 3; // heading_open, inline, heading_close
    const open = tokens[start];
    if (!open || !['blockquote_open', 'table_open', 'bullet_list_open', 'container_info_open'].includes(open.type))
      return;
    const closeType = open.type.replace('_open', '_close');
    let depth = 0;
    let end = -1;
    for (let i = start; i < tokens.length; i++) {
      if (tokens[i]!.type === open.type) depth++;
      else if (tokens[i]!.type === closeType && --depth === 0) {
        end = i;
        break;
      }
    }
    if (end < 0) return;
    const text = tokens
      .slice(start, end)
      .map((t) => t.content)
      .join(' ');
    if (!HEADER_WORDS.test(text) || !/npm (test|run)/.test(text)) return;
    // One line per field: a soft line break before the next `**Field:**` becomes a real one; a field's own text may
    // run over several source lines and stays one paragraph.
    for (const token of tokens.slice(start, end)) {
      const children = token.children ?? [];
      children.forEach((child, i) => {
        const next = children.slice(i + 1).find((c) => !(c.type === 'text' && c.content === ''));
        const strong = next?.type === 'strong_open' || (next?.type === 'html_inline' && next.content === '<strong>');
        if (child.type === 'softbreak' && strong) child.type = 'hardbreak';
      });
    }
    const before = new state.Token('html_block', '', 0);
    before.content = '<div class="chapter-header">\n';
    const after = new state.Token('html_block', '', 0);
    after.content = '</div>\n';
    tokens.splice(end + 1, 0, after);
    tokens.splice(start, 0, before);
  });
}

/** The first word of a mermaid source that is not a comment or front matter: flowchart, sequenceDiagram, ... */
export function diagramKind(source: string): string {
  let frontMatter = false;
  for (const line of source.split('\n')) {
    const text = line.trim();
    if (text === '---') frontMatter = !frontMatter;
    else if (text && !frontMatter && !text.startsWith('%%')) return text.split(/\s+/)[0]!;
  }
  return '';
}

/**
 * ```mermaid blocks become `<div class="mermaid">`. With its drawing stored (lib/diagram-store.ts, `npm run
 * diagrams`), the block holds the SVG, sized from its own width and height, so the page is laid out once, in its final
 * form: no source shown first, nothing moves when scripts run. Its caption ("click to open full size") takes room only
 * when the column is too narrow to read the drawing in (CSS, from --open-below: no script decides the layout). Without
 * a drawing (a diagram just written, in `npm run book`), the block holds the source as plain text and the theme draws
 * it in the browser (theme/diagrams.ts); verify reports the missing drawing.
 */
export function mermaidPlugin(md: MarkdownIt, root?: string): void {
  const fallback: Renderer =
    md.renderer.rules.fence ?? ((tokens, idx, options, env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    const info = token.info.trim().split(/\s+/)[0];
    if (info !== 'mermaid') return fallback(tokens, idx, options, env, self);
    const kind = md.utils.escapeHtml(diagramKind(token.content));
    const stored = root ? storedDiagram(root, token.content.replace(/\n$/, '')) : undefined;
    if (stored) {
      const svg = stored.svg
        .trim()
        .replace(/^<svg\b/, `<svg style="width: ${diagramWidth(stored.width, stored.height)}; height: auto"`);
      // v-html: the SVG's own <style> survives (Vue drops a <style> written in a template), on the server and after
      // a client-side navigation alike.
      const html = md.utils.escapeHtml(JSON.stringify(svg));
      const openBelow = Math.ceil(stored.width * MIN_SCALE);
      return `<div class="mermaid" data-kind="${kind}" data-drawn="build" style="--open-below: ${openBelow}px"><div class="mermaid-drawing" v-html="${html}"></div><div class="mermaid-caption" aria-hidden="true">${STRINGS[langOfEnv(env)].diagramCaption}</div></div>\n`;
    }
    return `<div class="mermaid" data-kind="${kind}"><pre class="mermaid-source" v-pre>${md.utils.escapeHtml(token.content)}</pre></div>\n`;
  };
}

/**
 * Every table sits in a `<div class="table-frame">`: the table scrolls sideways inside it when it is wider than the
 * column, and the frame shows that it does (a shadow at the edge that hides more, theme/tables.ts and custom.css).
 */
export function tableFramePlugin(md: MarkdownIt): void {
  const open =
    md.renderer.rules.table_open ?? ((tokens, idx, options, env, self) => self.renderToken(tokens, idx, options));
  const close =
    md.renderer.rules.table_close ?? ((tokens, idx, options, env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.table_open = (tokens, idx, options, env, self) =>
    `<div class="table-frame">${open(tokens, idx, options, env, self)}`;
  md.renderer.rules.table_close = (tokens, idx, options, env, self) =>
    `${close(tokens, idx, options, env, self)}</div>`;
}

/** The label a TypeScript block carries on the site, from its info string; undefined for other languages. */
export function codeKind(info: string, lang: Lang = 'en'): { kind: 'checked' | 'shape'; label: string } | undefined {
  if (!/^(ts|typescript)\b/.test(info.trim())) return undefined;
  return /\bcheck\b/.test(info)
    ? { kind: 'checked', label: STRINGS[lang].checkedCode }
    : { kind: 'shape', label: STRINGS[lang].shapeCode };
}

/** ```ts and ```ts check blocks are wrapped in a <div class="code-kind"> with a visible label (codeKind). */
export function codeKindPlugin(md: MarkdownIt): void {
  const fallback: Renderer =
    md.renderer.rules.fence ?? ((tokens, idx, options, env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    const kind = codeKind(tokens[idx]!.info, langOfEnv(env));
    const html = fallback(tokens, idx, options, env, self);
    if (!kind) return html;
    return `<div class="code-kind code-${kind.kind}"><div class="code-kind-label">${kind.label}</div>${html}</div>\n`;
  };
}

/**
 * Links "chapter 8" in the prose to chapter 8's page (`chapters` maps a number to its file, from SUMMARY.md), except
 * on that chapter's own page, in headings and inside existing links or code.
 */
export function chapterLinkPlugin(md: MarkdownIt, chapters: ReadonlyMap<number, string>): void {
  md.core.ruler.push('chapter_links', (state) => {
    const page = (state.env as { relativePath?: string } | undefined)?.relativePath;
    if (!page) return; // a quiz's inline text (quizPlugin renders it on its own): no links inside answer buttons
    // A chapter's own page, or one of its parts (chapter-15-1.md for chapter-15.md): "chapter 15" there is not a link.
    const own = [...chapters].find(
      ([, file]) => file === englishPath(page) || englishPath(page).startsWith(file.replace(/\.md$/, '-')),
    )?.[0];
    // "chapter 8" in English, "第 8 章" in Chinese; a link to ./chapter-08.md stays inside the page's language.
    const mention = pageLang(page) === 'zh' ? /第\s*(\d{1,2})\s*章/ : /\b[Cc]hapters? (\d{1,2})\b/;
    state.tokens.forEach((block, b) => {
      if (block.type !== 'inline' || !block.children || state.tokens[b - 1]?.type === 'heading_open') return;
      const out: typeof block.children = [];
      let inLink = 0;
      for (const child of block.children) {
        if (child.type === 'link_open') inLink++;
        if (child.type === 'link_close') inLink--;
        if (child.type !== 'text' || inLink > 0) {
          out.push(child);
          continue;
        }
        let rest = child.content;
        for (let m = mention.exec(rest); m; m = mention.exec(rest)) {
          const file = chapters.get(Number(m[1]));
          const end = m.index + m[0].length;
          if (!file || Number(m[1]) === own) {
            const text = new state.Token('text', '', 0);
            text.content = rest.slice(0, end);
            out.push(text);
          } else {
            const before = new state.Token('text', '', 0);
            before.content = rest.slice(0, m.index);
            const open = new state.Token('link_open', 'a', 1);
            open.attrs = [['href', `./${file}`]];
            const label = new state.Token('text', '', 0);
            label.content = m[0];
            out.push(before, open, label, new state.Token('link_close', 'a', -1));
          }
          rest = rest.slice(end);
        }
        const tail = new state.Token('text', '', 0);
        tail.content = rest;
        out.push(tail);
      }
      block.children = out;
    });
  });
}

/**
 * A translated page marked `behind: true` in its front matter (verify's staleness check asks for the mark when the
 * English page changed after the translation's `english:` commit) opens, right under its title, with a visible note
 * and a link to the English page.
 */
export function behindNotePlugin(md: MarkdownIt, rewrites: Readonly<Record<string, string>> = {}): void {
  md.core.ruler.push('behind_note', (state) => {
    const env = state.env as { relativePath?: string; frontmatter?: Record<string, unknown> } | undefined;
    const page = env?.relativePath;
    const lang = pageLang(page);
    if (!page || lang === 'en' || env?.frontmatter?.behind !== true) return;
    const english = englishPath(page);
    const href = pageLink(rewrites[english] ?? english);
    const link = `<a href="${md.utils.escapeHtml(href)}" lang="en">${STRINGS[lang].englishPage}</a>`;
    const note = new state.Token('html_block', '', 0);
    note.content = `<div class="translation-note behind" role="note"><p>${STRINGS[lang].behind(link)}</p></div>\n`;
    const h1 = state.tokens.findIndex((t) => t.type === 'heading_open' && t.tag === 'h1');
    state.tokens.splice(h1 < 0 ? 0 : h1 + 3, 0, note);
  });
}

/**
 * The heading anchors' labels (VitePress writes `Permalink to "title"`) in the page's language, without the explicit
 * `{#anchor}` a translated heading carries (VitePress reads the label from the heading's source text).
 */
export function permalinkLabelPlugin(md: MarkdownIt): void {
  md.core.ruler.push('permalink_label', (state) => {
    const page = (state.env as { relativePath?: string } | undefined)?.relativePath;
    if (pageLang(page) === 'en') return;
    for (const token of state.tokens) {
      if (token.type !== 'inline') continue;
      for (const child of token.children ?? []) {
        const label =
          child.type === 'link_open' && child.attrGet('class') === 'header-anchor' ? child.attrGet('aria-label') : null;
        const title = label && /^Permalink to "([\s\S]*)"$/.exec(label)?.[1];
        if (title !== null && title !== undefined)
          child.attrSet('aria-label', STRINGS[pageLang(page)].permalink(title.replace(/\s*\{#[^}]*\}\s*$/, '')));
      }
    }
  });
}

const PUNCT = /[\p{P}\p{S}]/u;

/**
 * CommonMark cannot close `**` after punctuation when a letter follows, nor open it before punctuation after a
 * letter: right for English (`**word.**Next` is rare), wrong for Chinese, written without spaces, where
 * `> **你要构建的：**一个循环` or `**匹配器（matcher）**是` are the normal way to write, and would show their asterisks.
 * In text with Chinese in it, such a pair becomes `<strong>…</strong>` (its inside is still markdown); every other
 * pair, and everything inside code spans, is left as it is.
 */
export function cjkStrong(text: string): string {
  if (!/\p{Script=Han}/u.test(text)) return text;
  return text
    .split(/(`+[\s\S]*?`+)/)
    .map((part, i) => {
      if (i % 2 === 1) return part; // a code span
      return part.replace(/\*\*(?=\S)([^*\n]*?\S)\*\*/g, (whole, inner: string, at: number, all: string) => {
        const before = all[at - 1] ?? ' ';
        const after = all[at + whole.length] ?? ' ';
        const opens = !PUNCT.test(inner[0]!) || /\s/.test(before) || PUNCT.test(before);
        const closes = !PUNCT.test(inner.at(-1)!) || /\s/.test(after) || PUNCT.test(after);
        return opens && closes ? whole : `<strong>${inner}</strong>`;
      });
    })
    .join('');
}

/** cjkStrong over every paragraph and heading before the inline parser reads it (quizzes included). */
export function cjkStrongPlugin(md: MarkdownIt): void {
  md.core.ruler.before('inline', 'cjk_strong', (state) => {
    for (const token of state.tokens) if (token.type === 'inline') token.content = cjkStrong(token.content);
  });
}
