/**
 * The guide's languages: English at the site's root (book/src), Chinese under /zh/ (book/src/zh). Every string the
 * kit itself shows on a page (the quiz, the diagram preview, the code labels, the notes on a page that is behind or
 * not yet translated) comes from STRINGS, chosen by the page's language: from its path when the markdown is rendered
 * (lib/markdown.ts), from VitePress's useData().lang in the theme.
 */
export type Lang = 'en' | 'zh';

/** The other languages' folders under book/src, each a VitePress locale (config.ts). English is the root. */
export const LOCALES = [{ lang: 'zh' as const, dir: 'zh', htmlLang: 'zh-CN', label: '简体中文' }];

/** The language of a page, from its path relative to book/src (`zh/chapter-03.md` is Chinese). */
export function pageLang(relativePath: string | undefined): Lang {
  return relativePath && /^zh\//.test(relativePath) ? 'zh' : 'en';
}

/** The language of a VitePress `lang` value (`zh-CN` is Chinese; anything else, English). */
export function langOf(htmlLang: string | undefined): Lang {
  return htmlLang && /^zh\b/i.test(htmlLang) ? 'zh' : 'en';
}

/** A page's path without its language folder: `zh/chapter-03.md` → `chapter-03.md`. */
export function englishPath(relativePath: string): string {
  return relativePath.replace(/^zh\//, '');
}

export const STRINGS = {
  en: {
    quiz: 'Check yourself',
    right: 'Right.',
    notQuite: 'Not quite.',
    tryAnother: 'Try another answer.',
    /** Between two sentences: a space in English, none in Chinese. */
    sentenceGap: ' ',
    quizBroken: 'This quiz block does not parse:',
    diagramOpens: 'Diagram: open it full size',
    diagramFull: 'Diagram, full size',
    diagramCaption: 'Click to open the diagram full size',
    close: '✕ Close',
    checkedCode: 'Type-checked example: complete, you can paste it',
    shapeCode: 'Shape only: the bodies are left out',
    comingSoon: 'coming soon',
    behind: (link: string) =>
      `This page is behind the English: the English page changed after this translation. ${link}`,
    englishPage: 'Read the English page',
    permalink: (title: string) => `Permalink to "${title}"`,
  },
  zh: {
    quiz: '自测',
    right: '对。',
    notQuite: '不对。',
    tryAnother: '换一个答案试试。',
    sentenceGap: '',
    quizBroken: '这个小测验块无法解析：',
    diagramOpens: '图：点击查看全尺寸',
    diagramFull: '图（全尺寸）',
    diagramCaption: '点击查看全尺寸图',
    close: '✕ 关闭',
    checkedCode: '已通过类型检查的示例：完整，可直接粘贴',
    shapeCode: '只有骨架：函数体已略去',
    comingSoon: '即将推出',
    behind: (link: string) => `本页落后于英文版：英文版在本页翻译之后又有改动，本页可能缺少这些改动。${link}`,
    englishPage: '阅读英文版',
    permalink: (title: string) => `“${title}”的链接`,
  },
} satisfies Record<Lang, Record<string, string | ((link: string) => string)>>;
