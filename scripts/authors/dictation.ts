/**
 * npm run dictation [-- --stubs] [-- chapterN...]
 *
 * How much of each stub's reference code its comments dictate: the share of the distinct identifiers and string
 * literals of the reference body (inside the region, after the steps) that the comments a learner reads spell out.
 * Names the learner already sees are left out: those of the signature and of the given code between the contract and
 * the region, keywords, primitive type names and one-letter names; a literal counts from three characters on and is
 * spelled out only as a whole word. Two figures per stub:
 *
 * - contract: the comments of the contract edition (starter/src): the doc comment above the stub (its contract; the
 *   stub's one line saying where the steps are is the same everywhere and not counted);
 * - guided: the same with the numbered steps (`npm run reset -- chapterN --guided`).
 *
 * A contract that names a given helper or a type the learner must use spells that name out on purpose: it is part of
 * the contract. The figure is a proxy for "can the stub be transcribed rather than designed"; the target is a contract
 * median of at most 35% and no stub above 60%. verify prints the per-chapter lines as a report, not a gate.
 *
 * --stubs: one line per stub, highest first, instead of per chapter. A stub with no doc comment above it is named:
 * it has no contract at all.
 * --hints: each hint (idea, shape) that repeats its stub's contract or steps for REPEAT_WORDS words in a row.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseScriptArgs } from '../kit/args.js';
import { parseChapter } from '../lib/chapters.js';
import { ROOT } from '../lib/paths.js';
import { APPROACH, loadHints, stubSteps } from '../kit/hints.js';
import { docComment, lineStarts, parseSource, stubContracts } from '../lib/contracts.js';
import { listSources, parseRegions } from '../lib/regions.js';

export interface StubDictation {
  chapter: number;
  name: string;
  /** `solution/src/<file>:<line of the #region marker>`. */
  where: string;
  /** Distinct identifiers and literals of the reference body that count. */
  total: number;
  /** Shares (0..1) spelled out by each edition's comments. */
  contract: number;
  guided: number;
  /** False when no doc comment sits above the stub. */
  hasContract: boolean;
  /** What the contract edition spells out, for a reader who wants to see why a share is high. */
  spelled: string[];
}

/** Names a learner never has to be told: contextual keywords and the primitive types. */
const NOT_COUNTED = new Set(
  'async await of as type from get set satisfies undefined keyof readonly is infer declare abstract override any unknown never string number boolean void object symbol bigint'.split(
    ' ',
  ),
);

/** A literal counts from three characters on: `''`, `'\n'` and `', '` dictate nothing. */
const MIN_LITERAL = 3;

interface Token {
  type: { label: string; keyword?: string } | string;
  value?: unknown;
  start: number;
  end: number;
}

/** The identifiers and literals of the tokens in [from, to), as the words a comment would spell them with. */
function words(tokens: readonly Token[], from: number, to: number): Set<string> {
  const found = new Set<string>();
  for (const token of tokens) {
    if (token.start < from || token.end > to || typeof token.type === 'string') continue;
    const { label, keyword } = token.type;
    if (keyword) continue;
    if (label === 'name' || label === 'privateName') {
      const name = String(token.value);
      // A one-letter name (`a`, `s`, `i`) is the learner's choice, and "a" in a sentence spells out nothing.
      if (!NOT_COUNTED.has(name) && name.length > 1) found.add(name);
    } else if (label === 'string' || label === 'template') {
      const text = String(token.value ?? '').trim();
      if (text.length >= MIN_LITERAL) found.add(`"${text}"`);
    }
  }
  return found;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * True when `comments` spell the word out: an identifier as a whole word; a literal as it is, and where it starts or
 * ends with a letter or digit, not as part of a longer word (`'read'` is not spelled out by "already").
 */
function spells(comments: string, word: string): boolean {
  if (!word.startsWith('"')) return new RegExp(`(^|[^\\w$#])${escape(word)}($|[^\\w$])`).test(comments);
  const literal = word.slice(1, -1);
  const before = /^\w/.test(literal) ? '(^|[^\\w])' : '';
  const after = /\w$/.test(literal) ? '($|[^\\w])' : '';
  return new RegExp(`${before}${escape(literal)}${after}`).test(comments);
}

/** Every stub of the solution, measured. */
export function dictation(root = ROOT): StubDictation[] {
  const src = path.join(root, 'solution/src');
  const out: StubDictation[] = [];
  for (const rel of listSources(src)) {
    const text = readFileSync(path.join(src, rel), 'utf8');
    const regions = parseRegions(text, rel);
    if (regions.length === 0) continue;
    const ast = parseSource(text);
    const lineStart = lineStarts(text);
    for (const region of regions) {
      const marker = lineStart[region.start]!;
      const bodyFrom = lineStart[region.start + 1 + region.steps.length]!;
      const bodyTo = lineStart[region.end]!;
      const doc = docComment(ast, marker);
      const seen = doc ? words(ast.tokens as Token[], doc.end, marker) : new Set<string>();
      const counted = [...words(ast.tokens as Token[], bodyFrom, bodyTo)].filter((word) => !seen.has(word));
      // The contract stub's one line ("Write it from the contract above…") is the same for every stub: not counted.
      const contractText = doc?.text ?? '';
      const guidedText = `${contractText}\n${region.steps.join('\n')}`;
      const spelled = counted.filter((word) => spells(contractText, word));
      const share = (comments: string) =>
        counted.length === 0 ? 0 : counted.filter((word) => spells(comments, word)).length / counted.length;
      out.push({
        chapter: region.chapter,
        name: region.name,
        where: `solution/src/${rel}:${region.start + 1}`,
        total: counted.length,
        contract: share(contractText),
        guided: share(guidedText),
        hasContract: doc !== undefined,
        spelled,
      });
    }
  }
  return out.sort((a, b) => a.chapter - b.chapter);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const pct = (share: number) => `${Math.round(share * 100)}%`.padStart(4);

/** One line per chapter and one for all: stubs, contract median and highest, guided median and highest. */
export function dictationLines(stubs: readonly StubDictation[]): string[] {
  const line = (label: string, list: readonly StubDictation[]) => {
    const contract = list.map((s) => s.contract);
    const guided = list.map((s) => s.guided);
    const over = list.filter((s) => s.contract > 0.6).length;
    const bare = list.filter((s) => !s.hasContract).length;
    return (
      `${label.padEnd(11)} ${String(list.length).padStart(3)} stubs   contract median ${pct(median(contract))}, ` +
      `highest ${pct(Math.max(...contract))}${over ? ` (${over} above 60%)` : ''}   guided median ` +
      `${pct(median(guided))}, highest ${pct(Math.max(...guided))}${bare ? `   ${bare} without a contract` : ''}`
    );
  };
  const chapters = [...new Set(stubs.map((s) => s.chapter))];
  return [
    ...chapters.map((n) =>
      line(
        `chapter ${n}`,
        stubs.filter((s) => s.chapter === n),
      ),
    ),
    line('all', stubs),
  ];
}

/** The words of a text, lower case, with code marks and punctuation dropped. */
const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}_$.]+/gu) ?? [];

/** The longest run of words `a` and `b` share, as text (empty when they share none). */
export function longestSharedRun(a: string, b: string): string {
  const x = wordsOf(a);
  const y = wordsOf(b);
  let best = 0;
  let end = 0;
  let previous = new Array<number>(y.length + 1).fill(0);
  for (let i = 1; i <= x.length; i++) {
    const row = new Array<number>(y.length + 1).fill(0);
    for (let j = 1; j <= y.length; j++)
      if (x[i - 1] === y[j - 1]) {
        row[j] = previous[j - 1]! + 1;
        if (row[j]! > best) [best, end] = [row[j]!, i];
      }
    previous = row;
  }
  return x.slice(end - best, end).join(' ');
}

/** A hint repeats its stub when it shares this many words in a row with the contract or the steps. */
export const REPEAT_WORDS = 8;

/**
 * Each English hint (idea, shape) that repeats its stub's contract or steps for REPEAT_WORDS words or more, with the
 * words: a hint must add something at its level, never the stub's own words again.
 */
export function repeatingHints(root = ROOT): string[] {
  const contracts = stubContracts(root, 'solution');
  const found: string[] = [];
  for (const chapter of [...new Set(dictation(root).map((s) => s.chapter))]) {
    const steps = stubSteps(root, chapter);
    for (const section of loadHints(root, chapter))
      for (const hint of section.hints) {
        if (hint.title === APPROACH) continue;
        for (const [what, text] of [
          ['contract', contracts.get(`chapter ${chapter}: ${section.stub}`) ?? ''],
          ['steps', steps.get(section.stub) ?? ''],
        ] as const) {
          const run = longestSharedRun(hint.text, text);
          if (run.split(' ').length >= REPEAT_WORDS)
            found.push(`chapter ${chapter}: ${section.stub}, ${hint.title} repeats its ${what}: "${run}"`);
        }
      }
  }
  return found;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { values, positionals } = parseScriptArgs('npm run dictation -- [--stubs | --hints] [chapterN...]', {
    options: { stubs: { type: 'boolean' }, hints: { type: 'boolean' } },
    allowPositionals: true,
  });
  const wanted = positionals.map((arg) => parseChapter(arg));
  const stubs = dictation().filter((s) => wanted.length === 0 || wanted.includes(s.chapter));
  if (values.hints) {
    for (const line of repeatingHints().filter(
      (l) => wanted.length === 0 || wanted.includes(Number(/\d+/.exec(l)![0])),
    ))
      console.log(line);
  } else if (values.stubs) {
    for (const s of [...stubs].sort((a, b) => b.contract - a.contract))
      console.log(
        `${pct(s.contract)} contract ${pct(s.guided)} guided  of ${String(s.total).padStart(2)}  chapter ${s.chapter}: ` +
          `${s.name}  (${s.where})${s.hasContract ? '' : '  NO CONTRACT ABOVE'}  ${s.spelled.join(' ')}`,
      );
  } else for (const line of dictationLines(stubs)) console.log(line);
}
