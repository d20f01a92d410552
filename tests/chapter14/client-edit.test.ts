/**
 * Chapter 14: an edit over ACP goes through the editor too (AcpServer.newSession gives the session clientEditTool
 * when the client offers both fs/read_text_file and fs/write_text_file). Otherwise the edit would read the disk and
 * write it behind the buffer the model just read, and the editor's unsaved change would be lost.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { assistantText, assistantToolCalls } from 'kit/messages';
import { tempWorkspace } from '../helpers/workspace.js';
import { editor, testFactory } from './fixtures.js';

describe('edits through the editor (AcpServer.newSession, clientEditTool)', () => {
  test("an edit changes the editor's buffer, through fs/write_text_file, and leaves the disk alone", async () => {
    const { root } = tempWorkspace({ 'notes.md': 'on disk: old words\n' });
    const file = path.join(root, 'notes.md');
    const files = new Map([[file, "unsaved: old words, and the person's new line\n"]]);
    const script = [
      assistantToolCalls([
        { id: 'e1', name: 'edit', arguments: { path: 'notes.md', old_string: 'old words', new_string: 'new words' } },
      ]),
      assistantText('done'),
    ];
    const factory = testFactory({ script, mode: 'acceptEdits' });
    const e = editor(factory, { files });
    const { sessionId } = await e.open(root);
    const answer = await e.prompt(sessionId, 'edit it');
    expect(answer.stopReason).toBe('end_turn');
    expect(
      factory.setups[0]!.tools.map((tool) => tool.name),
      'AcpServer.newSession: with both fs capabilities the session gets read, write and edit through the client',
    ).toEqual(['read', 'write', 'edit']);
    expect(files.get(file), "the edit was made on the editor's buffer, keeping its unsaved line").toBe(
      "unsaved: new words, and the person's new line\n",
    );
    expect(e.fileRequests.at(-1), 'the edit was written through fs/write_text_file').toBe(`write ${file}`);
    expect(readFileSync(file, 'utf8'), 'the disk is untouched: the editor saves it').toBe('on disk: old words\n');
  });
});
