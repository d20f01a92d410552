/**
 * Chapter 12: instruction files a repository chose (src/session/system-prompt.ts, buildSystemPrompt and
 * resolveImports). A CLAUDE.md can be a link to /proc/self/environ or to a file outside the repository, and an
 * import can be huge: each is read with the given readConfigFile, and what it refuses stays out of the prompt.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { MAX_CONFIG_FILE_BYTES } from 'kit/safe-file';
import { buildSystemPrompt } from 'kit/session/system-prompt';
import { tempHome } from './fixtures.js';

function write(root: string, files: Record<string, string>) {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
}

describe('buildSystemPrompt reads only instruction files inside the repository (src/session/system-prompt.ts)', () => {
  test('a CLAUDE.md linked to a file outside the repository is left out, with a warning that names it', () => {
    const { home, project, base } = tempHome();
    write(base, { 'secrets.txt': 'GITHUB_TOKEN=ghp_outside_the_repository' });
    write(project, { 'AGENTS.md': "the project's own notes" });
    symlinkSync(path.join(base, 'secrets.txt'), path.join(project, 'CLAUDE.md'));
    const prompt = buildSystemPrompt({ cwd: project, home });
    expect(
      prompt.text,
      'buildSystemPrompt: a CLAUDE.md whose real location is outside the repository must not reach the prompt (read it with readConfigFile and the repository as its root) (guided step 2)',
    ).not.toContain('ghp_outside_the_repository');
    expect(prompt.text, 'buildSystemPrompt: the other instruction files are still read (guided step 2)').toContain(
      "the project's own notes",
    );
    expect(
      prompt.warnings.join('\n'),
      'buildSystemPrompt: the refusal is a warning that names the file (guided step 2)',
    ).toContain(path.join(project, 'CLAUDE.md'));
    expect(prompt.files, 'buildSystemPrompt: a refused file is not among the files read (guided step 2)').toEqual([
      path.join(project, 'AGENTS.md'),
    ]);
  });

  test('a CLAUDE.md linked to /proc/self/environ puts nothing of the environment into the prompt', () => {
    const { home, project } = tempHome();
    symlinkSync('/proc/self/environ', path.join(project, 'CLAUDE.md'));
    const prompt = buildSystemPrompt({ cwd: project, home });
    expect(
      prompt.text,
      'buildSystemPrompt: the environment (PATH=...) must not reach the prompt (guided step 2)',
    ).not.toMatch(/PATH=/);
    expect(prompt.warnings.length, 'buildSystemPrompt: the refused file is a warning (guided step 2)').toBeGreaterThan(
      0,
    );
  });

  test("the person's ~/.claude/CLAUDE.md may link elsewhere in their home (dotfiles); a project file may not link into it", () => {
    const { home, project } = tempHome();
    write(home, { 'dotfiles/claude.md': 'my own rules', '.ssh/notes': 'PRIVATE HOME FILE' });
    mkdirSync(path.join(home, '.claude'), { recursive: true });
    symlinkSync(path.join(home, 'dotfiles/claude.md'), path.join(home, '.claude/CLAUDE.md'));
    symlinkSync(path.join(home, '.ssh/notes'), path.join(project, 'CLAUDE.md'));
    const prompt = buildSystemPrompt({ cwd: project, home });
    expect(
      prompt.text,
      "buildSystemPrompt: the home file's root is the home folder: a dotfiles link is the person's own (guided step 2)",
    ).toContain('my own rules');
    expect(
      prompt.text,
      "buildSystemPrompt: a project file's root is the repository, not the home folder (guided step 2)",
    ).not.toContain('PRIVATE HOME FILE');
  });

  test('an import bigger than the limit is left as written, with a warning', () => {
    const { home, project } = tempHome();
    write(project, {
      'CLAUDE.md': 'Read @docs/huge.md first.',
      'docs/huge.md': `${'x'.repeat(MAX_CONFIG_FILE_BYTES)}END-OF-HUGE`,
    });
    const prompt = buildSystemPrompt({ cwd: project, home });
    expect(
      prompt.text,
      'resolveImports: an import readConfigFile refuses (too big) is not put in (guided step 3)',
    ).not.toContain('END-OF-HUGE');
    expect(prompt.text, 'resolveImports: the refused import stays as written (guided step 3)').toContain(
      'Read @docs/huge.md first.',
    );
    expect(prompt.warnings.join('\n'), 'resolveImports: the warning names the import (guided step 3)').toMatch(
      /@docs\/huge\.md was not imported/,
    );
  });
});
