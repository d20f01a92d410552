import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { PathOutsideWorkspaceError, resolveInWorkspace } from 'kit/workspace';
import { rejection } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('resolveInWorkspace (src/workspace.ts)', () => {
  test('resolves a relative path against the root', async () => {
    const { root } = tempWorkspace({ 'src/a.ts': '' });
    expect(await resolveInWorkspace(root, 'src/a.ts')).toBe(path.join(root, 'src/a.ts'));
  });

  test('accepts a path that goes up and comes back inside', async () => {
    const { root } = tempWorkspace({ 'b.txt': '' });
    expect(await resolveInWorkspace(root, 'src/../b.txt')).toBe(path.join(root, 'b.txt'));
  });

  test.each([['../outside/secret.txt'], ['src/../../outside/secret.txt'], ['..']])('refuses %j, which leaves the root', async (requested) => {
    const { root } = tempWorkspace();
    expect(await rejection(resolveInWorkspace(root, requested), `"${requested}" leads out of the root and must be refused`)).toBeInstanceOf(
      PathOutsideWorkspaceError,
    );
  });

  test('refuses an absolute path outside the root, naming it', async () => {
    const { root, outside } = tempWorkspace();
    const requested = path.join(outside, 'secret.txt');
    const error = await rejection(resolveInWorkspace(root, requested), 'an absolute path outside the root must be refused');
    expect(error).toBeInstanceOf(PathOutsideWorkspaceError);
    expect((error as Error).message).toContain(requested);
  });

  test('refuses a sibling folder whose name starts like the root', async () => {
    const { root } = tempWorkspace();
    mkdirSync(`${root}-evil`);
    expect(
      await rejection(resolveInWorkspace(root, `${root}-evil/x`), `${root}-evil is not inside ${root}: a plain startsWith check is not enough`),
    ).toBeInstanceOf(PathOutsideWorkspaceError);
  });

  test('accepts an absolute path inside the root', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'a' });
    expect(await resolveInWorkspace(root, path.join(root, 'a.txt'))).toBe(path.join(root, 'a.txt'));
  });

  test('accepts a file that does not exist yet, so it can be written', async () => {
    const { root } = tempWorkspace();
    expect(await resolveInWorkspace(root, 'new/dir/file.txt')).toBe(path.join(root, 'new/dir/file.txt'));
  });

  test('refuses a symlink inside the root that points outside it', async () => {
    const { root, outside } = tempWorkspace();
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'innocent.txt'));
    expect(
      await rejection(resolveInWorkspace(root, 'innocent.txt'), 'innocent.txt is a symlink to a file outside: follow symlinks (realpath) before deciding'),
    ).toBeInstanceOf(PathOutsideWorkspaceError);
  });

  test('refuses a new file below a symlinked folder that points outside', async () => {
    const { root, outside } = tempWorkspace();
    symlinkSync(outside, path.join(root, 'linked'));
    expect(
      await rejection(
        resolveInWorkspace(root, 'linked/new-file.txt'),
        'linked/ is a symlink to a folder outside: for a path that does not exist yet, check its nearest existing parent and follow symlinks',
      ),
    ).toBeInstanceOf(PathOutsideWorkspaceError);
  });

  test('checks the path as written: leaving the root by name is refused even if it leads back to the same folder', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'a' });
    // The workspace is opened through a symlink (`link` -> `project`); `../project/a.txt` names a folder beside it.
    const link = path.join(path.dirname(root), 'link');
    symlinkSync(root, link);
    expect(
      await rejection(
        resolveInWorkspace(link, '../project/a.txt'),
        '"../project/a.txt" leaves the root by name: check path.resolve(root, requested) with isInside before following symlinks',
      ),
    ).toBeInstanceOf(PathOutsideWorkspaceError);
  });

  test('accepts a symlink that stays inside the root', async () => {
    const { root } = tempWorkspace({ 'real.txt': 'x' });
    symlinkSync(path.join(root, 'real.txt'), path.join(root, 'alias.txt'));
    expect(await resolveInWorkspace(root, 'alias.txt')).toBe(path.join(root, 'alias.txt'));
  });
});
