import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { GLOB_LIMIT, globTool } from 'kit/tools/glob';
import { rejection } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

const glob = (cwd: string, input: Record<string, unknown>) => globTool.execute(globTool.input.parse(input), { cwd });

describe('globTool (src/tools/glob.ts)', () => {
  test('lists matching files at any depth, sorted, relative to the root', async () => {
    const { root } = tempWorkspace({ 'src/z/c.ts': '', 'b.md': '', 'src/b.ts': '', 'a.ts': '' });
    expect(
      await glob(root, { pattern: '**/*.ts' }),
      'one path per line, relative to the workspace root, in sorted order',
    ).toBe('a.ts\nsrc/b.ts\nsrc/z/c.ts');
  });

  test('sorts the whole list by path in code-unit order, not folder by folder', async () => {
    const { root } = tempWorkspace({ 'z.ts': '', 'src/c.ts': '', 'a.ts': '', 'B.ts': '', 'lib/d.ts': '' });
    expect(
      await glob(root, { pattern: '**/*.ts' }),
      "tinyglobby lists a folder's files before its subfolders' files: sort the paths with .sort() (uppercase before lowercase, not localeCompare)",
    ).toBe('B.ts\na.ts\nlib/d.ts\nsrc/c.ts\nz.ts');
  });

  test('searches inside `path`, but still answers with paths relative to the root', async () => {
    const { root } = tempWorkspace({ 'a.ts': '', 'src/b.ts': '', 'src/lib/c.ts': '' });
    expect(
      await glob(root, { pattern: '**/*.ts', path: 'src' }),
      'globTool.execute: displayPath(ctx.cwd, file), relative to the root, not to the search folder: paths the model can hand straight to read: src/b.ts, not b.ts (guided step 5)',
    ).toBe('src/b.ts\nsrc/lib/c.ts');
  });

  test('lists files only, never folders', async () => {
    const { root } = tempWorkspace({ 'src/a.ts': '', 'docs/guide.md': '' });
    expect(await glob(root, { pattern: '*' }), 'src and docs are folders: use onlyFiles').toBe('No files match "*"');
    expect(await glob(root, { pattern: '**' })).toBe('docs/guide.md\nsrc/a.ts');
  });

  test('skips node_modules and .git, but finds other dotfiles', async () => {
    const { root } = tempWorkspace({
      'index.js': '',
      'node_modules/lib/index.js': '',
      'packages/app/node_modules/x/index.js': '',
      '.git/config': '',
      '.github/workflows/ci.yml': '',
    });
    expect(
      await glob(root, { pattern: '**/*' }),
      'ignore **/node_modules/** and **/.git/**; dot: true for the rest',
    ).toBe('.github/workflows/ci.yml\nindex.js');
  });

  test('says plainly when nothing matches', async () => {
    const { root } = tempWorkspace({ 'a.ts': '', 'src/b.ts': '' });
    expect(await glob(root, { pattern: '**/*.py' })).toBe('No files match "**/*.py"');
    expect(await glob(root, { pattern: '*.py', path: 'src' }), 'name the folder when one was given').toBe(
      'No files match "*.py" in src',
    );
  });

  test(`lists at most ${GLOB_LIMIT} files and says how many more matched`, async () => {
    const files = Object.fromEntries(
      Array.from({ length: GLOB_LIMIT + 5 }, (_, i) => [`f${String(i).padStart(3, '0')}.txt`, '']),
    );
    const { root } = tempWorkspace(files);
    const lines = (await glob(root, { pattern: '*.txt' })).split('\n');
    expect(lines, `${GLOB_LIMIT} paths and a note`).toHaveLength(GLOB_LIMIT + 1);
    expect(lines[0]).toBe('f000.txt');
    expect(lines[GLOB_LIMIT - 1], 'the first ones in sorted order are kept').toBe(
      `f${String(GLOB_LIMIT - 1).padStart(3, '0')}.txt`,
    );
    expect(lines.at(-1), 'the note says how many were left out').toMatch(/^\(5 more files not shown/);
  });

  test(`lists exactly ${GLOB_LIMIT} files without a note`, async () => {
    const files = Object.fromEntries(
      Array.from({ length: GLOB_LIMIT }, (_, i) => [`f${String(i).padStart(3, '0')}.txt`, '']),
    );
    const { root } = tempWorkspace(files);
    const lines = (await glob(root, { pattern: '*.txt' })).split('\n');
    expect(
      lines,
      `${GLOB_LIMIT} files fit: the note is only for more than GLOB_LIMIT (files.length <= GLOB_LIMIT)`,
    ).toHaveLength(GLOB_LIMIT);
    expect(lines.at(-1)).toBe(`f${String(GLOB_LIMIT - 1).padStart(3, '0')}.txt`);
  });

  test('refuses a search folder outside the workspace', async () => {
    const { root } = tempWorkspace();
    const error = await rejection(
      glob(root, { pattern: '*', path: '../outside' }),
      'the path option must go through resolveInWorkspace',
    );
    expect((error as Error).name).toBe('PathOutsideWorkspaceError');
  });

  test('refuses a pattern that leaves the search folder, before listing anything', async () => {
    const { root, outside } = tempWorkspace({ 'a.txt': '', 'src/b.txt': '' });
    for (const pattern of [
      '../outside/*.txt',
      `${outside}/*.txt`,
      '../**/*.txt',
      'src/../../outside/*',
      '{..,src}/*.txt',
    ]) {
      const error = await rejection(
        glob(root, { pattern }),
        `patternLeavesFolder("${pattern}") is true: refuse it (tinyglobby would walk outside first; "/**" walks the whole disk) (guided step 2)`,
      );
      expect(String(error), 'the error names the pattern (guided step 2)').toContain(pattern);
      expect(String(error), 'the error says to choose the folder with path (guided step 2)').toMatch(/\bpath\b/);
    }
    expect(
      await glob(root, { pattern: 'src/..b.txt' }),
      'a name that merely starts with two dots is not a .. segment',
    ).toBe('No files match "src/..b.txt"');
  });

  test('does not follow a symlinked folder out of the workspace', async () => {
    const { root, outside } = tempWorkspace({ 'a.txt': '' });
    symlinkSync(outside, path.join(root, 'linked'));
    expect(await glob(root, { pattern: '**/*.txt' }), 'use followSymbolicLinks: false').toBe('a.txt');
    expect(
      await glob(root, { pattern: 'linked/*.txt' }),
      'even a pattern that names the link must not list what is behind it',
    ).not.toContain('secret');
  });

  test('does not list files again through a symlinked folder inside the workspace', async () => {
    const { root } = tempWorkspace({ 'a.ts': '', 'v2/app.ts': '' });
    symlinkSync('.', path.join(root, 'self'));
    symlinkSync('v2', path.join(root, 'latest'));
    expect(
      await glob(root, { pattern: '**/*.ts' }),
      'use followSymbolicLinks: false: links (self -> ., latest -> v2) would list the same files again under other names',
    ).toBe('a.ts\nv2/app.ts');
  });

  test('throws when the search folder is a file or missing', async () => {
    const { root } = tempWorkspace({ 'a.txt': '' });
    await expect(glob(root, { pattern: '*', path: 'a.txt' })).rejects.toThrow(/not a directory/);
    await expect(glob(root, { pattern: '*', path: 'missing' })).rejects.toThrow(/not a directory/);
  });

  test('is named glob and read-only', async () => {
    const { root } = tempWorkspace();
    mkdirSync(path.join(root, 'empty'));
    writeFileSync(path.join(root, 'x.md'), '');
    await glob(root, { pattern: '*.md' });
    expect(globTool.name).toBe('glob');
    expect(globTool.readOnly, 'glob only looks: read-only tools may run without asking').toBe(true);
  });
});
