/**
 * npm run hint -- chapter3 [--reset] [--lang zh]: the next hint for the first unfinished stub of a chapter. In Chinese
 * with `--lang zh` or a Chinese shell locale (LANG=zh_CN.UTF-8), from tests/chapterNN/hints.zh-CN.md; a chapter (or a
 * stub) with no Chinese hints gets the English ones, after a one-line note. The other messages stay English.
 */
import { chapterArg, chaptersWithTests, parseCommandArgs } from './args.js';
import { hintLang, hintLevels, hintsFile, nextHint, resetHintState, type HintLang, type StubHints } from './hints.js';
import { firstIncomplete } from './progress.js';
import { runTests, type TestOutcome } from './run-tests.js';
import { stepNote } from './step-note.js';
import { chapterPointer, chapterStubs, firstUnfinished, learnerStubs, likelyChapter } from './stubs.js';
import { bold, cyan, dim, indent } from './ui.js';
import path from 'node:path';

const LEVEL_NAMES = ['the idea', 'the approach (the steps, one by one)', 'the shape of the code'];

/** What the hint shows around the hint's own text, in each language. */
const LABELS = {
  en: {
    chapter: (n: number) => `Chapter ${n}`,
    hint: (level: number, total: number, title: string) => `Hint ${level} of ${total}: ${title}`,
    titles: {} as Record<string, string>,
    failing: (test: string) => `Failing: ${test}`,
    again: (chapter: number, level: number) =>
      `Run "npm run hint -- chapter${chapter}" again for ${LEVEL_NAMES[level] ?? 'the next hint'}.`,
    last: (stub: string, chapter: number) =>
      `That was the last hint for ${stub}. "npm run solution -- chapter${chapter}" shows the reference.`,
    english: (chapter: number, stub?: string) =>
      `(${stub ?? `Chapter ${chapter}`} has no Chinese hints yet: in English.)`,
  },
  zh: {
    chapter: (n: number) => `第 ${n} 章`,
    hint: (level: number, total: number, title: string) => `提示 ${level}/${total}：${title}`,
    titles: { Idea: '要点', Nudge: '要点', Approach: '步骤', Shape: '代码骨架' } as Record<string, string>,
    failing: (test: string) => `未通过：${test}`,
    again: (chapter: number, level: number) =>
      `再运行一次 "npm run hint -- chapter${chapter}"，可以看到${['要点', '步骤（一步一步）', '代码骨架'][level] ?? '下一条提示'}。`,
    last: (stub: string, chapter: number) =>
      `这是 ${stub} 的最后一条提示。"npm run solution -- chapter${chapter}" 可以看参考实现。`,
    english: (chapter: number, stub?: string) => `（${stub ?? `第 ${chapter} 章`}还没有中文提示，下面是英文原文。）`,
  },
} satisfies Record<HintLang, unknown>;

/**
 * The text of the next hint for the chapter (and records that it was shown). `known`: the chapter's results, if run.
 * `lang`: the hints' language (hintLang); English where that language has none.
 */
export async function hintText(
  root: string,
  chapter: number,
  known?: readonly TestOutcome[],
  lang: HintLang = 'en',
): Promise<string> {
  const sections = hintLevels(root, chapter);
  if (sections.length === 0) {
    return `Chapter ${chapter} has no hints yet (${path.relative(root, hintsFile(root, chapter))} is missing).`;
  }
  const stubs = chapterStubs(root, chapter);
  const tests = known ?? (await runTests({ root, chapters: [chapter] })).tests;
  // The failure npm run watch shows and where it points (stubs.ts, chapterPointer): a stub of this chapter, or of an
  // earlier one that this one calls; else, with nothing failing, the first stub still to write.
  const focus = chapterPointer(stubs, learnerStubs(root), tests);
  const pointer = focus?.pointer;
  const stub =
    pointer?.kind === 'stub'
      ? pointer.stub
      : pointer?.kind === 'several'
        ? pointer.stubs[0]!
        : firstUnfinished(stubs, tests)?.stub;
  if (!stub) {
    const failing = tests.filter((t) => t.status === 'failed');
    if (failing.length === 0)
      return `Every stub of chapter ${chapter} is written and its ${tests.length} tests pass. On to chapter ${chapter + 1}!`;
    return `Every stub of chapter ${chapter} has a body, but ${failing.length} test(s) still fail, e.g.\n  ${failing[0]!.fullName}\n  ${failing[0]!.message.split('\n')[0]}`;
  }
  const find = (list: StubHints[]) => list.find((s) => s.stub === stub.name && s.hints.length > 0);
  const section = find(stub.chapter === chapter ? sections : hintLevels(root, stub.chapter));
  const where = `${stub.file}:${stub.line}`;
  if (!section || section.hints.length === 0) return `No hints are written for ${stub.name} (${where}) yet.`;
  // The translation's section for the stub, with as many hints as the English (the level remembered is shared).
  const translation = lang === 'en' ? [] : hintLevels(root, stub.chapter, lang);
  const translated = find(translation);
  const shownIn: HintLang = translated && translated.hints.length === section.hints.length ? lang : 'en';
  const text = LABELS[shownIn];
  const shown = nextHint(root, stub.chapter, stub.name, (shownIn === 'en' ? section : translated!).hints)!;
  const total = section.hints.length;
  const lines = [
    // The failing test exercised several written stubs and nothing tells which is wrong: say so, and which they are.
    ...(pointer?.kind === 'several'
      ? [
          dim(
            `The failing test exercised ${pointer.stubs.map((s) => s.name).join(', ')}, and its failure does not name one: this hint is for ${stub.name}, the most suspicious. Compare each with the failure below.`,
          ),
        ]
      : []),
    // A chapter with no translation at all, or a stub its translation leaves out: one line says so.
    ...(lang !== shownIn
      ? [dim(LABELS[lang].english(stub.chapter, translation.length ? `${stub.name} ` : undefined))]
      : []),
    bold(`${text.chapter(stub.chapter)} · ${stub.name}`) + dim(`  (${where})`),
    `${cyan(text.hint(shown.level, total, text.titles[shown.hint.title] ?? shown.hint.title))}`,
    '',
    indent(shown.hint.text, '  '),
    '',
  ];
  if (focus) {
    lines.push(dim(text.failing(focus.test.fullName)), dim(`  ${focus.test.message.split('\n')[0]}`));
    // The level shown is the approach: the steps are on screen already.
    const note = shown.hint.title === 'Approach' ? undefined : stepNote(focus.test.message, stub.chapter);
    lines.push(...(note ? [dim(`  ${note}`)] : []), '');
  }
  lines.push(dim(shown.level < total ? text.again(chapter, shown.level) : text.last(stub.name, stub.chapter)));
  return lines.join('\n');
}

export async function hintCommand(root: string, args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('npm run hint -- [chapterN] [--reset] [--lang zh|en]', {
    args,
    allowPositionals: true,
    options: { reset: { type: 'boolean' }, lang: { type: 'string' } },
  });
  const lang = hintLang(args);
  const chapter = chapterArg(root, positionals);
  if (values.reset) {
    resetHintState(root, chapter);
    console.log(chapter ? `Hints for chapter ${chapter} start over.` : 'Hints for every chapter start over.');
    return 0;
  }
  if (chapter !== undefined) {
    console.log(await hintText(root, chapter, undefined, lang));
    return 0;
  }
  // No chapter named: run only the chapters up to the first one with unwritten stubs, not every chapter.
  const upTo = likelyChapter(root);
  const { tests } = await runTests({ root, chapters: chaptersWithTests(root).filter((n) => n <= upTo) });
  const target = firstIncomplete(root, tests);
  if (target === undefined) {
    console.log('Every chapter passes: no hint needed.');
    return 0;
  }
  console.log(
    await hintText(root, target, target <= upTo ? tests.filter((t) => t.chapter === target) : undefined, lang),
  );
  return 0;
}
