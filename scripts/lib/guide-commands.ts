/** The `npm test -- ...` commands quoted in the guide, for verify to check that each selects tests. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { bookSrc } from './guide-pages.js';
import { ROOT } from './paths.js';

export interface GuideTestCommand {
  /** The page, relative to the repository root. */
  file: string;
  /** 1-based line. */
  line: number;
  /** What follows `npm test --`, split on spaces. */
  args: string[];
}

/** Every `npm test -- ...` command in the guide (prose or code), in file and line order. */
export function guideTestCommands(root = ROOT): GuideTestCommand[] {
  const dir = bookSrc(root);
  if (!existsSync(dir)) return [];
  const commands: GuideTestCommand[] = [];
  const files = readdirSync(dir, { recursive: true })
    .map((f) => String(f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.md'))
    .sort();
  for (const file of files) {
    readFileSync(path.join(dir, file), 'utf8')
      .split('\n')
      .forEach((text, index) => {
        for (const match of text.matchAll(/npm test -- ([^`\n]*)/g)) {
          const command = match[1]!.replace(/\s#.*$/, '').replace(/\s*(&&|\||;).*$/, '');
          commands.push({ file: `book/src/${file}`, line: index + 1, args: shellWords(command) });
        }
      });
  }
  return commands;
}

/** Splits a command line as a shell would for plain words and '...' or "..." quoting. */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  for (const match of command.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) {
    words.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3]!));
  }
  return words;
}
