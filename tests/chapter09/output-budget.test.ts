import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { HookContext } from 'kit/hooks';
import { assistantText, assistantToolCalls, toolResult, type Message, type ToolResultMessage } from 'kit/messages';
import { OUTPUTS_DIR, outputBudget } from 'kit/output-budget';
import { defineTool } from 'kit/tool';
import { readTool } from 'kit/tools/read';
import { tempWorkspace } from '../helpers/workspace.js';
import { agentWith, ask, collect } from '../chapter07/fixtures.js';

const ctx: HookContext = { signal: new AbortController().signal, turn: 1, history: [], emit: () => {} };
const log = (lines: number) =>
  Array.from({ length: lines }, (_, i) => `line ${String(i + 1).padStart(4, '0')}`).join('\n');

async function budget(
  content: string,
  options: { maxChars: number; tailChars?: number; cwd?: string },
  id = 'call_1',
  isError = false,
) {
  const cwd = options.cwd ?? tempWorkspace().root;
  const hooks = outputBudget({ cwd, ...options });
  const result = toolResult({ id, name: 'bash' }, content, isError);
  const out =
    (await hooks.afterToolCall!({ type: 'tool_call', id, name: 'bash', arguments: {} }, result, ctx)) ?? result;
  return { out: out as ToolResultMessage, cwd };
}

describe('outputBudget.afterToolCall (src/output-budget.ts)', () => {
  test('a result within the budget is left exactly as it is, and no file is written; a budget under 1 is refused', async () => {
    const { out, cwd } = await budget('x'.repeat(100), { maxChars: 100 });
    expect(
      out.content,
      'outputBudget.afterToolCall: 100 characters fit a budget of 100 (only a result longer than maxChars is cut) (guided step 1)',
    ).toBe('x'.repeat(100));
    expect(existsSync(path.join(cwd, OUTPUTS_DIR)), 'outputBudget: nothing to keep, no file (guided step 1)').toBe(
      false,
    );
    for (const bad of [0, -10, 2.5]) {
      expect(() => outputBudget({ cwd: '.', maxChars: bad }), `outputBudget({ maxChars: ${bad} }) must throw`).toThrow(
        RangeError,
      );
    }
  });

  test('a long result keeps its head and tail, and the note says how much was cut of how much', async () => {
    const text = log(1000); // 9999 characters
    const { out } = await budget(text, { maxChars: 400, tailChars: 100 });
    expect(
      out.content.startsWith(text.slice(0, 300)),
      'outputBudget: the first maxChars - tailChars characters are kept (guided step 3)',
    ).toBe(true);
    expect(
      out.content.endsWith(text.slice(-100)),
      'outputBudget: the last tailChars characters are kept (guided step 3)',
    ).toBe(true);
    const note = out.content.slice(300, -100);
    expect(note, 'outputBudget: the note says how many characters were cut, of how many (guided step 3)').toMatch(
      new RegExp(`${text.length - 400}\\D.*${text.length}`),
    );
    expect(out.content.length, 'outputBudget: head + note + tail, the note short (guided step 3)').toBeLessThan(
      400 + 300,
    );
    expect(out, 'outputBudget: same id, name and isError (guided step 4)').toMatchObject({
      toolCallId: 'call_1',
      toolName: 'bash',
      isError: false,
    });
  });

  test('by default a quarter of the budget comes from the end', async () => {
    const text = log(500);
    const { out } = await budget(text, { maxChars: 200 });
    expect(
      out.content.startsWith(text.slice(0, 150)) && !out.content.startsWith(text.slice(0, 151)),
      'outputBudget: 150 characters of head for a budget of 200',
    ).toBe(true);
    expect(
      out.content.endsWith(`\n${text.slice(-50)}`),
      'outputBudget: the last 50 characters, on a line after the note',
    ).toBe(true);
  });

  test('tailChars 0 keeps only the head, and the note ends the text', async () => {
    const text = log(300);
    const { out } = await budget(text, { maxChars: 120, tailChars: 0 });
    expect(
      out.content.startsWith(text.slice(0, 120)),
      'outputBudget: all of the budget goes to the head (guided step 3)',
    ).toBe(true);
    // After the head (the first 12 lines), the note only: no line of the output, which reads "line 0013" on. The
    // note's own wording and whether a line break ends it are the learner's.
    const after = out.content.slice(120);
    expect(after.trim(), 'outputBudget: the note follows the head (guided step 3)').not.toBe('');
    expect(
      after,
      'outputBudget: with tailChars 0 no tail follows the note (a tail of content.slice(-tailChars) would be all of it: slice(-0) is slice(0)) (guided step 3)',
    ).not.toMatch(/line \d{4}/);
    expect(out.content.length, 'outputBudget: head and note only').toBeLessThan(120 + 250);
  });

  test('the whole text is kept in .agent/outputs/<call id>.txt, and the note names that file', async () => {
    const text = log(800);
    const { out, cwd } = await budget(text, { maxChars: 300 }, 'toolu_01ABC');
    const file = path.join(cwd, OUTPUTS_DIR, 'toolu_01ABC.txt');
    expect(
      existsSync(file),
      'outputBudget: the whole output goes to .agent/outputs/<call id>.txt (guided step 2)',
    ).toBe(true);
    expect(readFileSync(file, 'utf8'), 'outputBudget: the file holds the whole text, uncut (guided step 2)').toBe(text);
    expect(
      out.content,
      "outputBudget: the note gives the file's path relative to the workspace and says to use the read tool (guided step 3)",
    ).toMatch(/\.agent\/outputs\/toolu_01ABC\.txt.*read/);
  });

  test('the read tool can page through the kept output', async () => {
    const text = log(800);
    const { cwd } = await budget(text, { maxChars: 300 }, 'c9');
    const page = await readTool.execute({ path: `${OUTPUTS_DIR}/c9.txt`, offset: 500, limit: 2 }, { cwd });
    expect(
      page,
      'outputBudget: the file is inside the workspace, so read can show lines 500-501 of the whole output',
    ).toMatch(/line 0500[\s\S]*line 0501/);
  });

  test('a hostile call id cannot put the file outside the outputs folder', async () => {
    const { cwd } = await budget(log(300), { maxChars: 50 }, '../../../etc/evil');
    const files = readdirSync(path.join(cwd, OUTPUTS_DIR)).filter((name) => name !== '.gitignore');
    expect(
      files.length,
      'outputBudget: the model chose the id; outputFileName must keep it one plain file name (guided step 2)',
    ).toBe(1);
    expect(files[0], 'outputBudget: no path separators in the name').not.toMatch(/[/\\]/);
    expect(existsSync(path.join(cwd, '..', 'etc')), 'outputBudget: nothing written outside the workspace').toBe(false);
  });

  test('when the file cannot be written the result is still cut, and the note says the text could not be kept', async () => {
    const { root } = tempWorkspace();
    writeFileSync(path.join(root, '.agent'), 'a file where the folder should be');
    const { out } = await budget(log(300), { maxChars: 100, cwd: root });
    expect(out.content.length, 'outputBudget: the cut happens even when writing failed (guided step 3)').toBeLessThan(
      400,
    );
    expect(out.content, 'outputBudget: say the whole output could not be kept, and why (guided step 3)').toMatch(
      /could not be kept/,
    );
    expect(out.content, 'outputBudget: do not name a file that does not exist').not.toMatch(/read it with/);
  });

  test('an error result is cut too, and stays an error', async () => {
    const { out } = await budget(`Error: ${log(300)}`, { maxChars: 100 }, 'e1', true);
    expect([out.isError, out.content.length < 400], 'outputBudget: isError is kept (guided step 4)').toEqual([
      true,
      true,
    ]);
  });

  test('in a run, the model is sent the cut output and the history stays valid', async () => {
    const { root } = tempWorkspace();
    const big = defineTool({
      name: 'cat_log',
      description: 'prints a long log',
      input: z.object({}),
      readOnly: true,
      execute: async () => log(2000),
    });
    const { agent, provider } = agentWith(
      [assistantToolCalls([{ id: 'k1', name: 'cat_log', arguments: {} }]), assistantText('seen')],
      {
        extraTools: [big],
        hooks: outputBudget({ cwd: root, maxChars: 1000 }),
      },
    );
    const history: Message[] = ask('show the log');
    await collect(agent.run(history));
    const sent = provider.requests[1]!.messages.at(-1) as ToolResultMessage;
    expect(
      sent.content.length,
      'outputBudget: the model gets about maxChars characters, not the whole log',
    ).toBeLessThan(1200);
    expect(readFileSync(path.join(root, OUTPUTS_DIR, 'k1.txt'), 'utf8'), 'outputBudget: the whole log is on disk').toBe(
      log(2000),
    );
    expect(history).toBeValidHistory('after a cut result');
  });
});
