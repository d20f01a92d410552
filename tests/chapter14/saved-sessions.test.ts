import * as acp from '@agentclientprotocol/sdk';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { savedSessions } from 'kit/acp/saved-sessions';
import { userMessage } from 'kit/messages';
import { sessionsDir, SessionStore } from 'kit/session/store';
import { rejection, settles } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { editor, holding, testFactory, until } from './fixtures.js';
import { MockProvider } from 'kit/mock-provider';
import { within } from '../helpers/wait.js';

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const e of open.splice(0)) e.close();
});
const errorOf = async (promise: Promise<unknown>, message: string) =>
  (await rejection(promise, message)) as { code?: number; message?: string };

/** A home with saved sessions: `sessions` is [project folder, id, first prompt, minute it changed] per session. */
function homeWith(sessions: Array<[cwd: string, id: string, prompt: string, minute: number]>) {
  const home = path.join(path.dirname(tempWorkspace().root), 'home');
  mkdirSync(home);
  for (const [cwd, id, prompt, minute] of sessions) {
    const at = new Date(Date.UTC(2026, 0, 1, 10, minute));
    const store = new SessionStore({ home, cwd, now: () => at, newId: () => id });
    const one = store.create();
    one.session.messages.push(userMessage(prompt));
    one.recorder.record({
      type: 'done',
      reason: 'end_turn',
      turns: 1,
      text: '',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    one.close();
  }
  return home;
}
const fileOf = (home: string, cwd: string, id: string) => path.join(sessionsDir(home, cwd), `${id}.jsonl`);

function connect(home: string | undefined, factory = testFactory()) {
  const e = editor({ openSession: factory.openSession, ...(home ? { sessions: savedSessions(home) } : {}) });
  open.push(e);
  return e;
}
const init = (e: ReturnType<typeof connect>) =>
  e.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });

describe('AcpServer.listSessions (src/acp/session-admin.ts)', () => {
  test("lists a folder's saved sessions with their titles, the one changed last first; without a folder, every project's", async () => {
    const a = tempWorkspace().root;
    const b = tempWorkspace().root;
    const home = homeWith([
      [a, 'old', 'Fix the\nlogin bug', 1],
      [a, 'new', 'Add a README', 5],
      [b, 'other', 'Rename the package', 3],
    ]);
    const e = connect(home);
    const caps = (await init(e)).agentCapabilities?.sessionCapabilities;
    expect(
      caps,
      'AcpServer.initialize: with saved sessions, list, delete and close are offered (sessionCapabilities(), given)',
    ).toMatchObject({ list: {}, delete: {}, close: {} });
    const mine = await settles(
      e.agent.request(acp.methods.agent.session.list, { cwd: a }),
      'AcpServer.listSessions: session/list with a cwd must answer',
    );
    expect(
      mine.sessions,
      'AcpServer.listSessions: the sessions of that folder only, newest first, with id, folder, title (one line) and updatedAt (guided steps 2-3)',
    ).toEqual([
      { sessionId: 'new', cwd: a, title: 'Add a README', updatedAt: '2026-01-01T10:05:00.000Z' },
      { sessionId: 'old', cwd: a, title: 'Fix the login bug', updatedAt: '2026-01-01T10:01:00.000Z' },
    ]);
    expect(
      mine.nextCursor ?? undefined,
      'AcpServer.listSessions: one page, no next cursor (guided step 4)',
    ).toBeUndefined();
    const all = await e.agent.request(acp.methods.agent.session.list, {});
    expect(
      all.sessions.map((s) => `${s.cwd === a ? 'a' : s.cwd === b ? 'b' : s.cwd}:${s.sessionId}`).sort(),
      'AcpServer.listSessions: without a cwd, the sessions of every project (saved.projects()) (guided step 2)',
    ).toEqual(['a:new', 'a:old', 'b:other']);
  });

  test('a session without a first prompt has a null title; a damaged file is left out; a folder with none is []', async () => {
    const a = tempWorkspace().root;
    const home = homeWith([[a, 'good', 'Hello', 1]]);
    const empty = new SessionStore({ home, cwd: a, newId: () => 'blank' }).create();
    empty.close();
    writeFileSync(fileOf(home, a, 'broken'), 'not json\n{"type":"session"}\n');
    const e = connect(home);
    await init(e);
    const { sessions } = await e.agent.request(acp.methods.agent.session.list, { cwd: a });
    expect(
      sessions.map((s) => [s.sessionId, s.title]).sort(),
      "AcpServer.listSessions: '' becomes a null title; a summary with a problem is not listed (guided step 3)",
    ).toEqual([
      ['blank', null],
      ['good', 'Hello'],
    ]);
    const none = await e.agent.request(acp.methods.agent.session.list, { cwd: tempWorkspace().root });
    expect(none.sessions, 'AcpServer.listSessions: a folder without saved sessions has none').toEqual([]);
  });

  test('a cursor it never gave and a relative folder are invalid params; without saved sessions, list is not offered', async () => {
    const home = homeWith([]);
    const e = connect(home);
    await init(e);
    const cursor = await errorOf(
      e.agent.request(acp.methods.agent.session.list, { cursor: 'page-2' }),
      'AcpServer.listSessions: a cursor must be refused (guided step 1)',
    );
    expect(cursor.code, 'AcpServer.listSessions: invalid params (-32602) for a cursor (guided step 1)').toBe(-32602);
    expect(
      cursor.message,
      'AcpServer.listSessions: the message names the cursor it never gave (guided step 1)',
    ).toContain('page-2');
    const relative = await errorOf(
      e.agent.request(acp.methods.agent.session.list, { cwd: 'project' }),
      'AcpServer.listSessions: a relative cwd must be refused (guided step 1)',
    );
    expect(relative, 'AcpServer.listSessions: invalid params naming the folder (guided step 1)').toMatchObject({
      code: -32602,
      message: expect.stringContaining('project'),
    });
    const bare = connect(undefined);
    const caps = (await init(bare)).agentCapabilities?.sessionCapabilities;
    expect(
      [caps?.list ?? undefined, caps?.delete ?? undefined],
      'AcpServer.initialize: no saved sessions, no list or delete',
    ).toEqual([undefined, undefined]);
    const missing = await errorOf(
      bare.agent.request(acp.methods.agent.session.list, {}),
      'session/list without saved sessions must fail',
    );
    expect(missing.code, 'session/list without saved sessions: method not found (-32601)').toBe(-32601);
  });
});

describe('AcpServer.closeSession (src/acp/session-admin.ts)', () => {
  test('closing a session cancels its running prompt, closes it once, and forgets it', async () => {
    const factory = testFactory({ provider: () => holding(new MockProvider([]), 1) });
    const e = connect(undefined, factory);
    const { root } = tempWorkspace();
    const { sessionId } = await e.open(root);
    const running = e.prompt(sessionId, 'Think');
    await until(() => e.of(sessionId).length > 0, 'the prompt should be streaming before the close');
    await settles(
      e.agent.request(acp.methods.agent.session.close, { sessionId }),
      'AcpServer.closeSession: session/close must answer',
    );
    const answer = await within(running, 'AcpServer.closeSession: the running prompt must end (guided step 2)');
    expect(
      answer.stopReason,
      'AcpServer.closeSession: the running prompt ends cancelled (stopSession) (guided step 2)',
    ).toBe('cancelled');
    expect(
      factory.closed.map((c) => c.id),
      'AcpServer.closeSession: the handle is closed once (guided step 2)',
    ).toEqual([sessionId]);
    expect(e.server.sessions.has(sessionId), 'AcpServer.closeSession: the session is forgotten (guided step 2)').toBe(
      false,
    );
    const after = await errorOf(e.prompt(sessionId, 'Again'), 'a prompt to a closed session must fail');
    expect(after.code, 'AcpServer.closeSession: a closed session is unknown (-32002) (guided step 2)').toBe(-32002);
  });

  test('closing an unknown session is -32002 naming it (which the SDK client takes as "already closed")', async () => {
    const e = connect(undefined);
    await init(e);
    const error = await errorOf(
      e.server.closeSession({ sessionId: 'nope' }),
      'AcpServer.closeSession: an unknown session must be refused (guided step 1)',
    );
    expect(error, 'AcpServer.closeSession: -32002 naming the session (guided step 1)').toMatchObject({
      code: -32002,
      message: expect.stringContaining('nope'),
    });
    await settles(
      e.agent.request(acp.methods.agent.session.close, { sessionId: 'nope' }),
      'AcpServer.closeSession: over the wire, -32002 is what ACP asks for, and the client treats it as done (guided step 1)',
    );
  });
});

describe('AcpServer.deleteSession (src/acp/session-admin.ts)', () => {
  test('deletes the saved session, and only it; an unknown id is an error that names it', async () => {
    const a = tempWorkspace().root;
    const home = homeWith([
      [a, 'keep', 'One', 1],
      [a, 'drop', 'Two', 2],
    ]);
    const e = connect(home);
    await init(e);
    await settles(
      e.agent.request(acp.methods.agent.session.delete, { sessionId: 'drop' }),
      'AcpServer.deleteSession: deleting a saved session must succeed',
    );
    expect(
      [existsSync(fileOf(home, a, 'drop')), existsSync(fileOf(home, a, 'keep'))],
      'AcpServer.deleteSession: its file is removed, the other stays (guided step 4)',
    ).toEqual([false, true]);
    const { sessions } = await e.agent.request(acp.methods.agent.session.list, { cwd: a });
    expect(
      sessions.map((s) => s.sessionId),
      'AcpServer.deleteSession: the list no longer has it',
    ).toEqual(['keep']);
    const unknown = await errorOf(
      e.server.deleteSession({ sessionId: 'drop' }),
      'AcpServer.deleteSession: a session with no file must be refused (guided step 2)',
    );
    expect(unknown, 'AcpServer.deleteSession: -32002 naming the session (guided step 2)').toMatchObject({
      code: -32002,
      message: expect.stringContaining('drop'),
    });
    expect(
      unknown,
      "AcpServer.deleteSession: the error's data is { sessionId } (new RequestError(-32002, message, { sessionId })) (guided step 2)",
    ).toMatchObject({ data: { sessionId: 'drop' } });
  });

  test('an id that is a path is refused before any file is looked at: "../" in an id deletes nothing', async () => {
    const a = tempWorkspace().root;
    const home = homeWith([[a, 'mine', 'One', 1]]);
    const root = path.join(home, '.coding-agent', 'sessions');
    // What path.join(folder, `${id}.jsonl`) reaches for these ids: files that must survive.
    writeFileSync(path.join(root, 'victim.jsonl'), 'precious\n');
    mkdirSync(path.join(home, 'docs'));
    writeFileSync(path.join(home, 'docs', 'notes.jsonl'), 'precious\n');
    const e = connect(home);
    await init(e);
    for (const id of ['../victim', '../../../docs/notes', 'a/../../victim', '', '.', 'mine.jsonl']) {
      const error = await errorOf(
        e.agent.request(acp.methods.agent.session.delete, { sessionId: id }),
        `AcpServer.deleteSession: the id ${JSON.stringify(id)} must be refused (guided step 1)`,
      );
      expect(
        error.code,
        `AcpServer.deleteSession: ${JSON.stringify(id)} is not a session id: invalid params (-32602), checked with SESSION_ID before any path is made (guided step 1)`,
      ).toBe(-32602);
      expect(
        error.message,
        `AcpServer.deleteSession: the message names the id ${JSON.stringify(id)} (guided step 1)`,
      ).toContain(id === '' ? '""' : id);
    }
    expect(
      [
        existsSync(path.join(root, 'victim.jsonl')),
        existsSync(path.join(home, 'docs', 'notes.jsonl')),
        existsSync(fileOf(home, a, 'mine')),
      ],
      'AcpServer.deleteSession: nothing outside the sessions is removed, nor any session (guided step 1)',
    ).toEqual([true, true, true]);
  });

  test('an id that is not a string is refused, even one that reads as a saved id once made text: nothing is deleted', async () => {
    const a = tempWorkspace().root;
    const home = homeWith([
      [a, 'mine', 'One', 1],
      [a, '42', 'Two', 2],
    ]);
    const e = connect(home);
    await init(e);
    // A client sends JSON; the SDK's types say string, but nothing stops ["mine"] or 42 arriving. As text they are ids.
    for (const id of [['mine'], 42]) {
      const error = await errorOf(
        e.server.deleteSession({ sessionId: id as never }),
        `AcpServer.deleteSession: the id ${JSON.stringify(id)} (not a string) must be refused (guided step 1)`,
      );
      expect(
        error.code,
        `AcpServer.deleteSession: ${JSON.stringify(id)} is not a session id (a string matching SESSION_ID): invalid params (-32602) (guided step 1)`,
      ).toBe(-32602);
    }
    expect(
      [existsSync(fileOf(home, a, 'mine')), existsSync(fileOf(home, a, '42'))],
      'AcpServer.deleteSession: no saved session is removed for an id that is not a string (guided step 1)',
    ).toEqual([true, true]);
  });

  test('a session open on this connection is closed (and saved) before its file is removed', async () => {
    const a = tempWorkspace().root;
    const home = homeWith([[a, 's1', 'One', 1]]);
    const factory = testFactory();
    const fileAtClose: boolean[] = [];
    const e = editor({
      openSession: async (setup) => {
        const handle = await factory.openSession(setup);
        return { ...handle, close: async () => (fileAtClose.push(existsSync(fileOf(home, a, 's1'))), handle.close()) };
      },
      sessions: savedSessions(home),
    });
    open.push(e);
    const { sessionId } = await e.open(a);
    expect(sessionId, 'the test session is s1').toBe('s1');
    await settles(
      e.agent.request(acp.methods.agent.session.delete, { sessionId }),
      'AcpServer.deleteSession: deleting an open session must succeed',
    );
    expect(
      fileAtClose,
      'AcpServer.deleteSession: the open session is closed once, while its file still exists (close first, then remove) (guided step 3)',
    ).toEqual([true]);
    expect(existsSync(fileOf(home, a, 's1')), 'AcpServer.deleteSession: then its file is removed (guided step 4)').toBe(
      false,
    );
    expect(e.server.sessions.has(sessionId), 'AcpServer.deleteSession: the session is forgotten (guided step 3)').toBe(
      false,
    );
  });

  test('a session another live process is writing is refused, and its file stays', async () => {
    const a = tempWorkspace().root;
    const home = homeWith([[a, 'busy', 'One', 1]]);
    writeFileSync(`${fileOf(home, a, 'busy')}.lock`, String(process.ppid));
    const e = connect(home);
    await init(e);
    const error = await errorOf(
      e.agent.request(acp.methods.agent.session.delete, { sessionId: 'busy' }),
      'AcpServer.deleteSession: a locked session must be refused (guided step 4)',
    );
    expect(error, 'AcpServer.deleteSession: invalid request (-32600) naming the session (guided step 4)').toMatchObject(
      {
        code: -32600,
        message: expect.stringContaining('busy'),
      },
    );
    expect(existsSync(fileOf(home, a, 'busy')), 'AcpServer.deleteSession: the file stays (guided step 4)').toBe(true);
  });
});
