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
          commands.push({ file: `book/src/${file}`, line: index + 1, args: shellWords(command, { inProse: true }) });
        }
      });
  }
  return commands;
}

/**
 * Splits a command line as a shell would for plain words and '...' or "..." quoting. `inProse`: the command is quoted
 * in a sentence, so an unquoted word that ends with "," or ")" ends it ("(npm test -- chapter4, npm run hint ...)").
 */
export function shellWords(command: string, { inProse = false } = {}): string[] {
  const words: string[] = [];
  for (const match of command.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) {
    if (inProse && match[3] && /[,)]$/.test(match[3])) {
      const word = match[3].replace(/[,)]+$/, '');
      if (word) words.push(word);
      break;
    }
    words.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3]!));
  }
  return words;
}
