/**
 * Chapter 12: sessions are kept per project (src/session/store.ts). Two projects whose paths differ only in
 * punctuation (`my.app`, `my-app`) must not share their sessions: --continue in one resumed the other's.
 */
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { SessionStore } from 'kit/session/store';
import { userMessage } from 'kit/messages';
import { tempHome } from './fixtures.js';

describe('project keys (src/session/store.ts)', () => {
  test('my.app and my-app keep their own sessions', () => {
    const { home, base } = tempHome();
    const dotted = path.join(base, 'my.app');
    const dashed = path.join(base, 'my-app');
    const open = new SessionStore({ home, cwd: dashed }).create();
    open.recorder.record({ type: 'message', message: userMessage('the my-app prompt') } as never);
    open.close();
    expect(
      new SessionStore({ home, cwd: dashed }).list().map((one) => one.id),
      'SessionStore.list: the session of my-app is listed there',
    ).toEqual([open.session.id]);
    expect(
      new SessionStore({ home, cwd: dotted }).list(),
      "SessionStore.list: my.app has no session: its folder must not be my-app's (projectKey)",
    ).toEqual([]);
  });

  test('a project deep enough for its key to pass 255 bytes still keeps its sessions, apart from its neighbours', () => {
    const { home, base } = tempHome();
    const deep = path.join(base, ...Array.from({ length: 12 }, (_, i) => `a-rather-long-folder-name-${i}`));
    const sibling = `${deep}x`;
    const open = new SessionStore({ home, cwd: deep }).create();
    open.close();
    expect(
      new SessionStore({ home, cwd: deep }).list().map((one) => one.id),
      'SessionStore: a long path makes a key too long for a folder name unless projectKey cuts it',
    ).toEqual([open.session.id]);
    expect(
      new SessionStore({ home, cwd: sibling }).list(),
      'projectKey: two long paths that share their first 200 characters still have keys of their own (the hash)',
    ).toEqual([]);
  });
});
