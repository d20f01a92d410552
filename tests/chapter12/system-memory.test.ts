import { describe, expect, test } from 'vitest';
import { assistantText, userMessage } from 'kit/messages';
import { sessionFromRecords, type SessionRecord } from 'kit/session/session';
import { fileRecords, testStore } from './fixtures.js';

const header: SessionRecord = {
  type: 'session',
  at: '2026-01-01T00:00:00.000Z',
  version: 1,
  id: 's1',
  cwd: '/project',
};
const at = (minute: number) => `2026-01-01T00:0${minute}:00.000Z`;

describe('sessionFromRecords (src/session/session.ts): the system prompt', () => {
  test('a system record gives the session its prompt, and a later one replaces it', () => {
    const session = sessionFromRecords([
      header,
      { type: 'system', at: at(1), system: 'Use tabs.' },
      { type: 'message', at: at(2), message: userMessage('hi') },
      { type: 'system', at: at(3), system: 'Use spaces.' },
      { type: 'message', at: at(4), message: assistantText('ok') },
    ]);
    expect(
      session.system,
      "sessionFromRecords: a system record's text becomes session.system, and the last one wins (the prompt the session last ran under) (guided step 2)",
    ).toBe('Use spaces.');
    expect(session.messages, 'the messages are replayed as before').toHaveLength(2);
    expect(session.updatedAt, 'every record moves updatedAt (guided step 2)').toBe(at(4));
  });

  test('a session without a system record has no prompt yet', () => {
    expect(
      sessionFromRecords([header, { type: 'message', at: at(1), message: userMessage('hi') }]).system,
      'no system record: session.system stays undefined',
    ).toBeUndefined();
  });
});

describe('SessionStore.resume and SessionRecorder.useSystem (src/session/store.ts, session.ts): a session remembers its prompt', () => {
  test('the first prompt is recorded; resumed under the same prompt, nothing is said or written', () => {
    const { store } = testStore();
    const open = store.create('claude-x');
    expect(
      open.recorder.useSystem('Use tabs.'),
      "a new session's first prompt is recorded without a word",
    ).toBeUndefined();
    open.close();
    const again = store.resume('s1');
    expect(
      again.session.system,
      'sessionFromRecords: the resumed session knows the prompt it ran under (guided step 2)',
    ).toBe('Use tabs.');
    expect(again.recorder.useSystem('Use tabs.'), 'the same prompt: nothing to say').toBeUndefined();
    again.close();
    expect(
      fileRecords(store.file('s1'))
        .filter((r) => r.type === 'system')
        .map((r) => r.system),
      'one system record: the prompt did not change',
    ).toEqual(['Use tabs.']);
  });

  test('resumed under another prompt: the session says so, goes on under the new one, and the file keeps both', () => {
    const { store } = testStore();
    const open = store.create();
    open.recorder.useSystem('Use tabs.');
    open.close();
    const again = store.resume('s1');
    const note = again.recorder.useSystem('Use spaces.');
    expect(
      note,
      'a resumed session whose prompt changed says so (useSystem compares with session.system, which sessionFromRecords guided step 2 replays)',
    ).toMatch(/system prompt has changed/);
    expect(again.session.system, 'it goes on under the current prompt').toBe('Use spaces.');
    again.close();
    expect(
      store.load('s1').session.system,
      'sessionFromRecords: the last system record wins when the session is read again (guided step 2)',
    ).toBe('Use spaces.');
    expect(
      fileRecords(store.file('s1'))
        .filter((r) => r.type === 'system')
        .map((r) => r.system),
      'both prompts are in the file, in order',
    ).toEqual(['Use tabs.', 'Use spaces.']);
  });
});
