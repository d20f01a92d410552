/**
 * Known-wrong solutions: plausible mistakes a learner might make, kept beside each chapter's tests as
 * tests/chapterNN/wrong/<slug>.txt. verify applies each to the solution and requires a graded test to catch it.
 *
 *   region: chapter 3: SimpleAgent.chat
 *   expect: /only 1|model call number 2/     (substring or /regex/ a failure message must match)
 *   why: stops after the first tool round
 *   ---
 *   <replacement body for the region>
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface WrongSolution {
  chapter: number;
  slug: string;
  file: string;
  region: string;
  expect: RegExp;
  why: string;
  body: string[];
}

export function loadWrongSolutions(root: string, chapter: number): WrongSolution[] {
  const dir = path.join(root, `tests/chapter${String(chapter).padStart(2, '0')}/wrong`);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.txt'))
    .sort()
    .map((name) => parseWrongSolution(readFileSync(path.join(dir, name), 'utf8'), chapter, path.join(dir, name)));
}

export function parseWrongSolution(text: string, chapter: number, file: string): WrongSolution {
  const [head, ...rest] = text.split(/^---\s*$/m);
  if (rest.length === 0) throw new Error(`${file}: no "---" line between the header and the code`);
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s*(.+)$`, 'm').exec(head!);
    if (!match) throw new Error(`${file}: missing "${name}:" line`);
    return match[1]!.trim();
  };
  const expectText = field('expect');
  const regex = /^\/(.*)\/([a-z]*)$/.exec(expectText);
  const body = rest.join('---').replace(/^\n/, '').replace(/\n+$/, '').split('\n');
  return {
    chapter,
    slug: path.basename(file, '.txt'),
    file,
    region: field('region'),
    // Without g and y: a RegExp with either keeps a lastIndex between test() calls, so whether a message matched
    // would depend on the messages tried before it (verify tries every failing test's messages).
    expect: regex
      ? new RegExp(regex[1]!, regex[2]!.replace(/[gy]/g, ''))
      : new RegExp(expectText.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
    why: field('why'),
    body,
  };
}
