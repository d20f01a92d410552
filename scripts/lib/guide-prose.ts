/**
 * What a page of the guide says, for checkGuide (guide.ts): the quizzes' balance across the guide, the chapter header
 * card (its labels and the length of "What you build"), and no authors' voice. Each in English and in Chinese.
 */
import type { Quiz } from '../../book/.vitepress/lib/quiz.js';

/** The most of the guide's quizzes whose right answer may sit in one position, or hold one rank by length. */
export const QUIZ_SHARE = 0.4;

/** The fewest of the three-choice quizzes whose right answer may hold each rank by length (longest, middle, shortest). */
export const QUIZ_LENGTH_FLOOR = 0.2;

/**
 * Where a quiz's right answer ranks by length among three choices: `longest` (longer than both others), `shortest`
 * (shorter than both), else `middle` (ties included: a tie gives a guesser nothing to go on). Undefined for a quiz of
 * another size.
 */
export function lengthRank(quiz: Quiz): 'longest' | 'middle' | 'shortest' | undefined {
  if (quiz.choices.length !== 3) return undefined;
  const right = quiz.choices.findIndex((c) => c.correct);
  const length = quiz.choices[right]!.text.length;
  const others = quiz.choices.filter((_, i) => i !== right).map((c) => c.text.length);
  if (others.every((l) => l < length)) return 'longest';
  if (others.every((l) => l > length)) return 'shortest';
  return 'middle';
}

/**
 * Quizzes a reader can pass without understanding: when most right answers are B, or the longest choice, or the one
 * of middle length ("skip the shortest, take the middle"), guessing works. Across the guide (from 12 quizzes on), no
 * position and no "the longest" may hold more than QUIZ_SHARE; among the three-choice quizzes, the right answer is the
 * longest, the middle and the shortest choice about equally often: each rank between QUIZ_LENGTH_FLOOR and
 * QUIZ_SHARE of them. checkGuide counts each language apart (a Chinese choice's length compares with Chinese choices).
 */
export function quizBalance(quizzes: readonly Quiz[]): string[] {
  if (quizzes.length < 12) return [];
  const problems: string[] = [];
  const limit = Math.floor(quizzes.length * QUIZ_SHARE);
  const at = new Map<number, number>();
  let longest = 0;
  const ranks = { longest: 0, middle: 0, shortest: 0 };
  for (const quiz of quizzes) {
    const right = quiz.choices.findIndex((c) => c.correct);
    at.set(right, (at.get(right) ?? 0) + 1);
    const length = quiz.choices[right]!.text.length;
    if (quiz.choices.every((c, i) => i === right || c.text.length < length)) longest++;
    const rank = lengthRank(quiz);
    if (rank) ranks[rank]++;
  }
  for (const [index, count] of [...at].sort((a, b) => a[0] - b[0])) {
    if (count > limit)
      problems.push(
        `quizzes: ${count} of ${quizzes.length} right answers are choice ${String.fromCharCode(65 + index)} (at most ${limit}): move some right answers to other positions, so a guess by position does not pay`,
      );
  }
  if (longest > limit)
    problems.push(
      `quizzes: in ${longest} of ${quizzes.length} the right answer is the longest choice (at most ${limit}): give wrong choices the same care and detail, or say the right one shorter`,
    );
  const three = ranks.longest + ranks.middle + ranks.shortest;
  if (three >= 12) {
    const most = Math.floor(three * QUIZ_SHARE);
    const fewest = Math.ceil(three * QUIZ_LENGTH_FLOOR);
    const figures = `longest ${ranks.longest}, middle ${ranks.middle}, shortest ${ranks.shortest} of ${three}`;
    const how = {
      longest: 'say some right answers shorter, or give their wrong choices the detail of a real misconception',
      middle:
        'make some right answers the shortest choice (a wrong choice that states a misconception and its reasoning is rarely short) or the longest',
      shortest: 'give some wrong choices a misconception in full, or say some right answers with their reason',
    } as const;
    for (const rank of ['longest', 'middle', 'shortest'] as const) {
      if (ranks[rank] > most)
        problems.push(
          `quizzes: the right answer is the ${rank} of the three choices in ${ranks[rank]} (${figures}; at most ${most}), so a guess by length pays: ${how[rank]}`,
        );
      else if (ranks[rank] < fewest)
        problems.push(
          `quizzes: the right answer is the ${rank} of the three choices in only ${ranks[rank]} (${figures}; at least ${fewest}), so a guess by length pays: make some right answers the ${rank}`,
        );
    }
  }
  return problems;
}

/** The most words a chapter header's "What you build" may have: the header is a card to read at a glance. */
export const HEADER_MAX_WORDS = 80;

/**
 * The most characters a Chinese header's 你要构建的 may have (each Chinese character counts one, each run of other
 * letters or digits one): about what HEADER_MAX_WORDS English words say.
 */
export const HEADER_MAX_ZH = 160;

/** The header card's labels, as the English and the Chinese pages write them (`> **What you build:**`). */
export const HEADER_LABELS = {
  en: {
    build: /^> \*\*What you (will )?build:\*\*/,
    files: /^> \*\*Files?( to edit)?:\*\*/,
    command: /^> \*\*Command:\*\*/,
    time: /^> \*\*Time:\*\*/,
  },
  zh: {
    build: /^> \*\*你要构建的：\*\*/,
    files: /^> \*\*要编辑的文件：\*\*/,
    command: /^> \*\*命令：\*\*/,
    time: /^> \*\*用时：\*\*/,
  },
} as const;

const HEADER_LABEL_TEXT = {
  en: { build: '> **What you build:**', files: '> **Files to edit:**', command: '> **Command:**', time: '> **Time:**' },
  zh: { build: '> **你要构建的：**', files: '> **要编辑的文件：**', command: '> **命令：**', time: '> **用时：**' },
} as const;

/** A "What you build" (你要构建的) longer than HEADER_MAX_WORDS (HEADER_MAX_ZH), as `line: message`. */
export function headerLength(markdown: string): string[] {
  const lines = markdown.split('\n');
  for (const lang of ['en', 'zh'] as const) {
    const label = HEADER_LABELS[lang].build;
    const at = lines.findIndex((l) => label.test(l));
    if (at < 0) continue;
    let text = lines[at]!;
    for (let i = at + 1; i < lines.length && /^> (?!\*\*)\S/.test(lines[i]!); i++) text += ` ${lines[i]!.slice(2)}`;
    text = text.replace(label, '');
    if (lang === 'en') {
      const words = text.split(/\s+/).filter(Boolean).length;
      return words > HEADER_MAX_WORDS
        ? [
            `${at + 1}: the header's "What you build" has ${words} words (at most ${HEADER_MAX_WORDS}): say the gist, and leave the details to the page`,
          ]
        : [];
    }
    const size = (text.match(/\p{Script=Han}|[\p{L}\p{N}_`.\-]+/gu) ?? []).length;
    return size > HEADER_MAX_ZH
      ? [
          `${at + 1}: the header's 你要构建的 has ${size} characters (at most ${HEADER_MAX_ZH}; a run of English letters counts one): say the gist, and leave the details to the page`,
        ]
      : [];
  }
  return [];
}

/**
 * A chapter page's header card, when the page has one: all four labelled lines, with the labels of the page's
 * language (a Chinese page: 你要构建的：, 要编辑的文件：, 命令：, 用时：), as `line: message`.
 */
export function headerLabels(markdown: string, lang: 'en' | 'zh'): string[] {
  const lines = markdown.split('\n');
  const card = lines.filter((l) => /^> \*\*[^*]+\*\*/.test(l));
  if (!card.length) return [];
  const other = lang === 'zh' ? 'en' : 'zh';
  const problems: string[] = [];
  for (const [field, label] of Object.entries(HEADER_LABELS[lang])) {
    const wrong = (HEADER_LABELS[other] as Record<string, RegExp>)[field]!;
    const at = lines.findIndex((l) => wrong.test(l));
    const want = HEADER_LABEL_TEXT[lang][field as keyof (typeof HEADER_LABEL_TEXT)['en']];
    if (at >= 0) problems.push(`${at + 1}: the header card's label is in the other language: write it as ${want}`);
    else if (!card.some((l) => label.test(l)))
      problems.push(
        `1: the header card has no ${want} line (it names what you build, the files, the command, the time)`,
      );
  }
  return problems;
}

/**
 * Words from the authors' notes that a learner's guide must not contain: the reader has no seeds, no issues and no
 * learners of their own. Each entry: the pattern and why it is wrong on a reader's page.
 */
export const AUTHOR_VOICE: ReadonlyArray<{ pattern: RegExp; why: string }> = [
  { pattern: /\bseed \d+|\bseeds\b/i, why: "a seed is an authors' note; say what it describes" },
  {
    pattern: /\b(your|our|the) learners\b|\blearners'/i,
    why: 'the reader is the learner; speak to them, not about them',
  },
  { pattern: /\b(issue|ticket) #?\d+/i, why: 'an issue number means nothing to a reader' },
  {
    pattern: /\b(the|this) (editor|reviewer)'s note\b|\bnote to (self|authors)\b/i,
    why: "an authors' note left in the text",
  },
  // The Chinese edition (zh-common): the guide addresses the learner as 你, and never speaks as the authors.
  { pattern: /我们/, why: '中文版不以作者口吻说“我们”：直接对学习者说“你”，或者不用主语' },
  { pattern: /学习者们|(我们|你们)的学习者/, why: '读者就是学习者：对他说话，而不是谈论他' },
  { pattern: /(编者|审稿人|译者)(注|按)/, why: '作者或译者的备注留在了正文里' },
];

/** The lines of a page (code blocks included: comments are read too) that use AUTHOR_VOICE words. */
export function authorVoice(markdown: string): Array<{ line: number; message: string }> {
  const found: Array<{ line: number; message: string }> = [];
  markdown.split('\n').forEach((text, i) => {
    for (const { pattern, why } of AUTHOR_VOICE) {
      const m = pattern.exec(text);
      if (m)
        found.push({
          line: i + 1,
          message: `"${m[0]}" is the authors' voice, not the guide's (${why}; scripts/lib/guide-prose.ts AUTHOR_VOICE)`,
        });
    }
  });
  return found;
}
