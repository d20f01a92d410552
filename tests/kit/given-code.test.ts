/**
 * Given code of the solution that no graded test can hold to account: it is the same in the starter, so a graded
 * test of it would pass before the learner wrote anything.
 */
import { describe, expect, it, vi } from 'vitest';
import { userMessage } from '../../solution/src/messages.js';
import type { Provider } from '../../solution/src/provider.js';
import { turnEvents } from '../../solution/src/streaming-agent.js';
import { runCommand } from '../../solution/src/tools/bash.js';
import { settlesWithin } from '../../solution/src/tools/processes.js';
import { killLeftOver, processesRunning } from '../helpers/processes.js';
import { KIT_HANG_MS } from './helpers.js';

// The real clock, taken before a test fakes it.
const { setTimeout: realSetTimeout, clearTimeout: realClearTimeout } = globalThis;

describe('stopLeftovers (solution/src/tools/processes.ts)', () => {
  it.runIf(process.platform === 'linux')(
    'stops a detached process that was in the middle of exec when the command ended (100 tries)',
    async () => {
      // Each command ends while its `setsid sh` child may still be inside exec, when the kernel shows an empty
      // environment for it; one look at /proc then misses it. Before the fix a few in a hundred were left running.
      const tag = `${process.pid}${Date.now() % 100_000}`;
      const left: string[] = [];
      try {
        for (let i = 0; i < 100; i++) {
          const marker = `sleep 40.${tag}${i}`;
          await runCommand(`setsid sh -c '${marker}; true' >/dev/null 2>&1 & echo ok`, {
            cwd: '/tmp',
            timeoutMs: 60_000,
          });
          // A process that was killed may still be listed for a moment: only one still there after 500 ms was missed.
          let pids = processesRunning(marker);
          for (let waited = 0; pids.length > 0 && waited < 500; waited += 10) {
            await new Promise((resolve) => setTimeout(resolve, 10));
            pids = processesRunning(marker);
          }
          if (pids.length) left.push(marker);
        }
        expect(
          left,
          'stopLeftovers must look again while a process it cannot judge yet (an empty environment) is there',
        ).toEqual([]);
      } finally {
        killLeftOver(`sleep 40.${tag}`);
      }
    },
  );

  it("waits on the real clock, so a test that fakes the clock for a command's timeout does not stop its waits", async () => {
    // Chapter 4's timeout test fakes setTimeout; stopLeftovers' short wait for a process in the middle of exec (always
    // some on a busy machine) then never ended, and the test hung on a correct solution.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let hang: ReturnType<typeof setTimeout> | undefined;
      const late = settlesWithin(new Promise(() => {}), 20);
      const outcome = await Promise.race([
        late,
        new Promise((resolve) => (hang = realSetTimeout(() => resolve('hung'), KIT_HANG_MS))),
      ]);
      realClearTimeout(hang);
      expect(
        outcome,
        'settlesWithin must use the clock taken when processes.ts loaded, not the global (faked) one',
      ).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('turnEvents (solution/src/streaming-agent.ts)', () => {
  it('refuses a request with a picture to a provider whose model reads none, before stream() or complete() is called', async () => {
    const calls: string[] = [];
    const provider = (imageInput: boolean | undefined): Provider => ({
      name: 'test',
      ...(imageInput === undefined ? {} : { imageInput }),
      complete: async () =>
        (calls.push('complete'), { content: [{ type: 'text', text: 'ok' }], stopReason: 'end_turn' }) as never,
      stream: async function* () {
        calls.push('stream');
      },
    });
    const request = {
      messages: [userMessage('What is this?', [{ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }])],
    };
    for (const imageInput of [undefined, false]) {
      const drained = (async () => {
        for await (const _ of turnEvents(provider(imageInput), request as never));
      })();
      await expect(drained, `imageInput ${imageInput}: refused`).rejects.toThrow(/takes no images/);
    }
    expect(calls, 'nothing reached the provider').toEqual([]);
    for await (const _ of turnEvents(provider(true), request as never));
    expect(calls, 'a provider that reads pictures is called').toEqual(['stream']);
  });
});
