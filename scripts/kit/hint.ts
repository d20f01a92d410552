/** npm run hint -- chapter3 [--reset]: the next hint for the first unfinished stub of a chapter. */
import { chapterArg, chaptersWithTests } from './args.js';
import { loadHints, nextHint, resetHintState, hintsFile } from './hints.js';
import { firstIncomplete } from './progress.js';
import { runTests, type TestOutcome } from './run-tests.js';
import { assignStubs, chapterStubs, firstUnfinished, learnerStubs, likelyChapter } from './stubs.js';
import { bold, cyan, dim, indent } from './ui.js';
import path from 'node:path';

const LEVEL_NAMES = ['a nudge', 'the approach', 'the shape of the code'];

/** The text of the next hint for the chapter (and records that it was shown). `known`: the chapter's results, if run. */
export async function hintText(root: string, chapter: number, known?: readonly TestOutcome[]): Promise<string> {
  const sections = loadHints(root, chapter);
  if (sections.length === 0) {
    return `Chapter ${chapter} has no hints yet (${path.relative(root, hintsFile(root, chapter))} is missing).`;
  }
  const stubs = chapterStubs(root, chapter);
  const tests = known ?? (await runTests({ root, chapters: [chapter] })).tests;
  const next = firstUnfinished(stubs, tests);
  if (!next) {
    const failing = tests.filter((t) => t.status === 'failed');
    if (failing.length === 0) return `Every stub of chapter ${chapter} is written and its ${tests.length} tests pass. On to chapter ${chapter + 1}!`;
    return `Every stub of chapter ${chapter} has a body, but ${failing.length} test(s) still fail, e.g.\n  ${failing[0]!.fullName}\n  ${failing[0]!.message.split('\n')[0]}`;
  }
  // The stub its first failing test points at, over every chapter's stubs, as npm run watch shows it (watch.ts
  // focusStub): the chapter's first unfinished stub unless that failure was traced to another stub (a bug in a
  // stub written earlier, maybe of an earlier chapter, that this one calls).
  const pointed = next.failing[0] && assignStubs(tests, learnerStubs(root)).get(next.failing[0]);
  const stub = pointed ?? next.stub;
  const section = (stub.chapter === chapter ? sections : loadHints(root, stub.chapter)).find((s) => s.stub === stub.name);
  const where = `${stub.file}:${stub.line}`;
  if (!section || section.hints.length === 0) return `No hints are written for ${stub.name} (${where}) yet.`;
  const shown = nextHint(root, stub.chapter, stub.name, section.hints)!;
  const total = section.hints.length;
  const lines = [
    bold(`Chapter ${stub.chapter} · ${stub.name}`) + dim(`  (${where})`),
    `${cyan(`Hint ${shown.level} of ${total}: ${shown.hint.title}`)}`,
    '',
    indent(shown.hint.text, '  '),
    '',
  ];
  if (next.failing[0]) lines.push(dim(`Failing: ${next.failing[0].fullName}`), dim(`  ${next.failing[0].message.split('\n')[0]}`), '');
  lines.push(
    shown.level < total
      ? dim(`Run "npm run hint -- chapter${chapter}" again for ${LEVEL_NAMES[shown.level] ?? 'the next hint'}.`)
      : dim(`That was the last hint for ${stub.name}. "npm run solution -- chapter${stub.chapter}" shows the reference.`),
  );
  return lines.join('\n');
}

export async function hintCommand(root: string, args: string[]): Promise<number> {
  const chapter = chapterArg(root, args) ;
  if (args.includes('--reset')) {
    resetHintState(root, chapter);
    console.log(chapter ? `Hints for chapter ${chapter} start over.` : 'Hints for every chapter start over.');
    return 0;
  }
  if (chapter !== undefined) {
    console.log(await hintText(root, chapter));
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
  console.log(await hintText(root, target, target <= upTo ? tests.filter((t) => t.chapter === target) : undefined));
  return 0;
}
