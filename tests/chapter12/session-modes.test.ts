/**
 * Chapter 12: a session file holds everything the model read (src/session/store.ts), so nobody but its owner may
 * read it: 0600 files in 0700 folders, as Claude Code writes its transcripts, whether the file is new, appended to
 * on a resume, or written again as a fork; and a session left 0644 by an older kit is tightened when it is opened.
 */
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { userMessage } from 'kit/messages';
import { SessionWriter, sessionsDir } from 'kit/session/store';
import { testStore } from './fixtures.js';

const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

describe('SessionWriter.open keeps sessions private (src/session/store.ts)', () => {
  test('a new session file is 0600, its lock 0600, and the folders made for it 0700', () => {
    const { store, home, project } = testStore();
    const open = store.create();
    const file = store.file(open.session.id);
    try {
      expect(mode(file), 'SessionWriter.open: open the file with mode 0o600 (PRIVATE_FILE) (guided step 3)').toBe(
        '600',
      );
      expect(mode(`${file}.lock`), 'SessionWriter.open: the lock is created 0600 too (guided step 2)').toBe('600');
      expect(mode(sessionsDir(home, project)), 'SessionWriter.open: the project folder is 0700 (guided step 1)').toBe(
        '700',
      );
      expect(
        mode(path.dirname(sessionsDir(home, project))),
        'SessionWriter.open: mkdir with mode 0o700 makes every folder it creates 0700, the sessions folder too (guided step 1)',
      ).toBe('700');
    } finally {
      open.close();
    }
  });

  test('a session left 0644 in a 0755 folder is tightened when it is resumed, before anything is appended', () => {
    const { store } = testStore();
    const first = store.create();
    first.session.messages.push(userMessage('read the .env file'));
    first.close();
    const file = store.file(first.session.id);
    chmodSync(file, 0o644);
    chmodSync(path.dirname(file), 0o755);
    const again = store.resume(first.session.id);
    try {
      expect(
        mode(file),
        "SessionWriter.open: open's mode applies only to a new file: fchmod the one already there to 0600 (guided step 3)",
      ).toBe('600');
      expect(
        mode(path.dirname(file)),
        "SessionWriter.open: mkdir's mode applies only to new folders: chmod the session folder to 0700 (guided step 1)",
      ).toBe('700');
    } finally {
      again.close();
    }
  });

  test('a fork is written 0600, and a writer opened on any file leaves it 0600', () => {
    const { store, base } = testStore();
    const first = store.create();
    first.session.messages.push(userMessage('hello'));
    first.close();
    const fork = store.fork(first.session.id, 1);
    expect(mode(store.file(fork.id)), 'SessionStore.fork: the copy is a session file like any other: 0600').toBe('600');

    const folder = path.join(base, 'loose');
    mkdirSync(folder, { mode: 0o777 });
    chmodSync(folder, 0o777);
    const loose = path.join(folder, 'by-hand.jsonl');
    writeFileSync(loose, '', { mode: 0o666 });
    chmodSync(loose, 0o666);
    const writer = SessionWriter.open(loose);
    writer.close();
    expect(
      [mode(loose), mode(folder)],
      'SessionWriter.open: the file and its folder are private, whatever they were',
    ).toEqual(['600', '700']);
    expect(existsSync(`${loose}.lock`), 'SessionWriter.close: the lock is gone').toBe(false);
  });
});
