import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { assistantText, assistantToolCalls, toolResult, userMessage } from 'kit/messages';
import { INTERRUPTED_RESULT, type SessionRecord } from 'kit/session/session';
import {
  KIT_DIR,
  parseSessionFile,
  REDACTED,
  SessionFileError,
  SessionLockedError,
  SessionWriter,
  projectKey,
} from 'kit/session/store';
import { fileRecords, recordShape, tempHome, testStore } from './fixtures.js';

const at = '2026-01-01T00:00:00.000Z';
const header: SessionRecord = { type: 'session', at, version: 1, id: 's1', cwd: '/work/app' };
const lines = (...records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const msg = (text: string): SessionRecord => ({ type: 'message', at, message: userMessage(text) });

function thrown(fn: () => unknown, message = 'it should have thrown, but it returned'): unknown {
  try {
    fn();
  } catch (error) {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    return error;
  }
  return expect.fail(message);
}

describe('parseSessionFile (src/session/store.ts)', () => {
  test('a whole file gives every record back in order, with no warning', () => {
    const text = lines(
      header,
      msg('one'),
      { type: 'usage', at, usage: { inputTokens: 3, outputTokens: 4 } },
      msg('two'),
    );
    const { records, warnings } = parseSessionFile(text, '/x/s1.jsonl');
    expect(
      records.map((r) => r.type),
      'parseSessionFile: one record per line, in file order (guided step 2)',
    ).toEqual(['session', 'message', 'usage', 'message']);
    expect(records[3], 'parseSessionFile: each record is the parsed line (guided step 4)').toEqual(msg('two'));
    expect(warnings, 'parseSessionFile: a whole file gives no warning (the final "\\n" is not a torn line)').toEqual(
      [],
    );
  });

  test('a torn last line is skipped with a warning naming the file and line; the rest loads', () => {
    const text =
      lines(header, msg('one')) + '{"type":"message","at":"2026-01-01T00:00:00.000Z","message":{"role":"assi';
    let parsed: ReturnType<typeof parseSessionFile>;
    try {
      parsed = parseSessionFile(text, '/x/s1.jsonl');
    } catch (error) {
      if (error instanceof Error && error.name === 'TodoError') throw error;
      return expect.fail(
        `parseSessionFile: a torn LAST line (a crash while writing it) must be skipped with a warning, not fail the whole load; it threw ${String(error)} (guided step 2)`,
      );
    }
    const { records, warnings } = parsed;
    expect(
      records.map((r) => r.type),
      'parseSessionFile: only the torn last line is skipped (guided step 2)',
    ).toEqual(['session', 'message']);
    expect(warnings.length, 'parseSessionFile: one warning for the torn line (guided step 2)').toBe(1);
    expect(
      warnings[0],
      'parseSessionFile: the warning names the file and the line number (from 1) (guided step 2)',
    ).toContain('/x/s1.jsonl:3');
  });

  test('a corrupt line in the middle is an error naming the file and line, never skipped', () => {
    const text = lines(header, msg('one')) + 'garbage that is not json\n' + lines(msg('two'));
    const error = thrown(() => parseSessionFile(text, '/x/s1.jsonl'));
    expect(
      error,
      'parseSessionFile: a bad line that is not the last throws a SessionFileError (guided step 2)',
    ).toBeInstanceOf(SessionFileError);
    expect(
      (error as Error).message,
      'parseSessionFile: the error names the file and the line ("/x/s1.jsonl:3") (guided step 2)',
    ).toContain('/x/s1.jsonl:3');
    expect((error as SessionFileError).line, 'parseSessionFile: lines count from 1 (guided step 2)').toBe(3);
  });

  test('the torn line is the last one that is not blank, even before trailing blank lines; an empty file is no records', () => {
    const { records, warnings } = parseSessionFile(lines(header) + '{"type":"mess\n  \n\n', 'f.jsonl');
    expect(
      records.length,
      'parseSessionFile: blank lines after the torn line do not make it a middle line (guided step 1)',
    ).toBe(1);
    expect(warnings, 'parseSessionFile: the warning names line 2 (guided step 2)').toEqual([
      'f.jsonl:2: the last line is incomplete (the process stopped while writing it); skipped',
    ]);
    expect(parseSessionFile('', 'f.jsonl'), 'parseSessionFile: an empty text').toEqual({ records: [], warnings: [] });
    expect(
      parseSessionFile(lines(header) + '   \n' + lines(msg('a')), 'f.jsonl').records.length,
      'parseSessionFile: a line of spaces in the middle is blank, not corrupt (guided step 2)',
    ).toBe(2);
  });

  test('blank lines are skipped, and a line that is not a record is an error even at the end', () => {
    const { records } = parseSessionFile(lines(header) + '\n\n' + lines(msg('one')) + '\n', 'f');
    expect(records.length, 'parseSessionFile: blank lines are not records and not torn (guided step 2)').toBe(2);
    const error = thrown(() => parseSessionFile(lines(header, { no: 'type' }), 'f.jsonl'));
    expect(
      error,
      'parseSessionFile: valid JSON that is not an object with a string type is a SessionFileError (guided step 3)',
    ).toBeInstanceOf(SessionFileError);
    expect((error as Error).message, 'parseSessionFile: names the line (guided step 3)').toContain('f.jsonl:2');
    expect(
      thrown(() => parseSessionFile(lines(header, 42), 'f.jsonl')),
      'parseSessionFile: a number is not a record (guided step 3)',
    ).toBeInstanceOf(SessionFileError);
    const nothing = thrown(() => parseSessionFile(lines(header, null), 'f.jsonl'));
    expect(
      nothing,
      'parseSessionFile: null is not a record (a SessionFileError, not a TypeError) (guided step 3)',
    ).toBeInstanceOf(SessionFileError);
    expect(String(nothing), 'parseSessionFile: says it is not a session record (guided step 3)').toContain(
      'not a session record',
    );
    expect(
      String(thrown(() => parseSessionFile(lines(header) + 'oops\n' + lines(msg('x')), 'f.jsonl'))),
      'parseSessionFile: says the line is not valid JSON (guided step 2)',
    ).toContain('not valid JSON');
  });
});

describe('SessionWriter.open (src/session/store.ts)', () => {
  test('a second writer on the same session is refused while the first holds it, and allowed after close', () => {
    const { base } = tempHome();
    const file = path.join(base, 'sessions', 's1.jsonl');
    const first = SessionWriter.open(file);
    const error = thrown(
      () => SessionWriter.open(file),
      'SessionWriter.open: a second writer while the first holds the lock must be refused (SessionLockedError), but it opened (guided step 2)',
    );
    expect(
      error,
      'SessionWriter.open: the lock is taken, and its process (this one) is alive: SessionLockedError (guided step 2)',
    ).toBeInstanceOf(SessionLockedError);
    expect(
      (error as Error).message,
      'SessionWriter.open: the error names the pid holding the lock (guided step 2)',
    ).toContain(String(process.pid));
    first.append(header);
    first.close();
    const second = SessionWriter.open(file);
    second.append(msg('again'));
    second.close();
    expect(
      recordShape(fileRecords(file)),
      'SessionWriter.open: the file is opened for appending, never truncated (guided step 3)',
    ).toEqual(['session s1', 'message user']);
  });

  test('a lock that holds no pid (0, or garbage) is stale too', () => {
    const { base } = tempHome();
    for (const content of ['0', 'garbage']) {
      const file = path.join(base, 'sessions', `s-${content}.jsonl`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(`${file}.lock`, content);
      const writer = SessionWriter.open(file);
      expect(
        readFileSync(`${file}.lock`, 'utf8'),
        `SessionWriter.open: a lock holding "${content}" names no live process: taken over (guided step 2)`,
      ).toBe(String(process.pid));
      writer.close();
    }
  });

  test('a lock left by a process that is gone is taken over', () => {
    const { base } = tempHome();
    const file = path.join(base, 'sessions', 's1.jsonl');
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.lock`, String(gone));
    const writer = SessionWriter.open(file);
    writer.append(header);
    writer.close();
    expect(
      fileRecords(file).length,
      'SessionWriter.open: a stale lock (dead pid) is removed and the lock taken again (guided step 2)',
    ).toBe(1);
    expect(existsSync(`${file}.lock`), 'SessionWriter.close removes the lock').toBe(false);
  });
});

describe('SessionWriter.append (src/session/store.ts)', () => {
  test('no API key ever reaches the file: it is scrubbed from every line', () => {
    const { base } = tempHome();
    const file = path.join(base, 's.jsonl');
    const key = 'sk-ant-api03-PLANTED-KEY-0123456789';
    const writer = SessionWriter.open(file, [key, 'short', 'EIGHTCHR']);
    writer.append(header);
    writer.append(msg(`my key is ${key}, use it; keep answers short; EIGHTCHR`));
    writer.append({
      type: 'message',
      at,
      message: toolResult({ id: 'c1', name: 'bash' }, `ANTHROPIC_API_KEY=${key}\nPATH=/bin`),
    });
    writer.close();
    const text = readFileSync(file, 'utf8');
    expect(
      text.includes(key),
      'SessionWriter.append: the planted key must not appear anywhere in the session file (guided step 2)',
    ).toBe(false);
    expect(
      text.split(REDACTED).length - 1,
      `SessionWriter.append: each occurrence becomes ${REDACTED} (a secret of exactly 8 characters too) (guided step 2)`,
    ).toBe(3);
    expect(
      text.includes('short'),
      'SessionWriter.open: secrets under 8 characters are not scrubbed (they would eat ordinary words) (guided step 3)',
    ).toBe(true);
    expect(
      text.endsWith('\n') && text.split('\n').length === 4,
      'SessionWriter.append: one line per record, each ending in "\\n" (guided step 3)',
    ).toBe(true);
    expect(fileRecords(file)[2].message.content, 'SessionWriter.append: the scrubbed line is still valid JSON').toBe(
      `ANTHROPIC_API_KEY=${REDACTED}\nPATH=/bin`,
    );
  });
});

describe('SessionStore.list (src/session/store.ts)', () => {
  test('sessions of the project, the one changed last first, with titles; none yet is an empty list', () => {
    const { store } = testStore();
    expect(store.list(), 'SessionStore.list: no sessions folder yet: [] (guided step 1)').toEqual([]);
    const a = store.create('m');
    a.session.messages.push(userMessage('first   task\nwith two lines'), assistantText('ok'));
    a.recorder.record({
      type: 'done',
      reason: 'end_turn',
      turns: 1,
      text: 'ok',
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    const b = store.create('m');
    b.session.messages.push(userMessage('x'.repeat(100)));
    b.recorder.record({ type: 'turn_start', turn: 1 });
    b.close();
    a.recorder.record({ type: 'turn_start', turn: 1 });
    a.close();
    const list = store.list();
    expect(
      list.map((s) => s.id),
      'SessionStore.list: newest updatedAt first (s1 was written last) (guided step 3)',
    ).toEqual(['s1', 's2']);
    expect(list[0]!.title, 'SessionStore.list: the title is the first user message on one line (guided step 2)').toBe(
      'first task with two lines',
    );
    expect(list[1]!.title, 'SessionStore.list: the title is clipped to 60 characters (guided step 2)').toBe(
      'x'.repeat(60),
    );
    expect(list[0]!.messages, 'SessionStore.list: the number of messages (guided step 2)').toBe(2);
    expect(store.latest(), 'SessionStore.latest (for --continue) is the first of the list').toBe('s1');
  });

  test('sorted by the last change, newest first, equal times by id; only .jsonl files count; an empty session has no title', () => {
    const { store } = testStore();
    const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
    const write = (id: string, changed: number, first = '  spaced   title ') =>
      writeFileSync(
        store.file(id),
        lines({ ...header, id, at: at(0) }, { type: 'message', at: at(changed), message: userMessage(first) }),
      );
    store.create().close(); // s1, a session without messages
    write('a', 2);
    write('b', 3);
    write('c', 1);
    write('d', 3);
    const open = store.create(); // s2: its lock file is in the folder while it is open
    writeFileSync(path.join(store.dir, 'notes.txt'), 'not a session');
    const list = store.list().filter((s) => s.id !== 's1' && s.id !== 's2');
    open.close();
    expect(
      list.map((s) => s.id),
      'SessionStore.list: b and d changed last (same time: by id), then a, then c (guided step 3)',
    ).toEqual(['b', 'd', 'a', 'c']);
    expect(
      store
        .list()
        .map((s) => s.id)
        .sort(),
      'SessionStore.list: only the .jsonl files (not the lock, not notes.txt) (guided step 1)',
    ).toEqual(['a', 'b', 'c', 'd', 's1', 's2']);
    expect(list[0]!.title, 'SessionStore.list: the title on one line, trimmed (guided step 2)').toBe('spaced title');
    expect(
      store.list().find((s) => s.id === 's1')!.title,
      'SessionStore.list: no messages, no title (guided step 2)',
    ).toBe('');
  });

  test('a damaged session is listed with its problem, never left out', () => {
    const { store } = testStore();
    store.create().close();
    const broken = store.create();
    broken.close();
    writeFileSync(store.file('s2'), lines(header) + 'broken\n' + lines(msg('x')));
    const list = store.list();
    expect(
      list.map((s) => s.id).sort(),
      'SessionStore.list: every .jsonl file is listed, damaged or not (guided step 2)',
    ).toEqual(['s1', 's2']);
    const bad = list.find((s) => s.id === 's2')!;
    expect(
      bad.problem,
      'SessionStore.list: the damaged one carries the error, which names file and line (guided step 2)',
    ).toContain('s2.jsonl:2');
    expect(
      bad,
      'SessionStore.list: a damaged session: empty times, 0 messages, idle, no title (guided step 2)',
    ).toEqual({
      id: 's2',
      createdAt: '',
      updatedAt: '',
      messages: 0,
      title: '',
      status: 'idle',
      problem: bad.problem,
    });
    expect(store.latest(), 'SessionStore.latest skips a damaged session').toBe('s1');
  });
});

describe('SessionStore.fork (src/session/store.ts)', () => {
  const call = { id: 'c1', name: 'read', arguments: { path: 'a.txt' } };
  function saved() {
    const setup = testStore();
    const open = setup.store.create('m');
    const other = { id: 'c2', name: 'read', arguments: { path: 'b.txt' } };
    open.session.messages.push(
      userMessage('read a.txt'),
      assistantToolCalls([call, other]),
      toolResult(call, 'A'),
      toolResult(other, 'B'),
      assistantText('It says A.'),
      userMessage('and b?'),
      assistantText('No b.'),
    );
    open.close();
    return setup;
  }

  test('a fork is a new session holding the first n messages; the original is untouched', () => {
    const { store, home, project } = saved();
    const before = readFileSync(store.file('s1'), 'utf8');
    const fork = store.fork('s1', 5);
    expect(fork.id, 'SessionStore.fork: a new id (guided step 3)').toBe('s2');
    expect(
      fork.messages.map((m) => m.role),
      'SessionStore.fork: the first 5 messages (guided step 2)',
    ).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(fork.forkedFrom, 'SessionStore.fork: forkedFrom names the source and the cut (guided step 3)').toEqual({
      id: 's1',
      messages: 5,
    });
    expect(fork.model, 'SessionStore.fork: the fork keeps the model (guided step 3)').toBe('m');
    const loaded = store.load('s2').session;
    expect(
      loaded.messages,
      'SessionStore.fork: the fork is on disk: loading it gives the kept messages (guided step 3)',
    ).toEqual(fork.messages);
    expect(loaded.forkedFrom, 'SessionStore.fork: forkedFrom is in the file (guided step 3)').toEqual({
      id: 's1',
      messages: 5,
    });
    expect(loaded.model, "SessionStore.fork: the model is in the file's session record (guided step 3)").toBe('m');
    expect(
      store.fork('s1', 1).messages,
      'SessionStore.fork: keeping only the first message is allowed (guided step 1)',
    ).toEqual([userMessage('read a.txt')]);
    expect(
      store.fork('s1', 7).messages.length,
      'SessionStore.fork: keeping every message is allowed (guided step 1)',
    ).toBe(7);
    expect(readFileSync(store.file('s1'), 'utf8'), 'SessionStore.fork: the original file is not changed').toBe(before);
    expect(path.dirname(store.file('s2')), `the sessions live in $HOME/${KIT_DIR}/sessions/<project key>`).toBe(
      path.join(home, KIT_DIR, 'sessions', projectKey(project)),
    );
  });

  test('a cut between a call and its result is refused, and no file is made', () => {
    const { store } = saved();
    const error = thrown(() => store.fork('s1', 3));
    expect(
      String(error),
      "SessionStore.fork: keeping c1 and its result but not c2's would make an invalid history; the error gives the problems (guided step 2)",
    ).toMatch(/split[^;]*c2/);
    expect(
      String(thrown(() => store.fork('s1', 2))),
      'SessionStore.fork: every problem, joined with "; " (guided step 2)',
    ).toMatch(/c1.*; .*c2/);
    expect(
      thrown(() => store.fork('s1', 8)),
      'SessionStore.fork: more messages than the session has (guided step 1)',
    ).toBeInstanceOf(Error);
    expect(
      String(thrown(() => store.fork('s1', 0))),
      'SessionStore.fork: the error gives the range (guided step 1)',
    ).toContain('1 to 7');
    expect(
      readdirSync(store.dir).filter((f) => f.endsWith('.jsonl')),
      'SessionStore.fork: a refused fork writes nothing',
    ).toEqual(['s1.jsonl']);
  });
});

describe('SessionStore.resume (src/session/store.ts)', () => {
  test('a session whose process died mid-run resumes with a valid history, repaired in the file too', () => {
    const { store } = testStore();
    const open = store.create('m');
    const call = { id: 'c9', name: 'bash', arguments: { command: 'make' } };
    open.session.messages.push(userMessage('build it'), assistantToolCalls([call]));
    open.recorder.record({ type: 'turn_start', turn: 1 });
    open.writer.close(); // killed: no done, no result, no close()
    const resumed = store.resume('s1');
    expect(
      resumed.session.messages,
      'sessionFromRecords + resume: the open call gets an error result, so the next run can go on',
    ).toBeValidHistory('after resuming a crashed session');
    expect(resumed.session.messages.at(-1), 'resume: the result says the session stopped').toEqual(
      toolResult(call, INTERRUPTED_RESULT, true),
    );
    expect(resumed.session.status, 'resume: a crashed run is over: idle').toBe('idle');
    resumed.close();
    expect(store.load('s1').session.messages, 'resume: the repair is written to the file as well').toBeValidHistory(
      'after loading the repaired file',
    );
  });
});
