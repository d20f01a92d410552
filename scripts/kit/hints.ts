/**
 * Progressive hints, three levels per stub: the idea (why, in a sentence or two), the approach (the stub's numbered
 * steps) and the shape of the code (a skeleton). The idea and the shape are kept with each chapter's tests in
 * tests/chapterNN/hints.md; the approach is not written there: it is the steps of the stub's region in solution/src,
 * the same lines the guided edition shows (`npm run reset -- chapterN --guided`), so the two cannot drift.
 *
 *   # Chapter 3 hints               <- anything before the first `##` is ignored
 *   ## singleTurn                   <- one section per stub, named as in its #region marker, in teaching order
 *   ### Idea                        <- why the code is as it is; never the contract's or the steps' own words
 *   ...markdown...
 *   ### Shape                       <- a skeleton of the code, with the decisions left as comments
 *
 * Which hint was shown last for each stub is remembered in .kit/hints.json, so each call shows the next one.
 *
 * A translation sits beside it, tests/chapterNN/hints.zh-CN.md for Chinese: the same `##` stubs, each with its Idea,
 * an Approach (the steps in Chinese, since the code's comments are English) and its Shape (the headings stay
 * English: the kit shows them in the reader's language), and a first line
 * naming the commit of hints.md it was translated from, `<!-- english: <sha> -->` (verify checks it is in step:
 * scripts/lib/guide-locale.ts).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chapterDir } from '../lib/chapters.js';
import { treeRegions } from '../lib/regions.js';

export interface Hint {
  title: string;
  text: string;
}

export interface StubHints {
  stub: string;
  hints: Hint[];
}

/** The languages hints are written in: English (hints.md) and Chinese (hints.zh-CN.md). */
export type HintLang = 'en' | 'zh';

export function hintsFile(root: string, chapter: number, lang: HintLang = 'en'): string {
  return path.join(root, chapterDir(chapter), lang === 'zh' ? 'hints.zh-CN.md' : 'hints.md');
}

/** A Chinese language or locale name: zh, zh-CN, zh_CN.UTF-8, zh_TW@... */
const CHINESE = /^zh([-_.@]|$)/i;

/**
 * The language the learner asked for: `--lang zh` (or `--lang=zh-CN`; `--lang en` for English), else the shell's
 * locale, the first set of LC_ALL, LC_MESSAGES and LANG (as POSIX programs read it): `zh_CN.UTF-8` is Chinese.
 */
export function hintLang(args: readonly string[], env: NodeJS.ProcessEnv = process.env): HintLang {
  const lang = langOption(args);
  if (lang) return CHINESE.test(typeof lang.value === 'string' ? lang.value : '') ? 'zh' : 'en';
  const locale = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((v) => v !== undefined && v !== '') ?? '';
  return CHINESE.test(locale) ? 'zh' : 'en';
}

/** The arguments without `--lang X`, for a command that reads the rest itself. */
export function withoutLang(args: readonly string[]): string[] {
  const lang = langOption(args);
  if (!lang) return [...args];
  return args.filter((_, i) => i !== lang.index && !(i === lang.index + 1 && lang.inlineValue === false));
}

/** The first `--lang` of args as parseArgs reads it (its value and where it is), other words and options aside. */
function langOption(args: readonly string[]) {
  const { tokens } = parseArgs({
    args,
    options: { lang: { type: 'string' } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) if (token.kind === 'option' && token.name === 'lang') return token;
  return undefined;
}

/** Parses a hints.md. Headings inside fenced code are text, not sections. */
export function parseHints(markdown: string): StubHints[] {
  const sections: StubHints[] = [];
  let fence: string | undefined;
  let hint: Hint | undefined;
  for (const line of markdown.split('\n')) {
    const fenceMatch = /^\s*(```+|~~~+)/.exec(line);
    if (fenceMatch && (!fence || fenceMatch[1]!.startsWith(fence))) fence = fence ? undefined : fenceMatch[1];
    const stubHeading = !fence && /^##\s+(.+?)\s*$/.exec(line);
    const hintHeading = !fence && /^###\s+(.+?)\s*$/.exec(line);
    if (stubHeading) {
      sections.push({ stub: stubHeading[1]!.replace(/`/g, ''), hints: [] });
      hint = undefined;
    } else if (hintHeading && sections.length > 0) {
      hint = { title: hintHeading[1]!, text: '' };
      sections.at(-1)!.hints.push(hint);
    } else if (hint) {
      hint.text += `${line}\n`;
    }
  }
  for (const section of sections) for (const h of section.hints) h.text = h.text.trim();
  return sections;
}

export function loadHints(root: string, chapter: number, lang: HintLang = 'en'): StubHints[] {
  const file = hintsFile(root, chapter, lang);
  return existsSync(file) ? parseHints(readFileSync(file, 'utf8')) : [];
}

/** The title of the approach hint: the stub's steps. */
export const APPROACH = 'Approach';

/** Each stub's numbered steps in solution/src, as markdown (the comment markers gone, the indentation kept). */
export function stubSteps(root: string, chapter: number): Map<string, string> {
  const steps = new Map<string, string>();
  for (const { region } of treeRegions(path.join(root, 'solution/src')))
    if (region.chapter === chapter && region.steps.length > 0)
      steps.set(region.name, region.steps.map((line) => line.replace(/^\s*\/\/ ?/, '')).join('\n'));
  return steps;
}

/**
 * A chapter's hints as npm run hint shows them, level by level: in English, each stub's hints from hints.md with its
 * steps put in second place as the approach; in another language, its file as written (it carries the steps
 * translated). An English hints.md that still has an Approach of its own keeps it (shown instead of the steps).
 */
export function hintLevels(root: string, chapter: number, lang: HintLang = 'en'): StubHints[] {
  const sections = loadHints(root, chapter, lang);
  if (lang !== 'en') return sections;
  const steps = stubSteps(root, chapter);
  return sections.map((section) => {
    const text = steps.get(section.stub);
    if (!text || section.hints.some((h) => h.title === APPROACH)) return section;
    const [idea, ...rest] = section.hints;
    return { ...section, hints: [...(idea ? [idea] : []), { title: APPROACH, text }, ...rest] };
  });
}

/** The stub names in the order hints.md lists them. */
export function hintOrder(root: string, chapter: number): string[] {
  return loadHints(root, chapter).map((section) => section.stub);
}

type HintState = Record<string, number>;
const stateFile = (root: string) => path.join(root, '.kit', 'hints.json');
export const stubKey = (chapter: number, stub: string) => `chapter ${chapter}: ${stub}`;

export function readHintState(root: string): HintState {
  try {
    return JSON.parse(readFileSync(stateFile(root), 'utf8')) as HintState;
  } catch {
    return {};
  }
}

export function writeHintState(root: string, state: HintState): void {
  mkdirSync(path.dirname(stateFile(root)), { recursive: true });
  writeFileSync(stateFile(root), `${JSON.stringify(state, null, 2)}\n`);
}

/** Forgets which hints were shown, for one chapter or (chapter undefined) all of them. */
export function resetHintState(root: string, chapter?: number): void {
  const state = readHintState(root);
  for (const key of Object.keys(state))
    if (chapter === undefined || key.startsWith(`chapter ${chapter}: `)) delete state[key];
  writeHintState(root, state);
}

/** Takes the next hint for a stub and remembers it; past the last one, the last one again. */
export function nextHint(
  root: string,
  chapter: number,
  stub: string,
  hints: readonly Hint[],
): { level: number; hint: Hint } | undefined {
  if (hints.length === 0) return undefined;
  const state = readHintState(root);
  const key = stubKey(chapter, stub);
  const level = Math.min((state[key] ?? 0) + 1, hints.length);
  state[key] = level;
  writeHintState(root, state);
  return { level, hint: hints[level - 1]! };
}
