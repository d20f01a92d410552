import { describe, expect, test } from 'vitest';
import type { AgentEvent, TodoItem } from 'kit/agent-events';
import {
  editDiff,
  plainStyle,
  Renderer,
  resultLines,
  styleFor,
  summarizeArguments,
  todoLines,
  usageLine,
} from 'kit/capstone/render';
import { Agent } from 'kit/agent';
import { assistantText, assistantToolCalls, userMessage, type Message } from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import { createTaskTool } from 'kit/planning/task';
import { todoWriteTool } from 'kit/planning/todo-list';
import { ToolSet } from 'kit/tool';
import { collect, CWD, ev, renderEach, standInTools, started, tagStyle } from './render-fixtures.js';

const plain = (options: { model?: string; width?: number } = {}) =>
  new Renderer({ style: plainStyle, cwd: CWD, ...options });
const tagged = (options: { model?: string } = {}) => new Renderer({ style: tagStyle, cwd: CWD, ...options });
const task = (content: string, status: TodoItem['status'], activeForm?: string): TodoItem => ({
  content,
  status,
  ...(activeForm ? { activeForm } : {}),
});

describe('summarizeArguments (src/capstone/render-lines.ts)', () => {
  test('the main argument stands for the call: the command, the pattern, the url or the path', () => {
    expect(
      summarizeArguments({ path: `${CWD}/src/app.ts` }, CWD),
      'summarizeArguments: a path inside the workspace is shown relative to it (guided step 2)',
    ).toBe('src/app.ts');
    expect(
      summarizeArguments({ path: 'src/app.ts', offset: 10 }, CWD),
      'summarizeArguments: a relative path stays as it is, and the other keys are left out (guided step 2)',
    ).toBe('src/app.ts');
    expect(
      summarizeArguments({ path: '/etc/passwd' }, CWD),
      'summarizeArguments: a path outside the workspace is shown as written (guided step 2)',
    ).toBe('/etc/passwd');
    expect(
      summarizeArguments({ command: 'npm test\n   -- --run', timeout_ms: 5000 }, CWD),
      'summarizeArguments: a command on one line (guided step 2)',
    ).toBe('npm test -- --run');
    expect(
      summarizeArguments({ path: 'src', pattern: 'TODO' }, CWD),
      'summarizeArguments: the pattern comes before the path (grep, glob) (guided step 2)',
    ).toBe('TODO');
    expect(
      summarizeArguments({ path: 'a.html', url: 'https://example.com/a' }, CWD),
      'summarizeArguments: the url comes before the path (guided step 2)',
    ).toBe('https://example.com/a');
    expect(
      summarizeArguments({ command: 'x'.repeat(100) }, CWD, 20),
      'summarizeArguments: clipped to max, an ellipsis last (guided step 2)',
    ).toBe(`${'x'.repeat(19)}…`);
  });

  test('without a main argument, the keys as `key: value`: lists and objects by their size; anything but an object as JSON', () => {
    expect(
      summarizeArguments(
        { todos: [{}, {}, {}], description: 'look around', deep: { a: 1 }, n: 3, flag: true },
        CWD,
        100,
      ),
      'summarizeArguments guided step 3',
    ).toBe('todos: [3 items], description: "look around", deep: {…}, n: 3, flag: true');
    expect(
      summarizeArguments({ one: ['a'], path: 42 }, CWD),
      'summarizeArguments: `[1 item]`, and a path that is not a string is not a main argument (guided step 3)',
    ).toBe('one: [1 item], path: 42');
    expect(
      summarizeArguments({ prompt: 'a'.repeat(50) }, CWD),
      'summarizeArguments: a string value is clipped to 30 characters, then quoted (guided step 3)',
    ).toBe(`prompt: "${'a'.repeat(29)}…"`);
    expect(
      summarizeArguments({ a: 'x'.repeat(20), b: 'y'.repeat(20) }, CWD, 30),
      'summarizeArguments: the pairs clipped to max as a whole (guided step 3)',
    ).toHaveLength(30);
    expect(summarizeArguments({}, CWD), 'summarizeArguments: no keys, nothing (guided step 3)').toBe('');
    expect(
      summarizeArguments('{"path": "a', CWD),
      'summarizeArguments: arguments that failed to parse, as JSON (guided step 1)',
    ).toBe('"{\\"path\\": \\"a"');
    expect(summarizeArguments(null, CWD), 'summarizeArguments: null (guided step 1)').toBe('null');
    expect(
      summarizeArguments(undefined, CWD),
      'summarizeArguments: no arguments at all (JSON.stringify gives undefined) (guided step 1)',
    ).toBe('undefined');
    expect(
      summarizeArguments(['a', 'b'], CWD),
      'summarizeArguments: a list is not an object of arguments (guided step 1)',
    ).toBe('["a","b"]');
  });
});

describe('resultLines (src/capstone/render-lines.ts)', () => {
  test('at most four lines of output, then how many were left out', () => {
    expect(
      resultLines('a\nb\nc\nd\ne\nf\n', false),
      'resultLines: the first four lines and `… +2 lines` (guided steps 2-4)',
    ).toEqual(['  ⎿ ok', '    a', '    b', '    c', '    d', '    … +2 lines']);
    expect(
      resultLines('a\nb\nc\nd\ne', false),
      'resultLines: one line left out is `… +1 line` (guided step 4)',
    ).toEqual(['  ⎿ ok', '    a', '    b', '    c', '    d', '    … +1 line']);
    expect(resultLines('a\nb\nc\nd\n', false), 'resultLines: nothing left out, no `…` line (guided step 4)').toEqual([
      '  ⎿ ok',
      '    a',
      '    b',
      '    c',
      '    d',
    ]);
    expect(resultLines('a\nb\nc', false, { max: 2 }), 'resultLines: max lines when given (guided step 3)').toEqual([
      '  ⎿ ok',
      '    a',
      '    b',
      '    … +1 line',
    ]);
  });

  test('an error says so, an empty output says so, and long lines are clipped to the width', () => {
    expect(resultLines('boom\n', true), 'resultLines: `⎿ error` for an error result (guided step 2)').toEqual([
      '  ⎿ error',
      '    boom',
    ]);
    expect(resultLines('', false), 'resultLines: `(no output)` for an empty output (guided step 2)').toEqual([
      '  ⎿ ok (no output)',
    ]);
    expect(resultLines('\n\n', false), 'resultLines: new lines alone are no output (guided step 1)').toEqual([
      '  ⎿ ok (no output)',
    ]);
    expect(
      resultLines('abcdefghijklmnop', false, { width: 12 }),
      'resultLines: indented, then clipped to the width (guided step 3)',
    ).toEqual(['  ⎿ ok', '    abcdefg…']);
  });

  test('ok output is dim and an error red, painted after clipping', () => {
    expect(resultLines('a', false, { style: tagStyle }), 'resultLines: ok is dim (guided step 5)').toEqual([
      '[dim]  ⎿ ok[/dim]',
      '[dim]    a[/dim]',
    ]);
    expect(
      resultLines('no such file', true, { style: tagStyle }),
      'resultLines: an error is red (guided step 5)',
    ).toEqual(['[red]  ⎿ error[/red]', '[red]    no such file[/red]']);
    expect(
      resultLines('abcdefghijklmnop', false, { style: tagStyle, width: 12 })[1],
      'resultLines: clip first, then paint (guided step 5)',
    ).toBe('[dim]    abcdefg…[/dim]');
  });
});

describe('editDiff (src/capstone/render-lines.ts)', () => {
  test('an edit shows the lines it replaced and the new ones; a write only the new ones', () => {
    const edit = { path: 'a.ts', old_string: 'const a = 1;\nconst b = 2;', new_string: 'const a = 10;\n' };
    expect(editDiff('edit', edit), 'editDiff: `- old` lines, then `+ new` lines (guided step 3)').toEqual([
      '    - const a = 1;',
      '    - const b = 2;',
      '    + const a = 10;',
    ]);
    expect(
      editDiff('edit', edit, { style: tagStyle }),
      'editDiff: old lines red, new lines green (guided step 3)',
    ).toEqual(['[red]    - const a = 1;[/red]', '[red]    - const b = 2;[/red]', '[green]    + const a = 10;[/green]']);
    expect(
      editDiff('write', { path: 'notes.md', content: '# Notes\n\nSee below.\n' }),
      'editDiff: a write has `+` lines only (guided step 3)',
    ).toEqual(['    + # Notes', '    + ', '    + See below.']);
    expect(
      editDiff('write', { path: 'empty.txt', content: '' }),
      'editDiff: an empty file has no lines (guided step 2)',
    ).toEqual([]);
  });

  test('each side is cut at max lines; other tools and arguments without the texts have no diff', () => {
    const old = ['1', '2', '3', '4', '5', '6'].join('\n');
    expect(
      editDiff('edit', { path: 'a', old_string: old, new_string: 'x' }, { style: tagStyle }),
      'editDiff: four old lines, `… +2 lines` (dim), then the new side (guided step 4)',
    ).toEqual([
      '[red]    - 1[/red]',
      '[red]    - 2[/red]',
      '[red]    - 3[/red]',
      '[red]    - 4[/red]',
      '[dim]    … +2 lines[/dim]',
      '[green]    + x[/green]',
    ]);
    expect(
      editDiff('edit', { path: 'a', old_string: 'abcdefghij', new_string: 'x' }, { width: 10 })?.[0],
      'editDiff: clipped to the width (guided step 4)',
    ).toBe('    - abc…');
    expect(
      editDiff('read', { path: 'a', content: 'x' }),
      'editDiff: no diff for other tools (guided step 1)',
    ).toBeUndefined();
    expect(
      editDiff('edit', { path: 'a', old_string: 1, new_string: 'x' }),
      'editDiff: an old_string that is not a string (guided step 1)',
    ).toBeUndefined();
    expect(editDiff('write', 'junk'), 'editDiff: arguments that are not an object (guided step 1)').toBeUndefined();
    expect(editDiff('edit', null), 'editDiff: null arguments (guided step 1)').toBeUndefined();
    expect(
      editDiff('edit', undefined),
      'editDiff: no arguments at all (a call never seen), no diff and no error (guided step 1)',
    ).toBeUndefined();
    expect(
      editDiff('edit', { path: 'a', old_string: 'x' }),
      'editDiff: an edit without new_string (guided step 1)',
    ).toBeUndefined();
    expect(
      editDiff('bash', { path: 'a', old_string: 'x', new_string: 'y' }),
      'editDiff: only edit and write have a diff, whatever the arguments hold (guided step 1)',
    ).toBeUndefined();
  });

  test('every trailing new line is dropped, and a side of exactly max lines is shown whole', () => {
    expect(
      editDiff('write', { path: 'a', content: 'one\n\n\n' }),
      'editDiff: all the trailing new lines dropped, not only the last (guided step 2)',
    ).toEqual(['    + one']);
    expect(
      editDiff('write', { path: 'a', content: '1\n2\n3\n4' }),
      'editDiff: exactly max (4) lines: all of them, no `… +0 lines` (guided step 4)',
    ).toEqual(['    + 1', '    + 2', '    + 3', '    + 4']);
    expect(
      editDiff('edit', { path: 'a', old_string: 'a\nb', new_string: 'c' }, { max: 2 }),
      'editDiff: exactly max lines (max: 2): nothing left out (guided step 4)',
    ).toEqual(['    - a', '    - b', '    + c']);
  });
});

describe('todoLines (src/capstone/render-lines.ts)', () => {
  test('one line per task with its mark; the task in progress shows what is being done', () => {
    const list = [
      task('Read the code', 'completed'),
      task('Run the tests', 'in_progress', 'Running the tests'),
      task('Fix the bug', 'pending'),
    ];
    expect(todoLines(list), 'todoLines guided steps 2-3').toEqual([
      '  ☒ Read the code',
      '  ◐ Running the tests',
      '  ☐ Fix the bug',
    ]);
    expect(
      todoLines([task('Run the tests', 'in_progress')]),
      'todoLines: no activeForm, the content (guided step 3)',
    ).toEqual(['  ◐ Run the tests']);
    expect(todoLines([]), 'todoLines: an empty list (guided step 1)').toEqual(['  (no tasks)']);
  });

  test('the task in progress is bold and a completed one dim; the marks are not painted', () => {
    const list = [
      task('Read the code', 'completed'),
      task('Run the tests', 'in_progress', 'Running the tests'),
      task('Fix the bug', 'pending'),
    ];
    expect(todoLines(list, tagStyle), 'todoLines guided step 3').toEqual([
      '  ☒ [dim]Read the code[/dim]',
      '  ◐ [bold]Running the tests[/bold]',
      '  ☐ Fix the bug',
    ]);
    expect(todoLines([], tagStyle), 'todoLines: dim (guided step 1)').toEqual(['[dim]  (no tasks)[/dim]']);
  });
});

describe('usageLine (src/capstone/render-lines.ts)', () => {
  test("the counts with thousands separators, the cache counts when there are some, and the cost at the model's price", () => {
    expect(
      usageLine({ inputTokens: 1200, outputTokens: 300 }, 'claude-sonnet-4-5'),
      'usageLine: $3 and $15 a million tokens (guided steps 1 and 3)',
    ).toBe('↑ 1,200 in · ↓ 300 out · $0.0081');
    expect(
      usageLine(
        { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 5000, cacheWriteTokens: 800 },
        'claude-sonnet-4-5-20250929',
      ),
      'usageLine: cache counts, priced too (guided step 2)',
    ).toBe('↑ 1,200 in · ↓ 300 out · 5,000 cache read · 800 cache write · $0.0126');
  });

  test('a model without a price has an unknown cost, never $0', () => {
    expect(
      usageLine({ inputTokens: 1200, outputTokens: 300 }, 'offline'),
      'usageLine: formatCost(undefined) (guided step 3)',
    ).toBe('↑ 1,200 in · ↓ 300 out · cost unknown');
    expect(usageLine({ inputTokens: 0, outputTokens: 0 }), 'usageLine: no model at all (guided step 3)').toBe(
      '↑ 0 in · ↓ 0 out · cost unknown',
    );
    expect(
      usageLine({ inputTokens: 5, outputTokens: 1, cacheReadTokens: 0 }),
      'usageLine: a cache count of 0 is still shown (guided step 2)',
    ).toBe('↑ 5 in · ↓ 1 out · 0 cache read · cost unknown');
  });
});

describe('Renderer.render (src/capstone/render.ts)', () => {
  test('streamed text is written as it comes, and the next line starts on a line of its own', () => {
    const out = renderEach(plain(), [
      ev.text('Let me look'),
      ev.text(' at it.'),
      ...started('c1', 'read', { path: 'src/app.ts' }),
      ev.result('c1', 'read', 'one\ntwo\n'),
      ev.text('It has two lines.'),
      ev.done('end_turn', { inputTokens: 10, outputTokens: 5 }),
    ]);
    expect(out.slice(0, 2), 'Renderer.render: text deltas as they are, no new line added (guided step 2)').toEqual([
      'Let me look',
      ' at it.',
    ]);
    expect(out[2], 'Renderer.render: a requested call shows nothing yet (guided step 2)').toBe('');
    expect(
      out[3],
      'Renderer.render: the text left the cursor mid-line, so the call line starts with "\\n" (guided step 1)',
    ).toBe('\n● read(src/app.ts)\n');
    expect(
      out[4],
      'Renderer.render: after whole lines the cursor is at a line start: no "\\n" first (guided step 1)',
    ).toBe('  ⎿ ok\n    one\n    two\n');
    expect(out[5], "Renderer.render: the answer after the call's lines, at a line start (guided step 2)").toBe(
      'It has two lines.',
    );
    expect(out[6], 'Renderer.render: a new line after the answer, then the usage (guided step 5)').toBe(
      '\n↑ 10 in · ↓ 5 out · cost unknown\n',
    );
    const ended = renderEach(plain(), [ev.text('Done.\n'), ev.done('end_turn')]);
    expect(
      ended[1],
      'Renderer.render: a text that ends with "\\n" leaves the cursor at a line start: no blank line (guided step 2)',
    ).toBe('↑ 0 in · ↓ 0 out · cost unknown\n');
  });

  test('thinking is dimmed under one header per turn, and the answer starts on a new line', () => {
    const out = renderEach(tagged(), [
      ev.turn(1),
      ev.thinking('Hmm, '),
      ev.thinking('the file.'),
      ev.text('Answer'),
      ev.turn(2),
      ev.thinking('again', 2),
      ev.thinking(' more', 2),
      ev.text('!', 2),
    ]);
    expect(out[1], 'Renderer.render: the header line once, then the thought, dimmed (guided step 3)').toBe(
      '[dim]✻ Thinking…[/dim]\n[dim]Hmm, [/dim]',
    );
    expect(out[2], 'Renderer.render: no second header in the same turn (guided step 3)').toBe('[dim]the file.[/dim]');
    expect(out[3], 'Renderer.render: after thinking, the answer on a new line (guided step 2)').toBe('\nAnswer');
    expect(out[5], 'Renderer.render: a new turn has its own header, on a new line (guided step 3)').toBe(
      '\n[dim]✻ Thinking…[/dim]\n[dim]again[/dim]',
    );
    expect(out[6], 'Renderer.render: the header once per turn (guided step 3)').toBe('[dim] more[/dim]');
    expect(out[7], 'Renderer.render: the answer of turn 2 on a new line after its thinking (guided step 2)').toBe(
      '\n!',
    );
    const whole = renderEach(plain(), [ev.thinking('A plan.\n'), ev.text('Go.')]);
    expect(
      whole[1],
      'Renderer.render: a thought that ended its line needs no new line before the answer (guided step 2)',
    ).toBe('Go.');
  });

  test("done: a new line when the text did not end one, why the run stopped, and the usage of the run's turns", () => {
    const limit = renderEach(tagged({ model: 'claude-haiku-4-5' }), [
      ev.usage(1000, 100),
      ev.text('Still looking'),
      ev.usage(200, 20, 2),
      ev.done(
        'turn_limit',
        { inputTokens: 1000, outputTokens: 100 },
        { message: 'the model was still asking for tools after 2 model calls (turn limit)' },
      ),
    ]);
    expect(
      limit[3],
      'Renderer.render: the reason in red, then the usage events added up (done.usage has only some of them), priced (guided step 5)',
    ).toBe(
      '\n[red]stopped: the model was still asking for tools after 2 model calls (turn limit)[/red]\n[dim]↑ 1,200 in · ↓ 120 out · $0.0018[/dim]\n',
    );
    const cancelled = renderEach(tagged(), [ev.done('cancelled', undefined, { message: 'stopped with Ctrl-C' })]);
    expect(cancelled[0], 'Renderer.render: a cancelled run is `(stopped)`, dim (guided step 5)').toBe(
      '[dim](stopped)[/dim]\n[dim]↑ 0 in · ↓ 0 out · cost unknown[/dim]\n',
    );
    const failed = renderEach(plain(), [
      ev.done('error', { inputTokens: 5, outputTokens: 0 }, { message: 'overloaded (529)' }),
    ]);
    expect(failed[0], 'Renderer.render: an error with its message (guided step 5)').toBe(
      'error: overloaded (529)\n↑ 5 in · ↓ 0 out · cost unknown\n',
    );
    const paused = renderEach(plain(), [
      ev.done('paused_for_client_tool', undefined, {
        pending: [
          { type: 'tool_call', id: 'q1', name: 'ask_user', arguments: {} },
          { type: 'tool_call', id: 'q2', name: 'pick_file', arguments: {} },
        ],
      }),
    ]);
    expect(paused[0], 'Renderer.render: a pause names the calls the client must answer (guided step 5)').toBe(
      'paused: waiting for the client: ask_user, pick_file\n↑ 0 in · ↓ 0 out · cost unknown\n',
    );
    const bare = renderEach(plain(), [ev.done('turn_limit')]);
    expect(
      bare[0],
      "Renderer.render: a turn limit without a message gives its reason, not the pause's words (guided step 5)",
    ).toBe('stopped: turn_limit\n↑ 0 in · ↓ 0 out · cost unknown\n');
  });

  test('each run starts afresh: its own usage, its own thinking header', () => {
    const renderer = plain();
    renderEach(renderer, [
      ev.thinking('first'),
      ev.usage(100, 10),
      ev.done('end_turn', { inputTokens: 100, outputTokens: 10 }),
    ]);
    const second = renderEach(renderer, [
      ev.thinking('second'),
      ev.usage(7, 3),
      ev.done('end_turn', { inputTokens: 7, outputTokens: 3 }),
    ]);
    expect(second[0], 'Renderer.render: done forgets the thinking header of turn 1 (guided step 5)').toBe(
      '✻ Thinking…\nsecond',
    );
    expect(second[2], 'Renderer.render: done forgets the usage added up (guided step 5)').toBe(
      '\n↑ 7 in · ↓ 3 out · cost unknown\n',
    );
    renderEach(renderer, [ev.requested('c1', 'read', { path: 'a.ts' }), ev.done('cancelled')]);
    expect(
      renderer.render(ev.decided('c1', 'read')),
      "Renderer.render: done forgets the run's calls: the next run's c1 is not the old one (guided step 5)",
    ).toBe('● read\n');
  });

  test('after done the screen ends with the usage line, so a result of the run before still shows its call line', () => {
    expect(
      plain().render(ev.result('c1', 'ask_user', 'blue')),
      'Renderer.callLines: a result under a call line, even for a call never seen (guided step 4)',
    ).toBe('● ask_user\n  ⎿ ok\n    blue\n');
    const renderer = plain();
    renderEach(renderer, [
      ...started('c1', 'ask_user', { question: 'Which colour?' }),
      ev.done('paused_for_client_tool', undefined, {
        pending: [{ type: 'tool_call', id: 'c1', name: 'ask_user', arguments: {} }],
      }),
    ]);
    expect(
      renderer.render(ev.result('c1', 'ask_user', 'blue')),
      "Renderer.render: done sets this.current = TOP, so the next run's result for c1 is shown under its own call line again (guided step 5)",
    ).toBe('● ask_user\n  ⎿ ok\n    blue\n');
  });
});

describe('Renderer.callLines (src/capstone/render.ts)', () => {
  test('a blocked call is shown once, in red, with the reason; a changed call shows the arguments that run', () => {
    const denied = {
      type: 'block' as const,
      message: 'Permission denied: rm is denied. Do not retry this call.',
      permission: {
        outcome: 'denied' as const,
        reason: 'Bash(rm:*) is denied in .claude/settings.json',
        mode: 'default',
      },
    };
    const out = renderEach(tagged(), [
      ev.requested('c1', 'bash', { command: 'rm -rf build' }),
      ev.decided('c1', 'bash', denied),
      ev.result('c1', 'bash', denied.message, true),
      ev.requested('c2', 'write', { path: 'a.ts', content: 'x' }),
      ev.decided('c2', 'write', { type: 'block', message: 'plan mode: write was not run.\nYou are planning.' }),
      ev.result('c2', 'write', 'plan mode: write was not run.\nYou are planning.', true),
      ev.requested('c3', 'read', { path: 'a.ts' }),
      ev.decided('c3', 'read', { type: 'change', arguments: { path: 'b.ts' } }),
      ev.requested('c4', 'bash', { command: 'git push' }),
      ev.decided('c4', 'bash', {
        type: 'block',
        message: 'The person rejected this bash call.',
        permission: {
          outcome: 'asked',
          reason: 'bash needs approval in default mode',
          mode: 'default',
          answer: 'reject_once',
        },
      }),
    ]);
    expect(
      out[1],
      "Renderer.callLines: the call and `⎿ denied:` with the permission note's reason, in red (guided step 3)",
    ).toBe('[red]● bash(rm -rf build)[/red]\n[red]  ⎿ denied: Bash(rm:*) is denied in .claude/settings.json[/red]\n');
    expect(out[2], 'Renderer.callLines: the result of a blocked call is not shown again (guided step 4)').toBe('');
    expect(
      out[4],
      'Renderer.callLines: without a permission note, `blocked:` and the first line of the message (guided step 3)',
    ).toBe('[red]● write(a.ts)[/red]\n[red]  ⎿ blocked: plan mode: write was not run.[/red]\n');
    expect(
      out[5],
      'Renderer.callLines: a call blocked by another hook: its result is not shown again either (guided step 4)',
    ).toBe('');
    expect(out[7], 'Renderer.callLines: a changed call shows the arguments the hook gave, bold (guided step 3)').toBe(
      '[bold]● read(b.ts)[/bold]\n',
    );
    const narrow = new Renderer({ style: plainStyle, cwd: CWD, width: 30 }).render(
      ev.decided('c5', 'write', {
        type: 'block',
        message: 'plan mode: write was not run; you are planning, so you may only read',
      }),
    );
    expect(narrow, 'Renderer.callLines: the reason is clipped to the width (guided step 3)').toBe(
      '● write\n  ⎿ blocked: plan mode: write…\n',
    );
    expect(out[9], 'Renderer.callLines: a call the person said no to is `rejected:` (guided step 3)').toBe(
      '[red]● bash(git push)[/red]\n[red]  ⎿ rejected: bash needs approval in default mode[/red]\n',
    );
  });

  test('a successful edit shows its change instead of its output, with the arguments it ran with', () => {
    const out = renderEach(tagged(), [
      ev.requested('c1', 'edit', { path: 'src/a.ts', old_string: 'let a = 1;', new_string: 'let a = 2;' }),
      ev.decided('c1', 'edit', {
        type: 'change',
        arguments: { path: 'src/a.ts', old_string: 'let a = 1;', new_string: 'const a = 2;' },
      }),
      ev.result('c1', 'edit', 'Edited src/a.ts: replaced 1 occurrence'),
      ...started('c2', 'edit', { path: 'src/a.ts', old_string: 'zzz', new_string: 'y' }),
      ev.result('c2', 'edit', 'edit: old_string was not found in src/a.ts', true),
    ]);
    expect(out[2], 'Renderer.callLines: `⎿ ok` and the diff of the changed arguments (guided step 4)').toBe(
      '[dim]  ⎿ ok[/dim]\n[red]    - let a = 1;[/red]\n[green]    + const a = 2;[/green]\n',
    );
    expect(out[5], 'Renderer.callLines: a failed edit shows its error, not a diff (guided step 4)').toBe(
      '[red]  ⎿ error[/red]\n[red]    edit: old_string was not found in src/a.ts[/red]\n',
    );
  });

  test('results of calls run side by side each sit under their own call line, as does a call the run closed without running it', () => {
    const out = renderEach(plain(), [
      ev.requested('r1', 'read', { path: 'a.ts' }),
      ev.requested('r2', 'read', { path: 'b.ts' }),
      ev.decided('r1', 'read'),
      ev.decided('r2', 'read'),
      ev.result('r2', 'read', 'B'),
      ev.result('r1', 'read', 'A'),
      ev.requested('r3', 'read', { path: 'c.ts' }),
      ev.result('r3', 'read', 'Cancelled: the run was stopped before this call ran.', true),
      ...started('r4', 'read', { path: 'd.ts' }),
      ev.requested('r5', 'bash', { command: 'rm x' }),
      ev.decided('r5', 'bash', { type: 'block', message: 'no' }),
      ev.result('r5', 'bash', 'no', true),
      ev.result('r4', 'read', 'D'),
    ]);
    expect(
      out.slice(2),
      "Renderer.callLines: r2 is the last call shown, so its result follows; r1's result comes with its call line again, and so does r3's, which the run closed before it was decided, and r4's after a blocked call's lines (guided step 4)",
    ).toEqual([
      '● read(a.ts)\n',
      '● read(b.ts)\n',
      '  ⎿ ok\n    B\n',
      '● read(a.ts)\n  ⎿ ok\n    A\n',
      '',
      '● read(c.ts)\n  ⎿ error\n    Cancelled: the run was stopped before this call ran.\n',
      '',
      '● read(d.ts)\n',
      '',
      '● bash(rm x)\n  ⎿ blocked: no\n',
      '',
      '● read(d.ts)\n  ⎿ ok\n    D\n',
    ]);
    const interrupted = renderEach(plain(), [
      ...started('c2', 'read', { path: 'b.ts' }),
      ev.text('Meanwhile…'),
      ev.result('c2', 'read', 'B'),
    ]);
    expect(
      interrupted[3],
      "Renderer.callLines: text came after the call's line, so its result comes with its line again (guided step 4)",
    ).toBe('\n● read(b.ts)\n  ⎿ ok\n    B\n');
  });

  test('colours only for a terminal, never under NO_COLOR, and always under FORCE_COLOR', () => {
    const line = (style: ReturnType<typeof styleFor>) =>
      new Renderer({ style, cwd: CWD }).render(ev.decided('c1', 'read'));
    const escape = '\u001b[';
    expect(line(styleFor({ isTTY: true }, {})), 'Renderer.callLines: bold in a terminal (guided step 3)').toContain(
      escape,
    );
    expect(line(styleFor({ isTTY: false }, {})), 'Renderer.callLines: plain into a pipe (guided step 3)').toBe(
      '● read\n',
    );
    expect(
      line(styleFor({ isTTY: true }, { NO_COLOR: '1' })),
      'Renderer.callLines: plain under NO_COLOR (styleFor, given) (guided step 3)',
    ).toBe('● read\n');
    expect(
      line(styleFor({ isTTY: false }, { FORCE_COLOR: '1' })),
      'Renderer.callLines: colours under FORCE_COLOR (styleFor, given) (guided step 3)',
    ).toContain(escape);
    expect(
      line(styleFor({ isTTY: true }, { FORCE_COLOR: '0' })),
      'Renderer.callLines: FORCE_COLOR=0 turns them off (styleFor, given) (guided step 3)',
    ).toBe('● read\n');
  });
});

describe('Renderer.eventLines (src/capstone/render.ts)', () => {
  test('the task list is drawn at every change; a plan, the answer to it and the mode change sit under their call', () => {
    const todos = [task('Read the code', 'completed'), task('Fix the bug', 'in_progress', 'Fixing the bug')];
    const out = renderEach(plain(), [
      ...started('t1', 'todo_write', { todos }),
      { type: 'todo_list', turn: 1, callId: 't1', todos },
      ev.result('t1', 'todo_write', 'Task list saved: 2 tasks.'),
      ...started('p1', 'exit_plan_mode', { plan: '1. Read\n\n2. Fix' }),
      { type: 'plan_proposed', turn: 1, callId: 'p1', plan: '1. Read\n\n2. Fix' },
      { type: 'plan_decided', turn: 1, callId: 'p1', approved: true, mode: 'acceptEdits' },
      { type: 'mode_changed', turn: 1, mode: 'acceptEdits', previous: 'plan' },
      ev.result('p1', 'exit_plan_mode', 'The person approved the plan.'),
      { type: 'plan_decided', turn: 1, callId: 'p2', approved: false, mode: 'plan', feedback: 'smaller steps' },
      { type: 'plan_decided', turn: 1, callId: 'p3', approved: false, mode: 'plan' },
    ]);
    expect(out[1], 'Renderer.callLines: the call line, lists by their size (guided step 3)').toBe(
      '● todo_write(todos: [2 items])\n',
    );
    expect(out[2], 'Renderer.eventLines: the task list under its call (guided step 2)').toBe(
      '  ☒ Read the code\n  ◐ Fixing the bug\n',
    );
    expect(
      out[3],
      'Renderer.eventLines: the list keeps its call current, so the result follows without the call again (guided step 2)',
    ).toBe('  ⎿ ok\n    Task list saved: 2 tasks.\n');
    expect(out[5], 'Renderer.callLines: a multi-line string argument stays on one line as JSON (guided step 3)').toBe(
      '● exit_plan_mode(plan: "1. Read\\n\\n2. Fix")\n',
    );
    expect(out[6], 'Renderer.eventLines: the plan, indented by four spaces, empty lines empty (guided step 2)').toBe(
      '    1. Read\n\n    2. Fix\n',
    );
    expect(out[7], 'Renderer.eventLines: approved, with the mode (guided step 2)').toBe(
      '  ✓ plan approved (mode: acceptEdits)\n',
    );
    expect(out[8], 'Renderer.eventLines: the mode change (guided step 3)').toBe('  mode: plan → acceptEdits\n');
    expect(
      out[9],
      'Renderer.eventLines: the plan events keep the call current: its result follows (guided step 2)',
    ).toBe('  ⎿ ok\n    The person approved the plan.\n');
    expect(out[10], 'Renderer.eventLines: not approved, with the feedback (guided step 2)').toBe(
      '  ✗ plan not approved: keep planning (smaller steps)\n',
    );
    expect(out[11], 'Renderer.eventLines: not approved, no feedback (guided step 2)').toBe(
      '  ✗ plan not approved: keep planning\n',
    );
  });

  test('a retry and a compaction each get a line of their own', () => {
    const out = renderEach(tagged(), [
      ev.text('Thinking it over'),
      { type: 'retry', turn: 2, attempt: 2, maxAttempts: 5, delayMs: 2000, reason: 'overloaded' },
      {
        type: 'retry',
        turn: 2,
        attempt: 4,
        maxAttempts: 5,
        delayMs: 1500,
        reason: 'overloaded (529)',
        model: 'claude-haiku-4-5',
      },
      {
        type: 'compaction',
        turn: 3,
        from: 1,
        count: 12,
        summary: '…',
        tokensBefore: 45000,
        tokensAfter: 3200,
        manual: false,
      },
    ]);
    expect(out[1], 'Renderer.eventLines: on a new line after the text, yellow (guided step 4)').toBe(
      '\n[yellow]⟳ retrying in 2.0 s (attempt 2 of 5): overloaded[/yellow]\n',
    );
    expect(out[2], 'Renderer.eventLines: the fallback model after the attempts (guided step 4)').toBe(
      '[yellow]⟳ retrying in 1.5 s (attempt 4 of 5, with claude-haiku-4-5): overloaded (529)[/yellow]\n',
    );
    expect(out[3], 'Renderer.eventLines guided step 5').toBe(
      '[dim](compacted 12 older messages into a summary: about 45,000 → 3,200 tokens)[/dim]\n',
    );
  });

  test("a sub-agent's calls are indented two spaces a level under its task call, and its text is not shown", () => {
    const out = renderEach(plain(), [
      ...started('t1', 'task', { description: 'look around', prompt: 'Find parseConfig' }),
      ev.sub('t1', ev.turn(1)),
      ev.sub('t1', ev.text('I will search.')),
      ev.sub('t1', ev.thinking('where?')),
      ev.sub('t1', ev.requested('t1', 'read', { path: 'a.ts' })),
      ev.sub('t1', ev.decided('t1', 'read')),
      ev.sub('t1', ev.result('t1', 'read', 'A')),
      ev.sub('t1', ev.requested('k2', 'task', { description: 'deeper', prompt: 'go' })),
      ev.sub('t1', ev.decided('k2', 'task')),
      ev.sub('t1', ev.sub('k2', ev.requested('g1', 'grep', { pattern: 'parseConfig' }))),
      ev.sub('t1', ev.sub('k2', ev.decided('g1', 'grep'))),
      ev.sub('t1', ev.sub('k2', ev.result('g1', 'grep', ''))),
      ev.sub('t1', ev.sub('k2', ev.done('end_turn'))),
      ev.sub('t1', ev.result('k2', 'task', 'found it')),
      ev.sub('t1', ev.usage(10, 1)),
      ev.sub('t1', ev.done('end_turn')),
      ev.result('t1', 'task', 'parseConfig is in a.ts'),
    ]);
    expect(out[1], 'Renderer.callLines: the task call (guided step 3)').toBe(
      '● task(description: "look around", prompt: "Find parseConfig")\n',
    );
    expect(
      out.slice(2, 6),
      "Renderer.eventLines: a child's turn, text and thinking show nothing (the parent's text is the answer) (guided step 6)",
    ).toEqual(['', '', '', '']);
    expect(
      out[6],
      "Renderer.eventLines: the child's call, two spaces in (its id may repeat the parent's: keys are scoped) (guided step 6)",
    ).toBe('  ● read(a.ts)\n');
    expect(out[7], 'Renderer.eventLines: its result, two spaces in (guided step 6)').toBe('    ⎿ ok\n      A\n');
    expect(out[9], "Renderer.eventLines: the child's own task call, two spaces in (guided step 6)").toBe(
      '  ● task(description: "deeper", prompt: "go")\n',
    );
    expect(out[11], 'Renderer.eventLines: a grandchild, four spaces in (guided step 6)').toBe(
      '    ● grep(parseConfig)\n',
    );
    expect(out[12], "Renderer.eventLines: the grandchild's result, six spaces in (guided step 6)").toBe(
      '      ⎿ ok (no output)\n',
    );
    expect(out[13], "Renderer.eventLines: a child's done shows nothing (guided step 7)").toBe('');
    expect(
      out[14],
      "Renderer.callLines: after the grandchild, the child's task result follows its own output (guided step 4)",
    ).toBe('    ⎿ ok\n      found it\n');
    expect(out.slice(15, 17), "Renderer.eventLines: a child's usage and done show nothing (guided step 7)").toEqual([
      '',
      '',
    ]);
    expect(out[17], "Renderer.callLines: the task's result under it, without its call line again (guided step 4)").toBe(
      '  ⎿ ok\n    parseConfig is in a.ts\n',
    );
  });
});

describe('Renderer on a whole run (src/capstone/render.ts)', () => {
  test("a real run: chapter 7's Agent on a scripted model, rendered event by event", async () => {
    const provider = new MockProvider([
      [
        { type: 'thinking_delta', index: 0, thinking: 'Read it first.' },
        { type: 'text_delta', index: 1, text: 'Let me ' },
        { type: 'text_delta', index: 1, text: 'look.' },
        { type: 'tool_call_start', index: 2, id: 'c1', name: 'read' },
        { type: 'tool_call_delta', index: 2, argumentsDelta: '{"path":"src/app.ts"}' },
        { type: 'tool_call_end', index: 2 },
        { type: 'tool_call_start', index: 3, id: 'c2', name: 'bash' },
        { type: 'tool_call_delta', index: 3, argumentsDelta: '{"command":"nmp test"}' },
        { type: 'tool_call_end', index: 3 },
        { type: 'finish', stopReason: 'tool_use', usage: { inputTokens: 1000, outputTokens: 100 } },
      ],
      assistantToolCalls([
        { id: 'c3', name: 'edit', arguments: { path: 'src/app.ts', old_string: 'line 2', new_string: 'line two' } },
      ]),
      assistantText('Fixed line 2.', { inputTokens: 200, outputTokens: 20 }),
    ]);
    const agent = new Agent({ provider, tools: new ToolSet(standInTools(6)), cwd: CWD });
    const history: Message[] = [userMessage('fix line 2')];
    const events = await collect(agent.run(history));
    const text = renderEach(plain({ model: 'claude-sonnet-4-5' }), events).join('');
    const failure = events.find(
      (event): event is Extract<AgentEvent, { type: 'tool_result' }> => event.type === 'tool_result' && event.isError,
    )!;
    expect(text, 'the whole run as a person sees it: thinking, text, each call and its end, the usage').toBe(
      [
        '✻ Thinking…',
        'Read it first.',
        'Let me look.',
        '● read(src/app.ts)',
        '  ⎿ ok',
        '    line 1',
        '    line 2',
        '    line 3',
        '    line 4',
        '    … +2 lines',
        '● bash(nmp test)',
        '  ⎿ error',
        `    ${failure.content.split('\n')[0]}`,
        '● edit(src/app.ts)',
        '  ⎿ ok',
        '    - line 2',
        '    + line two',
        'Fixed line 2.',
        '↑ 1,200 in · ↓ 120 out · $0.0054',
        '',
      ].join('\n'),
    );
  });

  test("a real run with a task list and a sub-agent, from chapter 13's tools", async () => {
    const child = new MockProvider([
      assistantToolCalls([{ id: 'c1', name: 'read', arguments: { path: 'a.ts' } }]),
      assistantText('It is in a.ts.'),
    ]);
    const todos = [task('Find the config', 'in_progress', 'Finding the config'), task('Fix it', 'pending')];
    const tools = new ToolSet([...standInTools(1), todoWriteTool()]);
    tools.add(
      createTaskTool({
        tools: () => tools,
        makeChild: (spec) => new Agent({ provider: child, tools: spec.tools, cwd: CWD, system: spec.system }),
      }),
    );
    const provider = new MockProvider([
      assistantToolCalls([{ id: 'c1', name: 'todo_write', arguments: { todos } }]),
      assistantToolCalls(
        [{ id: 'c2', name: 'task', arguments: { description: 'find it', prompt: 'Where is the config?' } }],
        'Asking a helper.',
      ),
      assistantText('Found.'),
    ]);
    const events = await collect(new Agent({ provider, tools, cwd: CWD }).run([userMessage('fix the config')]));
    const text = renderEach(plain(), events).join('');
    expect(text, "the list under its call, the child's call indented under the task, the child's text left out").toBe(
      [
        '● todo_write(todos: [2 items])',
        '  ◐ Finding the config',
        '  ☐ Fix it',
        '  ⎿ ok',
        '    Task list saved: 2 tasks (0 completed, 1 in progress, 1 pending). Now: Find the config.',
        'Asking a helper.',
        '● task(description: "find it", prompt: "Where is the config?")',
        '  ● read(a.ts)',
        '    ⎿ ok',
        '      line 1',
        '  ⎿ ok',
        '    It is in a.ts.',
        'Found.',
        '↑ 0 in · ↓ 0 out · cost unknown',
        '',
      ].join('\n'),
    );
  });
});
