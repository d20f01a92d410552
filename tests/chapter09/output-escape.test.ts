/**
 * Chapter 9: the output budget writes into the workspace (src/output-budget.ts). A `.agent` folder that is a link
 * out of the workspace, and a call id the model chose to match an existing file, must not let it write elsewhere
 * or replace anything.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { HookContext } from 'kit/hooks';
import { toolResult, type ToolResultMessage } from 'kit/messages';
import { OUTPUTS_DIR, outputBudget } from 'kit/output-budget';
import { tempWorkspace } from '../helpers/workspace.js';

const ctx: HookContext = { signal: new AbortController().signal, turn: 1, history: [], emit: () => {} };

async function cut(cwd: string, id: string, content: string): Promise<string> {
  const hooks = outputBudget({ cwd, maxChars: 100 });
  const result = toolResult({ id, name: 'bash' }, content, false);
  const out =
    (await hooks.afterToolCall!({ type: 'tool_call', id, name: 'bash', arguments: {} }, result, ctx)) ?? result;
  return (out as ToolResultMessage).content;
}

describe('outputBudget keeps its files inside the workspace (src/output-budget.ts)', () => {
  test('.agent linked out of the workspace: nothing is written there, the result is still cut, and the note says the output was not kept', async () => {
    const { root } = tempWorkspace();
    const outside = path.join(path.dirname(root), `outside-${path.basename(root)}`);
    mkdirSync(outside, { recursive: true });
    symlinkSync(outside, path.join(root, '.agent'));
    const content = await cut(root, 'call_1', 'y'.repeat(5000));
    expect(
      readdirSync(outside),
      'outputBudget: use saveWholeOutput, which checks the folder like the write tool: nothing may be created through the link (guided step 2)',
    ).toEqual([]);
    expect(content.length, 'outputBudget: the cut still happens (guided step 3)').toBeLessThan(1000);
    expect(content, 'outputBudget: the note says the whole output could not be kept (guided step 3)').toMatch(
      /could not be kept/,
    );
  });

  test('a call id the model reuses never replaces an earlier output', async () => {
    const { root } = tempWorkspace();
    mkdirSync(path.join(root, OUTPUTS_DIR), { recursive: true });
    writeFileSync(path.join(root, OUTPUTS_DIR, 'notes.txt'), 'KEEP ME');
    const content = await cut(root, 'notes', 'z'.repeat(5000));
    expect(
      readFileSync(path.join(root, OUTPUTS_DIR, 'notes.txt'), 'utf8'),
      'outputBudget: an existing file named like the id is not replaced (saveWholeOutput picks a free name) (guided step 2)',
    ).toBe('KEEP ME');
    const named = /(\.agent\/outputs\/[\w.-]+)/.exec(content)?.[1];
    expect(
      named,
      `outputBudget: the note names the file saveWholeOutput returned (got: ${content.slice(100, 300)}) (guided step 3)`,
    ).toBe(`${OUTPUTS_DIR}/notes-2.txt`);
    expect(
      existsSync(path.join(root, named!)) && readFileSync(path.join(root, named!), 'utf8'),
      'outputBudget: the whole output is in the file the note names (guided step 2)',
    ).toBe('z'.repeat(5000));
  });
});
