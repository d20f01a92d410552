import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { BASH_OUTPUT_LIMIT, OutputCap, bashTool } from 'kit/tools/bash';
import { rejection, settles } from '../helpers/assert.js';
import { killLeftOver } from '../helpers/processes.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { HANG_MS, waitUntil } from '../helpers/wait.js';
import { bash, errorOf, runTag, sleep, within, type Outcome } from './fixtures.js';

// runCommand's own tests start real processes and wait out timeouts: they are in run-command.test.ts and
// leftovers.test.ts, so that the three files run side by side.
const RUN = runTag(1);

describe('bashTool.execute (src/tools/bash.ts)', () => {
  test('returns the exit code, then stdout and stderr in labelled sections', async () => {
    const { root } = tempWorkspace();
    const result = await bash(root, { command: 'echo out; echo err >&2' });
    expect(result, 'the format: "exit code: N", "--- stdout ---", its text, "--- stderr ---", its text').toBe(
      'exit code: 0\n--- stdout ---\nout\n--- stderr ---\nerr',
    );
  });

  test('takes off only the final newline: output without one keeps its last character, blank lines at the end stay', async () => {
    const { root } = tempWorkspace();
    expect(
      await bash(root, { command: 'printf abc; printf xyz >&2' }),
      'bashTool.execute: printf prints no final newline, so there is nothing to take off: "abc" and "xyz" stay whole (remove a final \\n only when there is one) (guided step 3)',
    ).toBe('exit code: 0\n--- stdout ---\nabc\n--- stderr ---\nxyz');
    expect(
      await bash(root, { command: "printf 'a\\n\\n'" }),
      'bashTool.execute: the command printed "a", an empty line and a final newline: take off the final newline only, the empty line stays (guided step 3)',
    ).toBe('exit code: 0\n--- stdout ---\na\n\n--- stderr ---\n(empty)');
  });

  test('a non-zero exit code is a normal result the model reads, not a throw', async () => {
    const { root } = tempWorkspace();
    const result = await settles(
      bash(root, { command: 'echo "3 tests failed" >&2; exit 3' }),
      'a failing command is information for the model: resolve with its exit code instead of throwing',
    );
    expect(result).toBe('exit code: 3\n--- stdout ---\n(empty)\n--- stderr ---\n3 tests failed');
  });

  test('reports a command killed by a signal', async () => {
    const { root } = tempWorkspace();
    const result = await bash(root, { command: 'kill -9 $$' });
    expect(result, 'with no exit code, say which signal ended it').toMatch(/^exit code: none \(killed by SIGKILL\)/);
  });

  test('a timeout throws an error that says so and shows what was printed so far', async () => {
    const { root } = tempWorkspace();
    // The tool's timer is a fake one, moved past the limit once the command has printed: what was printed before the
    // timeout is then there on any machine, however long the shell took to start.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let outcome: Outcome<string>;
    try {
      const running = bash(root, { command: 'echo started; touch printed; sleep 300', timeout_ms: 200 });
      await waitUntil(
        () => existsSync(path.join(root, 'printed')),
        'runCommand: the command must start',
        HANG_MS,
        running,
      );
      vi.advanceTimersByTime(200);
      outcome = await within(running);
    } finally {
      vi.useRealTimers();
    }
    const error = errorOf(outcome, 'a command past its timeout must be stopped and end in an error');
    expect(error).toMatch(/timed out after 200 ms/);
    expect(error, 'the output printed before the timeout helps the model understand what hung').toContain('started');
  });

  test('does not start the command when the signal is already aborted', async () => {
    const { root } = tempWorkspace();
    const error = await rejection(
      bash(root, { command: 'touch ran.txt' }, AbortSignal.abort()),
      'a cancelled run must not start new commands',
    );
    expect(String(error)).toMatch(/cancel|abort/i);
    await sleep(50);
    expect(existsSync(path.join(root, 'ran.txt')), 'check ctx.signal.aborted before spawning').toBe(false);
  });

  test('cuts long output in the middle and says how much was cut', async () => {
    const { root } = tempWorkspace();
    const result = await bash(root, {
      command: 'head -c 20000 /dev/zero | tr "\\0" a; head -c 20000 /dev/zero | tr "\\0" b',
    });
    expect(result.length, `stdout is capped at ${BASH_OUTPUT_LIMIT} characters plus a note`).toBeLessThan(
      BASH_OUTPUT_LIMIT + 200,
    );
    expect(result, 'the note says how many characters were left out').toContain('[... 10000 characters cut ...]');
    expect(result, 'the start of the output is kept').toContain(`--- stdout ---\n${'a'.repeat(15000)}\n[...`);
    expect(result, 'the end of the output is kept too: errors are usually there').toContain(
      `...]\n${'b'.repeat(15000)}\n--- stderr ---`,
    );
  });

  test('prints the notes about what was stopped after the two sections', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 300.${RUN}6`;
    try {
      const outcome = await within(bash(root, { command: `${marker} & echo done` }));
      if (outcome.status === 'rejected') throw outcome.error;
      expect(
        outcome.status,
        'runCommand: the command left a job running that holds the pipes open: stop it (guided step 5)',
      ).toBe('resolved');
      const result = (outcome as { value: string }).value;
      expect(
        result,
        'the sections come first, then each of outcome.notes on a line of its own (guided step 3)',
      ).toMatch(
        new RegExp(
          `^exit code: 0\\n--- stdout ---\\ndone\\n--- stderr ---\\n\\(empty\\)\\n[^\\n]*${marker.replace('.', '\\.')}[^\\n]*$`,
        ),
      );
    } finally {
      killLeftOver(marker);
    }
  });

  test('is named bash and is not read-only', async () => {
    const { root } = tempWorkspace();
    await bash(root, { command: 'true' });
    expect(bashTool.name).toBe('bash');
    expect(bashTool.readOnly, 'a command can change anything: bash is never read-only').toBe(false);
  });
});

describe('OutputCap (src/tools/bash.ts)', () => {
  const fed = (limit: number, chunks: string[]) => {
    const cap = new OutputCap(limit);
    for (const chunk of chunks) cap.add(chunk);
    return cap;
  };

  test('gives back text within the limit unchanged, however it was cut into chunks', () => {
    expect(fed(10, ['short']).toString(), 'nothing cut: head and tail together are the whole text').toBe('short');
    expect(fed(10, ['xxx', 'xxxx', 'xxx']).toString(), 'exactly at the limit is still within it').toBe('x'.repeat(10));
    expect(fed(4, ['ab', 'cd']).cut, 'nothing was dropped, so cut stays 0').toBe(0);
  });

  test('keeps half the limit from the start and the rest from the end, and counts what it dropped', () => {
    expect(
      fed(4, ['abcdefghij']).toString(),
      'the first floor(limit / 2), the note, the last limit - that (guided step 1 and 3)',
    ).toBe('ab\n[... 6 characters cut ...]\nij');
    expect(fed(5, ['abc', 'defg', 'hij']).toString(), 'odd limit: the head gets floor(5 / 2) = 2, the tail 3').toBe(
      'ab\n[... 5 characters cut ...]\nhij',
    );
  });

  test('never holds more than the limit while output keeps arriving', () => {
    const cap = new OutputCap(100);
    for (let i = 0; i < 1000; i++) {
      cap.add(`${String(i).padStart(9, '0')}\n`);
      expect(
        cap.head.length + cap.tail.length,
        `after chunk ${i} the cap holds more than its limit; trim the tail on every add (guided step 3)`,
      ).toBeLessThanOrEqual(100);
    }
    expect(cap.head, 'the head is the first 50 characters seen (guided step 1)').toBe(
      '000000000\n000000001\n000000002\n000000003\n000000004\n',
    );
    expect(cap.tail, 'the tail is the last 50 characters seen (guided step 2)').toBe(
      '000000995\n000000996\n000000997\n000000998\n000000999\n',
    );
    expect(
      cap.cut,
      'OutputCap.add: cut counts every character dropped between them, over all chunks (add what each chunk drops) (guided step 3)',
    ).toBe(10_000 - 100);
  });

  test('a chunk that fills the head goes on into the tail', () => {
    const cap = fed(6, ['ab', 'cdefg']);
    expect(
      [cap.head, cap.tail, cap.cut],
      '"ab" + "c" fill the head of 3; "defg" goes to the tail of 3, dropping "d" (guided step 1 and 2)',
    ).toEqual(['abc', 'efg', 1]);
  });
});
