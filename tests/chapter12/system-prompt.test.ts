import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  basePrompt,
  buildSystemPrompt,
  instructionFiles,
  MAX_IMPORT_DEPTH,
  resolveImports,
} from 'kit/session/system-prompt';
import { tempHome } from './fixtures.js';

function write(root: string, files: Record<string, string>) {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
}

/** A repository at work/app (with .git), a package folder in it, a home, and a CLAUDE.md ABOVE the repository. */
function project() {
  const { home, project: root, base } = tempHome();
  write(base, { 'work/CLAUDE.md': 'OUTSIDE THE REPOSITORY' });
  write(root, {
    'CLAUDE.md': 'root claude',
    'AGENTS.md': 'root agents',
    'pkg/CLAUDE.md': 'pkg claude',
    'pkg/AGENTS.md': 'pkg agents',
  });
  write(home, { '.claude/CLAUDE.md': 'home claude' });
  return { home, root, base, cwd: path.join(root, 'pkg') };
}

describe('instructionFiles (src/session/system-prompt.ts)', () => {
  test('home first, then from the repository root down to the working folder, CLAUDE.md before AGENTS.md', () => {
    const { home, root, cwd } = project();
    expect(instructionFiles(cwd, home), 'instructionFiles: the documented order (guided steps 1-3)').toEqual([
      path.join(home, '.claude/CLAUDE.md'),
      path.join(root, 'CLAUDE.md'),
      path.join(root, 'AGENTS.md'),
      path.join(cwd, 'CLAUDE.md'),
      path.join(cwd, 'AGENTS.md'),
    ]);
  });

  test('nothing above the repository root is read; without a repository only the working folder', () => {
    const { root, base, cwd } = project();
    const files = instructionFiles(cwd);
    expect(
      files.some((f) => !f.startsWith(root + path.sep)),
      `instructionFiles: never a folder above the root (${path.join(base, 'work/CLAUDE.md')} is someone else's) (guided step 2)`,
    ).toBe(false);
    expect(files.length, 'instructionFiles: no home given, no home file (guided step 1)').toBe(4);
    const { home: emptyHome } = tempHome();
    expect(
      instructionFiles(cwd, emptyHome).length,
      'instructionFiles: a home without .claude/CLAUDE.md adds nothing (guided step 1)',
    ).toBe(4);
    write(base, { 'loose/sub/CLAUDE.md': 'sub', 'loose/CLAUDE.md': 'parent, no repository' });
    expect(
      instructionFiles(path.join(base, 'loose/sub')),
      'instructionFiles: no .git anywhere up: only the working folder (guided step 2)',
    ).toEqual([path.join(base, 'loose/sub/CLAUDE.md')]);
  });
});

describe('resolveImports (src/session/system-prompt.ts)', () => {
  test('@path imports are replaced by the file, relative to the importing file, nested ones too', () => {
    const { root } = project();
    write(root, {
      'docs/style.md': 'Use tabs.\nSee @rules/naming.md\n',
      'docs/rules/naming.md': 'camelCase.\n',
      'ports.json': '{"web": 8080}\n',
    });
    const warnings: string[] = [];
    const text = resolveImports(
      'Style:\n@docs/style.md\nMail me@example.com or ask @team. Ports: @ports.json.',
      path.join(root, 'CLAUDE.md'),
      root,
      warnings,
    );
    expect(
      text,
      'resolveImports: the import is inlined (trailing space trimmed), its own import too; an e-mail address and "@team" stay; the full stop after @ports.json is not part of the path (guided steps 1-3)',
    ).toBe('Style:\nUse tabs.\nSee camelCase.\nMail me@example.com or ask @team. Ports: {"web": 8080}.');
    expect(warnings, 'resolveImports: nothing refused here').toEqual([]);
  });

  test('an import outside the repository, missing, or in a cycle is left as written, with a warning', () => {
    const { root, base } = project();
    write(base, { 'secret.md': 'TOP SECRET' });
    write(root, { 'a.md': 'A then @b.md', 'b.md': 'B then @a.md' });
    symlinkSync(path.join(base, 'secret.md'), path.join(root, 'link.md'));
    const warnings: string[] = [];
    const file = path.join(root, 'CLAUDE.md');
    const text = resolveImports('x @../../secret.md y @link.md z @nope.md w @a.md', file, root, warnings);
    expect(
      text.includes('TOP SECRET'),
      'resolveImports: a file outside the root is never read, not even through a link (realpath) (guided step 2)',
    ).toBe(false);
    expect(
      text,
      'resolveImports: refused imports stay as written; the cycle stops at the second visit (guided step 2)',
    ).toBe('x @../../secret.md y @link.md z @nope.md w A then B then @a.md');
    expect(
      warnings.length,
      'resolveImports: one warning per refused import (outside, link outside, missing, cycle) (guided step 2)',
    ).toBe(4);
    expect(warnings.join('\n'), 'resolveImports: the warnings name the import (guided step 2)').toContain('@nope.md');
    expect(
      warnings.map((w) => w.replace(/^.*was not imported: /, '').replace(base, 'BASE')),
      'resolveImports: each warning says why (guided step 2)',
    ).toEqual([
      `it is outside BASE/work/app`,
      `it is outside BASE/work/app`,
      'no such file',
      'it imports itself (a cycle)',
    ]);
  });

  test(`imports are followed at most ${MAX_IMPORT_DEPTH} deep`, () => {
    const { root } = project();
    const files: Record<string, string> = {};
    for (let i = 1; i <= 7; i++) files[`d${i}.md`] = `${i} @d${i + 1}.md`;
    write(root, files);
    const warnings: string[] = [];
    const text = resolveImports('@d1.md', path.join(root, 'CLAUDE.md'), root, warnings);
    expect(
      text,
      'resolveImports: depth + 1 > MAX_IMPORT_DEPTH stops (5 files inlined, the 6th import left) (guided step 2)',
    ).toBe('1 2 3 4 5 @d6.md');
    expect(warnings.length, 'resolveImports: a warning for the import past the depth').toBe(1);
    expect(warnings[0], 'resolveImports: the warning says why (guided step 2)').toContain(
      `at most ${MAX_IMPORT_DEPTH} deep`,
    );
  });
});

describe('buildSystemPrompt (src/session/system-prompt.ts)', () => {
  test('the base prompt, then each instruction file as a section, then the appended text', () => {
    const { home, cwd } = project();
    const { text, files } = buildSystemPrompt({ cwd, home, append: 'Answer in French.' });
    expect(text, 'buildSystemPrompt guided steps 1-3').toBe(
      [
        basePrompt(cwd),
        `# Instructions from ${path.join(home, '.claude/CLAUDE.md')}\n\nhome claude`,
        '# Instructions from ../CLAUDE.md\n\nroot claude',
        '# Instructions from ../AGENTS.md\n\nroot agents',
        '# Instructions from CLAUDE.md\n\npkg claude',
        '# Instructions from AGENTS.md\n\npkg agents',
        'Answer in French.',
      ].join('\n\n'),
    );
    expect(files.length, 'buildSystemPrompt: the files read').toBe(5);
    expect(text.includes('OUTSIDE THE REPOSITORY'), 'buildSystemPrompt: nothing above the repository root').toBe(false);
  });

  test('replace takes the base prompt’s place (it is not appended); the project instructions still follow', () => {
    const { cwd } = project();
    const { text } = buildSystemPrompt({ cwd, replace: 'You are a reviewer. Never edit files.' });
    expect(
      text.startsWith('You are a reviewer. Never edit files.\n\n# Instructions from ../CLAUDE.md'),
      'buildSystemPrompt: the replacement comes first, then the files (guided step 1)',
    ).toBe(true);
    expect(
      text.includes(basePrompt(cwd)),
      'buildSystemPrompt: with replace, the base prompt is gone (guided step 1)',
    ).toBe(false);
    expect(
      text.endsWith('pkg agents'),
      'buildSystemPrompt: no append given, nothing after the last file (guided step 3)',
    ).toBe(true);
  });

  test('a file in a sub-folder may import from anywhere in the repository, not only below the working folder', () => {
    const { root, cwd } = project();
    write(root, { 'docs/shared.md': 'shared rules', 'pkg/CLAUDE.md': 'pkg: @../docs/shared.md' });
    const { text, warnings } = buildSystemPrompt({ cwd });
    expect(
      text,
      'buildSystemPrompt: the root for imports is the repository root (repositoryRoot(cwd) ?? cwd) (guided step 2)',
    ).toContain('# Instructions from CLAUDE.md\n\npkg: shared rules');
    expect(warnings, 'nothing refused').toEqual([]);
  });

  test('imports resolve inside the repository, and an empty file adds no section', () => {
    const { base } = tempHome();
    const root = path.join(base, 'work', 'app');
    write(root, { 'CLAUDE.md': 'Read @docs/guide.md', 'docs/guide.md': 'the guide', 'AGENTS.md': '  \n' });
    const { text, warnings } = buildSystemPrompt({ cwd: root, append: '   ' });
    expect(
      text,
      'buildSystemPrompt: imports resolved; the blank AGENTS.md and the blank append add nothing (guided step 2)',
    ).toBe(`${basePrompt(root)}\n\n# Instructions from CLAUDE.md\n\nRead the guide`);
    expect(warnings, 'buildSystemPrompt: no warnings').toEqual([]);
  });
});
