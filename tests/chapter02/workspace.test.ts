import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { PathOutsideWorkspaceError, resolveInWorkspace } from 'kit/workspace';
import { rejection, settles } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('resolveInWorkspace (src/workspace.ts)', () => {
  test('resolves a relative path against the root', async () => {
    const { root } = tempWorkspace({ 'src/a.ts': '' });
    const why =
      'resolveInWorkspace: resolve the path against the root, path.resolve(root, requested), not against the folder the process runs in (guided step 1)';
    expect(await settles(resolveInWorkspace(root, 'src/a.ts'), why), why).toBe(path.join(root, 'src/a.ts'));
  });

  test('accepts a path that goes up and comes back inside', async () => {
    const { root } = tempWorkspace({ 'b.txt': '' });
    expect(
      await resolveInWorkspace(root, 'src/../b.txt'),
      '`..` that stays inside is fine; return the resolved path',
    ).toBe(path.join(root, 'b.txt'));
  });

  test.each([['../outside/secret.txt'], ['src/../../outside/secret.txt'], ['..']])(
    'refuses %j, which leaves the root',
    async (requested) => {
      const { root } = tempWorkspace();
      expect(
        await rejection(
          resolveInWorkspace(root, requested),
          `"${requested}" leads out of the root and must be refused`,
        ),
      ).toBeInstanceOf(PathOutsideWorkspaceError);
    },
  );

  test('refuses an absolute path outside the root, naming it', async () => {
    const { root, outside } = tempWorkspace();
    const requested = path.join(outside, 'secret.txt');
    const error = await rejection(
      resolveInWorkspace(root, requested),
      'an absolute path outside the root must be refused',
    );
    expect(error, 'throw PathOutsideWorkspaceError (guided step 2)').toBeInstanceOf(PathOutsideWorkspaceError);
    expect((error as Error).message, 'the message names the path (guided step 2)').toContain(requested);
  });

  test('refuses a sibling folder whose name starts like the root', async () => {
    const { root } = tempWorkspace();
    mkdirSync(`${root}-evil`);
    expect(
      await rejection(
        resolveInWorkspace(root, `${root}-evil/x`),
        `${root}-evil is not inside ${root}: a plain startsWith check is not enough`,
      ),
    ).toBeInstanceOf(PathOutsideWorkspaceError);
  });

  test('accepts an absolute path inside the root', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'a' });
    expect(
      await resolveInWorkspace(root, path.join(root, 'a.txt')),
      'an absolute path inside the root is accepted',
    ).toBe(path.join(root, 'a.txt'));
  });

  test('accepts a file that does not exist yet, so it can be written', async () => {
    const { root } = tempWorkspace();
    expect(
      await resolveInWorkspace(root, 'new/dir/file.txt'),
      'a path that does not exist yet is accepted when it would be inside',
    ).toBe(path.join(root, 'new/dir/file.txt'));
  });

  test('refuses a symlink inside the root that points outside it', async () => {
    const { root, outside } = tempWorkspace();
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'innocent.txt'));
    expect(
      await rejection(
        resolveInWorkspace(root, 'innocent.txt'),
        'innocent.txt is a symlink to a file outside: follow symlinks (realLocation) before deciding (guided step 3)',
      ),
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
    expect(
      await resolveInWorkspace(root, 'alias.txt'),
      'a link that stays inside is accepted, and the path is returned as asked, not the real one (guided step 4)',
    ).toBe(path.join(root, 'alias.txt'));
  });

  test('refuses a dangling symlink to a file outside that does not exist yet', async () => {
    const { root, outside } = tempWorkspace();
    symlinkSync('../outside/planted.txt', path.join(root, 'notes.txt'));
    expect(
      await rejection(
        resolveInWorkspace(root, 'notes.txt'),
        'notes.txt is a link to ../outside/planted.txt, which does not exist yet: writing it would create a file outside. ' +
          'Step 3: a link counts even when its target is missing (realLocation follows it)',
      ),
    ).toBeInstanceOf(PathOutsideWorkspaceError);
    expect(existsSync(path.join(outside, 'planted.txt')), 'nothing was created outside').toBe(false);
  });

  test('refuses a new file below a dangling symlink to a folder outside that does not exist yet', async () => {
    const { root } = tempWorkspace();
    symlinkSync('../outside/later', path.join(root, 'build'));
    expect(
      await rejection(
        resolveInWorkspace(root, 'build/out.js'),
        'build/ is a link to ../outside/later, a folder that does not exist yet: guided step 3 must follow it anyway (realLocation)',
      ),
    ).toBeInstanceOf(PathOutsideWorkspaceError);
  });

  test('accepts a dangling symlink whose target would be inside the root', async () => {
    const { root } = tempWorkspace();
    symlinkSync('drafts/new.txt', path.join(root, 'current.txt'));
    expect(
      await settles(
        resolveInWorkspace(root, 'current.txt'),
        'current.txt links to drafts/new.txt, which does not exist yet but would be inside: accept it',
      ),
      'return the path as asked (guided step 4)',
    ).toBe(path.join(root, 'current.txt'));
  });

  test('refuses a link whose target climbs out through another link (`..` after a link is not plain string arithmetic)', async () => {
    const { root, outside } = tempWorkspace();
    mkdirSync(path.join(outside, 'deep'));
    symlinkSync('../outside/deep', path.join(root, 'sub'));
    // Written out, sub/../planted.txt looks like <root>/planted.txt; really it is outside/planted.txt.
    symlinkSync('sub/../planted.txt', path.join(root, 'tricky.txt'));
    expect(
      await rejection(
        resolveInWorkspace(root, 'tricky.txt'),
        'tricky.txt lands in outside/: check where realLocation says the path leads',
      ),
    ).toBeInstanceOf(PathOutsideWorkspaceError);
  });

  describe('a workspace root that is itself a symlink', () => {
    const linkedRoot = (files: Record<string, string> = {}) => {
      const { root, outside } = tempWorkspace(files);
      const link = path.join(path.dirname(root), 'link');
      symlinkSync(root, link);
      return { root, link, outside };
    };

    test('accepts a file inside, returning it below the root as given', async () => {
      const { link } = linkedRoot({ 'a.txt': 'a' });
      const where =
        'the root is a link: guided step 3 must compare against where the root really is (realLocation of the root too)';
      expect(
        await settles(resolveInWorkspace(link, 'a.txt'), where),
        'return the resolved path below the root as given, not the real one (guided step 4)',
      ).toBe(path.join(link, 'a.txt'));
      expect(
        await settles(resolveInWorkspace(link, 'new/file.txt'), where),
        'a new file inside a linked root is accepted too',
      ).toBe(path.join(link, 'new/file.txt'));
    });

    test('still refuses a symlink out of it', async () => {
      const { root, link } = linkedRoot();
      symlinkSync('../outside/planted.txt', path.join(root, 'notes.txt'));
      expect(
        await rejection(
          resolveInWorkspace(link, 'notes.txt'),
          'notes.txt leads outside even when the root is reached through a link',
        ),
      ).toBeInstanceOf(PathOutsideWorkspaceError);
    });
  });

  test('fails with a clear error for a symlink loop, without hanging', async () => {
    const { root } = tempWorkspace();
    symlinkSync('b', path.join(root, 'a'));
    symlinkSync('a', path.join(root, 'b'));
    const error = await rejection(
      resolveInWorkspace(root, 'a/file.txt'),
      'a and b link to each other: the path must be refused',
    );
    expect(String(error), 'the error says the path goes through a loop of symlinks').toMatch(/loop/);
  });

  test('refuses a path holding a NUL character, saying so', async () => {
    const { root } = tempWorkspace();
    const error = await rejection(
      resolveInWorkspace(root, 'notes.txt\0.png'),
      'a path with a NUL character must be refused',
    );
    expect(String(error), 'the error names the NUL character').toMatch(/NUL/);
  });
});
