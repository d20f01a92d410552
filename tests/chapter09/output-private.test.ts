/**
 * Chapter 9: the whole outputs are the agent's own files, not the project's (src/output-budget.ts). They must not
 * reach a commit (`git add -A`), must not go through a link the repository put in the way (even one that stays
 * inside the workspace: `.agent -> src` would write into the sources), must be readable by their owner only, and
 * hold no credential the caller asked to scrub.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { HookContext } from 'kit/hooks';
import { toolResult, type ToolResultMessage } from 'kit/messages';
import { OUTPUTS_DIR, outputBudget } from 'kit/output-budget';
import { tempWorkspace } from '../helpers/workspace.js';

const ctx: HookContext = { signal: new AbortController().signal, turn: 1, history: [], emit: () => {} };
const SECRET = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789';

async function cut(
  cwd: string,
  content: string,
  options: { redact?: (text: string) => string; id?: string } = {},
): Promise<string> {
  const id = options.id ?? 'call_1';
  const hooks = outputBudget({ cwd, maxChars: 100, ...(options.redact ? { redact: options.redact } : {}) });
  const result = toolResult({ id, name: 'bash' }, content, false);
  const out =
    (await hooks.afterToolCall!({ type: 'tool_call', id, name: 'bash', arguments: {} }, result, ctx)) ?? result;
  return (out as ToolResultMessage).content;
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

describe('outputBudget keeps its files private (src/output-budget.ts)', () => {
  test('the kept output is ignored by git: `git add -A` in the workspace commits nothing of .agent', async () => {
    const { root } = tempWorkspace({ 'README.md': 'hello\n' });
    git(root, 'init', '-q');
    const content = await cut(root, `${'x'.repeat(3000)}\n`);
    expect(content, 'outputBudget: the note names the kept file (guided step 3)').toMatch(
      /\.agent\/outputs\/call_1\.txt/,
    );
    git(root, 'add', '-A');
    const staged = git(root, 'diff', '--cached', '--name-only').trim().split('\n');
    expect(
      staged,
      'saveWholeOutput: the outputs folder holds a .gitignore of `*`, so git never sees the whole outputs',
    ).toEqual(['README.md']);
    expect(readFileSync(path.join(root, OUTPUTS_DIR, '.gitignore'), 'utf8')).toBe('*\n');
  });

  test('a .agent that links to a folder inside the workspace is refused too: nothing lands in the sources', async () => {
    const { root } = tempWorkspace({ 'src/main.ts': 'export {};\n' });
    symlinkSync('src', path.join(root, '.agent'));
    const content = await cut(root, 'y'.repeat(5000));
    expect(
      readdirSync(path.join(root, 'src')),
      'saveWholeOutput: a .agent that is a link is refused wherever it leads (here into src/)',
    ).toEqual(['main.ts']);
    expect(content, 'outputBudget: the note says the whole output could not be kept (guided step 3)').toMatch(
      /could not be kept/,
    );
  });

  test('an outputs folder that is a link is refused, and so is a .gitignore that is one', async () => {
    const { root, outside } = tempWorkspace({ 'docs/a.md': 'a\n' });
    mkdirSync(path.join(root, '.agent'));
    symlinkSync('../docs', path.join(root, OUTPUTS_DIR));
    await cut(root, 'z'.repeat(5000));
    expect(readdirSync(path.join(root, 'docs')), 'saveWholeOutput: .agent/outputs that is a link is refused').toEqual([
      'a.md',
    ]);

    const second = tempWorkspace();
    mkdirSync(path.join(second.root, OUTPUTS_DIR), { recursive: true });
    symlinkSync(path.join(second.outside, 'secret.txt'), path.join(second.root, OUTPUTS_DIR, '.gitignore'));
    const content = await cut(second.root, 'w'.repeat(5000));
    expect(
      readFileSync(path.join(second.outside, 'secret.txt'), 'utf8'),
      'saveWholeOutput: nothing is written through a .gitignore that is a link',
    ).toBe('top secret\n');
    expect(content, 'outputBudget: the note says the whole output could not be kept (guided step 3)').toMatch(
      /could not be kept/,
    );
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });

  test('the kept file is scrubbed by redact, while the model still reads the head and tail as they were', async () => {
    const { root } = tempWorkspace();
    const text = `token=${SECRET}\n${'log line\n'.repeat(400)}last token=${SECRET}\n`;
    const content = await cut(root, text, { redact: (t) => t.split(SECRET).join('[REDACTED]') });
    const kept = readFileSync(path.join(root, OUTPUTS_DIR, 'call_1.txt'), 'utf8');
    expect(
      kept.includes(SECRET),
      'outputBudget: keep redact(content), not the content itself: a credential must not be written to disk (guided step 2)',
    ).toBe(false);
    expect(kept, 'outputBudget: the rest of the text is kept whole (guided step 2)').toBe(
      text.split(SECRET).join('[REDACTED]'),
    );
    expect(
      content.startsWith(text.slice(0, 75)),
      'outputBudget: the head the model reads is not scrubbed (guided step 3)',
    ).toBe(true);
  });

  test('the kept file is readable by its owner only, in folders only its owner can open', async () => {
    const { root } = tempWorkspace();
    await cut(root, 'v'.repeat(5000));
    const mode = (file: string) => statSync(path.join(root, file)).mode & 0o777;
    expect(mode(`${OUTPUTS_DIR}/call_1.txt`).toString(8), 'saveWholeOutput: the file is created 0600').toBe('600');
    expect(mode(OUTPUTS_DIR).toString(8), 'saveWholeOutput: .agent/outputs is made 0700').toBe('700');
    expect(mode('.agent').toString(8), 'saveWholeOutput: .agent is made 0700').toBe('700');
  });

  test('a .gitignore of its own that does not ignore everything: nothing is kept, and the note says why', async () => {
    const { root } = tempWorkspace();
    mkdirSync(path.join(root, OUTPUTS_DIR), { recursive: true });
    writeFileSync(path.join(root, OUTPUTS_DIR, '.gitignore'), '*.log\n');
    const content = await cut(root, 'u'.repeat(5000));
    expect(readdirSync(path.join(root, OUTPUTS_DIR)), 'saveWholeOutput: no output next to that .gitignore').toEqual([
      '.gitignore',
    ]);
    expect(content, 'outputBudget: the note says the whole output could not be kept, and why (guided step 3)').toMatch(
      /could not be kept.*ignore/,
    );
  });
});
