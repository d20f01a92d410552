/**
 * Chapter 16: starting the sandbox (src/sandbox/start.ts: startSandbox). A sandbox that cannot start must never be
 * believed to be running: the person is told, and every command is asked about as without it.
 */
import { describe, expect, test } from 'vitest';
import { defaultSandboxPolicy } from 'kit/sandbox/policy';
import { SandboxUnavailableError, startSandbox, UNAVAILABLE_NOTE } from 'kit/sandbox/start';
import { fakeRuntime, folders, running } from './fixtures.js';

const on = (change: (policy: ReturnType<typeof defaultSandboxPolicy>) => void = () => {}) =>
  running(folders().root, change).policy;

describe('startSandbox (src/sandbox/start.ts)', () => {
  test('the policy is off: nothing is started or checked, nothing is said', async () => {
    const fake = fakeRuntime();
    const policy = defaultSandboxPolicy({ root: '/repo', home: '/home/me' });
    const started = await startSandbox(policy, fake.runtime);
    expect(started.state, 'startSandbox: off -> not available, the policy kept (guided step 1)').toEqual({
      policy,
      available: false,
    });
    expect(started.notes, 'nothing to say').toEqual([]);
    await started.stop();
    expect(fake.names(), 'startSandbox: the runtime is not touched when the policy is off (guided step 1)').toEqual([]);
  });

  test('it starts: available, no note, and stop() stops the runtime', async () => {
    const fake = fakeRuntime();
    const policy = on();
    const started = await startSandbox(policy, fake.runtime);
    expect(started.state, 'startSandbox: started -> available (guided step 4)').toEqual({ policy, available: true });
    expect(started.notes).toEqual([]);
    expect(fake.names(), 'startSandbox: ask what is missing first, then start (guided step 2)').toEqual([
      'missing',
      'start',
    ]);
    expect(fake.steps[1], 'started with the policy').toEqual({ step: 'start', policy });
    await started.stop();
    expect(fake.names().at(-1), 'stop() stops the runtime (guided step 4)').toBe('stop');
  });

  test('something is missing: not started, not available, and one note with the reasons', async () => {
    const fake = fakeRuntime({ missing: ['bubblewrap (bwrap) not installed', 'socat not installed'] });
    const started = await startSandbox(on(), fake.runtime);
    expect(fake.names(), 'startSandbox: with something missing the runtime is not started (guided step 2)').toEqual([
      'missing',
    ]);
    expect(started.state.available, 'startSandbox: not available (guided step 3)').toBe(false);
    expect(started.notes, 'one note (guided step 3)').toHaveLength(1);
    const note = started.notes[0]!;
    expect(note.startsWith(UNAVAILABLE_NOTE), `the note starts with UNAVAILABLE_NOTE: ${note}`).toBe(true);
    expect(note, 'it names every reason (guided step 3)').toContain(
      'bubblewrap (bwrap) not installed; socat not installed',
    );
    expect(note, 'and says every command is asked about as without a sandbox (guided step 3)').toContain(
      'every command is asked about as without a sandbox',
    );
  });

  test('a start that rejects is not a running sandbox: what it started is stopped, and the person is told', async () => {
    const fake = fakeRuntime({
      start: async () => {
        throw new Error('the proxy could not listen on 127.0.0.1');
      },
    });
    const started = await startSandbox(on(), fake.runtime);
    expect(started.state.available, 'startSandbox: a rejected start -> not available (guided step 2)').toBe(false);
    expect(fake.names(), 'startSandbox: a start that rejected is stopped again (guided step 2)').toEqual([
      'missing',
      'start',
      'stop',
    ]);
    expect(started.notes.join('\n'), "the rejection's message is the reason (guided step 2)").toContain(
      'the proxy could not listen on 127.0.0.1',
    );
  });

  test('a stop that fails after a failed start does not hide the first failure', async () => {
    const fake = fakeRuntime({
      start: async () => {
        throw new Error('bwrap: setting up uid map: Permission denied');
      },
      stop: async () => {
        throw new Error('nothing to stop');
      },
    });
    const started = await startSandbox(on(), fake.runtime).catch((caught: unknown) => caught);
    expect(started, "startSandbox: the stop's own failure is ignored (guided step 2)").not.toBeInstanceOf(Error);
    expect(
      (started as { notes: string[] }).notes.join('\n'),
      "the start's failure is the reason (guided step 2)",
    ).toContain('setting up uid map');
  });

  test('failIfUnavailable: the agent does not start without its sandbox', async () => {
    const missing = fakeRuntime({ missing: ['bubblewrap (bwrap) not installed', 'socat not installed'] });
    const strict = on((policy) => void (policy.failIfUnavailable = true));
    const error = await startSandbox(strict, missing.runtime).catch((caught: unknown) => caught);
    expect(error, 'startSandbox: failIfUnavailable -> a SandboxUnavailableError (guided step 3)').toBeInstanceOf(
      SandboxUnavailableError,
    );
    expect((error as Error).message, 'naming the reasons, joined with "; " (guided step 3)').toContain(
      'bubblewrap (bwrap) not installed; socat not installed',
    );

    const rejecting = fakeRuntime({
      start: async () => {
        throw new Error('no user namespaces');
      },
    });
    const second = await startSandbox(strict, rejecting.runtime).catch((caught: unknown) => caught);
    expect(second, 'a rejected start with failIfUnavailable throws too (guided steps 2 and 3)').toBeInstanceOf(
      SandboxUnavailableError,
    );
    expect((second as Error).message).toContain('no user namespaces');
    expect(rejecting.names(), 'after stopping what was started (guided step 2)').toEqual(['missing', 'start', 'stop']);
  });

  test('a sandbox that did not start has nothing to stop', async () => {
    const fake = fakeRuntime({ missing: ['ripgrep (rg) not installed'] });
    const started = await startSandbox(on(), fake.runtime);
    await started.stop();
    expect(fake.names(), 'startSandbox: stop() of a sandbox that did not start does nothing (guided step 3)').toEqual([
      'missing',
    ]);
  });
});
