import { describe, expect, test } from 'vitest';
import type { AgentEvent } from 'kit/agent-events';
import { editDiff, plainStyle, Renderer, resultLines, todoLines, visible } from 'kit/capstone/render';
import { questionLines, terminalQuestion } from 'kit/capstone/question';
import type { PermissionRequest } from 'kit/permissions/gate';
import { CWD, ev, renderEach, tagStyle } from './render-fixtures.js';

/** A question about one call, as the gate asks it. */
const request = (name: string, args: unknown, reason = 'needs approval'): PermissionRequest => ({
  call: { type: 'tool_call', id: 'c1', name, arguments: args },
  reason,
  suggestedRules: [],
});

/** Every character below 0x20 (but those in `keep`), DEL and ESC's one-byte form 0x9b that is still in `text`. */
const rawControls = (text: string, keep = '') =>
  Array.from(text).filter((ch) => /[\u0000-\u001f\u007f-\u009f]/.test(ch) && !keep.includes(ch));

/** The redraw a model can hide in a command: rub out the line, go back to its start, draw a harmless question. */
const REDRAW = '\x1b[2K\rAllow Bash(npm test)?';
const TITLE = '\x1b]0;title\x07';
const CLEAR = '\x1b[2J';

describe('visible (src/capstone/render-lines.ts)', () => {
  test('ESC, carriage return, bell, tab and new line become their Control Pictures', () => {
    expect(
      visible(REDRAW),
      'visible: ESC (0x1b) is ␛ and a carriage return ␍ (0x2400 + the code) (guided step 2)',
    ).toBe('␛[2K␍Allow Bash(npm test)?');
    expect(visible(TITLE), 'visible: the bell (0x07) that ends a window-title sequence is ␇ (guided step 2)').toBe(
      '␛]0;title␇',
    );
    expect(visible('a\tb\nc\0'), 'visible: a tab is ␉, a new line ␊, NUL ␀ (guided step 2)').toBe('a␉b␊c␀');
  });

  test('every control character of the text, not only the first or the ones at its start', () => {
    const text = `npm test ${CLEAR} && ${TITLE} && echo ${REDRAW}`;
    const shown = visible(text);
    expect(
      rawControls(shown),
      'visible: every control character anywhere in the text is made visible (replace all of them, not the first) (guided step 5)',
    ).toEqual([]);
    expect(shown, 'visible: only the control characters change (guided step 5)').toBe(
      'npm test ␛[2J && ␛]0;title␇ && echo ␛[2K␍Allow Bash(npm test)?',
    );
  });

  test('DEL, the C1 controls and the bidirectional controls are shown too', () => {
    expect(visible('a\x7fb'), 'visible: DEL (0x7f) is ␡ (guided step 3)').toBe('a␡b');
    expect(
      visible('x\x9b2Jy'),
      'visible: a C1 control (0x9b reads as ESC [ in some terminals) is \\u009b (guided step 4)',
    ).toBe('x\\u009b2Jy');
    expect(visible('rm \u202eabc'), 'visible: a bidirectional control (0x202e) is \\u202e (guided step 4)').toBe(
      'rm \\u202eabc',
    );
    expect(visible('\u2066\u200f'), 'visible: 0x2066 and 0x200f too, four lower-case hex digits (guided step 4)').toBe(
      '\\u2066\\u200f',
    );
  });

  test('characters listed in keep stay; ordinary text, accents and emoji stay', () => {
    expect(
      visible('a\tb\nc\x1b', '\n\t'),
      'visible: a character in keep stays as it is; the others are still shown (guided step 1)',
    ).toBe('a\tb\nc␛');
    expect(
      visible('café 🙂 ─ ~ \u00a0', ''),
      'visible: everything that is not a control character stays (guided step 5)',
    ).toBe('café 🙂 ─ ~ \u00a0');
  });
});

describe('questionLines (src/capstone/question.ts)', () => {
  test('the first line asks about the tool, with the reason: `  Allow bash? (reason)`', () => {
    const lines = questionLines(request('bash', { command: 'npm test' }, 'no rule allows npm'), {
      cwd: CWD,
      style: tagStyle,
    });
    expect(lines[0], 'questionLines: two spaces, `Allow NAME?` yellow, a space, `(REASON)` dim (guided step 1)').toBe(
      '  [yellow]Allow bash?[/yellow] [dim](no rule allows npm)[/dim]',
    );
    expect(
      lines.slice(1),
      'questionLines: then the command on a line of its own, after four spaces (guided step 2)',
    ).toEqual(['    npm test']);
  });

  test('a long command is wrapped to the width, never cut: the hidden `&& touch PWNED` is on screen', () => {
    const command = `npm test -- --reporter=verbose --run ${'src/'.repeat(30)}app.test.ts && touch PWNED`;
    const lines = questionLines(request('bash', { command }), { cwd: CWD, width: 40 });
    const body = lines.slice(1);
    expect(
      body.every((line) => line.startsWith('    ')),
      'questionLines: every piece of the command after four spaces (guided step 2)',
    ).toBe(true);
    expect(
      body.map((line) => line.slice(4)).join(''),
      'questionLines: the pieces put together are the whole command (wrapText, never clip: a question cut at the width hides what is approved) (guided step 2)',
    ).toBe(command);
    expect(
      Math.max(...body.map((line) => line.length)),
      'questionLines: each piece is width - 4 characters at most, so with its indent it fits the width (guided step 2)',
    ).toBeLessThanOrEqual(40);
    expect(body.length, 'questionLines: pieces of width - 4 characters (36 here) (guided step 2)').toBe(
      Math.ceil(command.length / 36),
    );
  });

  test('without a width the pieces are DEFAULT_WIDTH - 4 (96) characters long', () => {
    const command = `echo ${'x'.repeat(150)}`;
    const body = questionLines(request('bash', { command }), { cwd: CWD }).slice(1);
    expect(
      body.map((line) => line.length),
      'questionLines: width is DEFAULT_WIDTH (100) when not given: pieces of 96 characters after four spaces (guided step 2)',
    ).toEqual([100, 4 + command.length - 96]);
  });

  test("escape codes in the model's command are shown, not obeyed: it cannot redraw the question", () => {
    for (const trick of [REDRAW, TITLE, CLEAR]) {
      const lines = questionLines(request('bash', { command: `rm -rf ~ ${trick}` }), { cwd: CWD, width: 200 });
      expect(
        lines.flatMap((line) => rawControls(line)),
        `questionLines: the command made visible (visible) before it is shown: ${JSON.stringify(trick)} (guided step 2)`,
      ).toEqual([]);
      expect(lines[1], 'questionLines: the whole command, its escape codes as ␛ (guided step 2)').toBe(
        `    rm -rf ~ ${visible(trick)}`,
      );
    }
  });

  test('a new line in the command is shown as ␊: the part after it is not mistaken for a comment', () => {
    const lines = questionLines(request('bash', { command: "echo hi #'\ntouch PWNED\n#'" }), { cwd: CWD });
    expect(
      lines.slice(1),
      'questionLines: made visible with nothing kept: a new line shows as ␊, on the same line (guided step 2)',
    ).toEqual(["    echo hi #'␊touch PWNED␊#'"]);
  });

  test('the name and the reason are made visible too', () => {
    const lines = questionLines(request(`mcp__srv__get${CLEAR}`, { id: 1 }, `asks${REDRAW}`), { cwd: CWD });
    expect(
      rawControls(lines[0]!),
      'questionLines: an MCP tool names itself, and a reason may quote the call: make both visible (guided step 1)',
    ).toEqual([]);
    expect(lines[0], 'questionLines guided step 1').toBe(`  Allow mcp__srv__get␛[2J? (asks${visible(REDRAW)})`);
  });

  test('an edit shows its path and its whole change, every line, none cut', () => {
    const old = Array.from({ length: 6 }, (_, i) => `old line ${i + 1}`).join('\n');
    const long = `const x = "${'y'.repeat(150)}"; ${CLEAR}`;
    const lines = questionLines(
      request('edit', { path: `${CWD}/src/app.ts`, old_string: old, new_string: `${long}\nnew` }),
      { cwd: CWD, width: 60 },
    );
    expect(lines[1], 'questionLines: for an edit, the path (shown relative to the workspace) (guided step 2)').toBe(
      '    src/app.ts',
    );
    expect(
      lines.slice(2),
      'questionLines: every line of the change (editDiff with max and width Infinity), each made visible (guided step 3)',
    ).toEqual([
      ...Array.from({ length: 6 }, (_, i) => `    - old line ${i + 1}`),
      `    + ${visible(long)}`,
      '    + new',
    ]);
  });

  test('a write shows every line it writes, painted as the diff is', () => {
    const content = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n');
    const lines = questionLines(request('write', { path: 'notes.md', content }), { cwd: CWD, style: tagStyle });
    expect(
      lines.slice(1),
      'questionLines: the path, then all ten lines (no `… +K lines`: the person approves the whole file), with the style (guided steps 2-3)',
    ).toEqual(['    notes.md', ...Array.from({ length: 10 }, (_, i) => `[green]    + line ${i + 1}[/green]`)]);
  });

  test('any other tool shows its arguments as JSON, whole', () => {
    const url = `https://example.com/${'a'.repeat(120)}`;
    const lines = questionLines(request('web_fetch', { url, prompt: 'sum' }), { cwd: CWD, width: 1000 });
    expect(
      lines.slice(1),
      'questionLines: for a tool other than bash, edit and write, the JSON of the arguments (guided step 2)',
    ).toEqual([`    ${JSON.stringify({ url, prompt: 'sum' })}`]);
    const odd = questionLines(request('bash', 'rm -rf /'), { cwd: CWD });
    expect(
      odd.slice(1),
      'questionLines: arguments that are not an object are still shown (their JSON) (guided step 2)',
    ).toEqual(['    "rm -rf /"']);
    expect(
      questionLines(request('bash', null), { cwd: CWD }).slice(1),
      'questionLines: null arguments are shown as null, never a crash (guided step 2)',
    ).toEqual(['    null']);
    expect(
      questionLines(request('bash', { command: 42 }), { cwd: CWD }).slice(1),
      'questionLines: a command that is not a string: the JSON of the arguments (guided step 2)',
    ).toEqual(['    {"command":42}']);
    const mcp = { command: 'deploy', target: 'production' };
    expect(
      questionLines(request('mcp__ops__run', mcp), { cwd: CWD }).slice(1),
      'questionLines: only bash shows its command alone; another tool with a command argument shows all its arguments (guided step 2)',
    ).toEqual([`    ${JSON.stringify(mcp)}`]);
    const read = { path: '../../.ssh/id_rsa', offset: 1 };
    expect(
      questionLines(request('read', read), { cwd: CWD }).slice(1),
      'questionLines: only edit and write show their path alone; read shows all its arguments as JSON (guided step 2)',
    ).toEqual([`    ${JSON.stringify(read)}`]);
    expect(
      questionLines(request('write', { content: 'x' }), { cwd: CWD }).slice(1),
      'questionLines: a write without a path: its JSON, then its diff (guided step 2)',
    ).toEqual(['    {"content":"x"}', '    + x']);
  });
});

describe('terminalQuestion (src/capstone/question.ts, given): the answer is one key', () => {
  const terminal = (typed: Array<string | undefined>) => {
    const written: string[] = [];
    const ask = terminalQuestion(
      { write: (text) => written.push(text), read: async () => typed.shift() },
      { cwd: CWD, width: 80, style: plainStyle },
    );
    return { ask, written, typed };
  };

  test('writes the question and the keys, and reads y, n and a', async () => {
    for (const [typed, answer] of [
      ['y', 'allow_once'],
      [' Y ', 'allow_once'],
      ['a', 'allow_always'],
      ['n', 'reject_once'],
      ['no', 'reject_once'],
    ] as const) {
      const t = terminal([typed]);
      expect(
        await t.ask(request('bash', { command: 'npm test' }), new AbortController().signal),
        `"${typed}" answers ${answer}`,
      ).toBe(answer);
      expect(t.written[0], 'questionLines, then the keys').toBe(
        '  Allow bash? (needs approval)\n    npm test\n  [y]es / [n]o / [a]lways\n',
      );
    }
  });

  test('an answer that is none of the keys asks again: it is not a "no", and never a "yes"', async () => {
    const t = terminal(['', 'yy', 'sure', 'a']);
    expect(
      await t.ask(request('bash', { command: 'npm test' }), new AbortController().signal),
      'three lines that are no key, then "a": the answer is "a"',
    ).toBe('allow_always');
    expect(t.written.slice(1), 'each line that is no key asks again').toHaveLength(3);
    expect(t.typed, 'every line was read').toEqual([]);
  });

  test('the end of input (Ctrl-D) answers undefined: nobody can answer', async () => {
    const t = terminal([undefined]);
    expect(
      await t.ask(request('bash', { command: 'npm test' }), new AbortController().signal),
      'undefined: the gate rejects the call',
    ).toBeUndefined();
  });
});

describe('output under a call is made visible (src/capstone/render-lines.ts, render.ts)', () => {
  const file = `${CLEAR}${TITLE}hello\tworld${REDRAW}`;

  test("resultLines: a file's escape codes cannot clear the screen or set the window's title; tabs stay", () => {
    const lines = resultLines(`${file}\nsecond`, false, { width: 200 });
    expect(
      lines.flatMap((line) => rawControls(line, '\t')),
      'resultLines: every output line made visible (visible, keeping tabs) (guided step 3)',
    ).toEqual([]);
    expect(lines[1], 'resultLines guided step 3').toBe(`    ${visible(file, '\t')}`);
  });

  test('editDiff: the text an edit or write put in a file is made visible too', () => {
    const lines = editDiff('write', { path: 'a.txt', content: file }, { width: 200 })!;
    expect(lines, 'editDiff: every line made visible (keeping tabs) before it is clipped (guided step 4)').toEqual([
      `    + ${visible(file, '\t')}`,
    ]);
    const edit = editDiff('edit', { path: 'a.txt', old_string: `x${CLEAR}`, new_string: `y${TITLE}` }, { width: 200 })!;
    expect(edit, 'editDiff: both sides made visible (guided step 4)').toEqual([
      `    - x${visible(CLEAR)}`,
      `    + y${visible(TITLE)}`,
    ]);
  });

  test("todoLines: the model's task text is made visible", () => {
    const lines = todoLines([
      { content: `a${CLEAR}`, status: 'pending' },
      { content: 'b', status: 'in_progress', activeForm: `B${TITLE}` },
      { content: `c${REDRAW}`, status: 'completed' },
    ]);
    expect(
      lines.flatMap((line) => rawControls(line)),
      'todoLines: each task text made visible (visible) before it is painted (guided step 3)',
    ).toEqual([]);
  });

  test("Renderer.render: the model's streamed text and thinking keep their new lines and tabs, but show their escape codes", () => {
    const renderer = new Renderer({ style: plainStyle, cwd: CWD });
    const out = renderEach(renderer, [
      ev.text(`one${CLEAR}\n\ttwo${REDRAW}\n`),
      ev.thinking(`hm${TITLE}\n\tindented`, 2),
    ]).join('');
    expect(
      rawControls(out, '\n\t'),
      'Renderer.render: text and thinking made visible except new lines and tabs (guided steps 2-3)',
    ).toEqual([]);
    expect(out, 'Renderer.render: only the escape codes change (guided step 2)').toContain(
      `one␛[2J\n\ttwo${visible(REDRAW)}\n`,
    );
    expect(out, 'Renderer.render: the thought keeps its new lines and tabs too (guided step 3)').toContain(
      'hm␛]0;title␇\n\tindented',
    );
  });

  test("Renderer.render: a call's line, its block reason and a plan show escape codes instead of obeying them", () => {
    const renderer = new Renderer({ style: plainStyle, cwd: CWD, width: 300 });
    const events: AgentEvent[] = [
      ev.requested('b1', 'bash', { command: `ls ${REDRAW}` }),
      ev.decided('b1', 'bash'),
      ev.result('b1', 'bash', 'ok'),
      ev.requested('b2', 'bash', { command: 'rm x' }),
      ev.decided('b2', 'bash', {
        type: 'block',
        message: `no${CLEAR}`,
        permission: { outcome: 'denied', reason: `rule${TITLE}`, mode: 'default' },
      }),
      { type: 'plan_proposed', turn: 1, callId: 'p1', plan: `step 1${CLEAR}\tand\x07` },
    ];
    const out = renderEach(renderer, events).join('');
    expect(
      rawControls(out, '\n\t'),
      'Renderer.callLines guided step 3 (the headline, given, and the block reason) and eventLines guided step 2 (the plan): every line made visible',
    ).toEqual([]);
    expect(out, 'the headline shows the command with its escape codes visible').toContain(
      '● bash(ls ␛[2K Allow Bash(npm test)?)',
    );
    expect(out, 'Renderer.eventLines: each plan line made visible, keeping its tabs (guided step 2)').toContain(
      '    step 1␛[2J\tand␇',
    );
    expect(out, 'Renderer.callLines: the block reason made visible (guided step 3)').toContain(
      '  ⎿ denied: rule␛]0;title␇',
    );
  });
});
