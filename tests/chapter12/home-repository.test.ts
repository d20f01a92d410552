/**
 * Chapter 12: instruction files when the home folder is itself a repository (src/session/system-prompt.ts,
 * instructionFiles and buildSystemPrompt). A dotfiles repository in `~` makes every folder under it look like part
 * of one project; `@../../.ssh/id_rsa` in a CLAUDE.md must still never put a key into the prompt.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildSystemPrompt, instructionFiles } from 'kit/session/system-prompt';
import { tempHome } from './fixtures.js';

const KEY = '-----BEGIN OPENSSH PRIVATE KEY----- home-secret';

function write(root: string, files: Record<string, string>) {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
}

/** A home folder that is a git repository, with a key in ~/.ssh and a project folder (no .git of its own) in it. */
function homeRepository() {
  const { home } = tempHome();
  mkdirSync(path.join(home, '.git'), { recursive: true });
  const app = path.join(home, 'projects', 'app');
  write(home, {
    '.ssh/id_rsa': KEY,
    'CLAUDE.md': 'the dotfiles notes',
    '.claude/rules.md': 'my own rules',
    'projects/app/CLAUDE.md': 'See @../../.ssh/id_rsa and @notes.md',
    'projects/app/notes.md': 'the project notes',
  });
  return { home, app };
}

describe('instructionFiles (src/session/system-prompt.ts): a repository that holds the home folder', () => {
  test('is not the project: only the working folder is read, not the folders up to ~', () => {
    const { home, app } = homeRepository();
    expect(
      instructionFiles(app, home),
      "instructionFiles: the folders go up to projectRoot(cwd, home) (given), which is cwd when the repository holds the home folder: ~/CLAUDE.md is the dotfiles repository's, not this project's (guided step 2)",
    ).toEqual([path.join(app, 'CLAUDE.md')]);
  });
});

describe('buildSystemPrompt (src/session/system-prompt.ts): imports never reach the home folder', () => {
  test("a project inside a home that is a repository: @../../.ssh/id_rsa is not imported, the project's own file is", () => {
    const { home, app } = homeRepository();
    const prompt = buildSystemPrompt({ cwd: app, home });
    expect(
      prompt.text,
      'buildSystemPrompt: imports stay inside the project (projectRoot: cwd here), so no key of ~/.ssh reaches the prompt (guided step 2)',
    ).not.toContain('home-secret');
    expect(prompt.text, 'buildSystemPrompt: an import inside the project is still followed (guided step 2)').toContain(
      'the project notes',
    );
    expect(
      prompt.warnings.join('\n'),
      'buildSystemPrompt: the import left out is a warning that names it (guided step 2)',
    ).toContain('@../../.ssh/id_rsa');
    expect(prompt.text, 'buildSystemPrompt: ~/CLAUDE.md is not read as a project file (guided step 2)').not.toContain(
      'the dotfiles notes',
    );
  });

  test("the agent run in the home folder itself: ~/CLAUDE.md's imports reach only ~/.claude", () => {
    const { home } = homeRepository();
    write(home, { 'CLAUDE.md': 'Read @.ssh/id_rsa and @.claude/rules.md' });
    const prompt = buildSystemPrompt({ cwd: home, home });
    expect(
      prompt.text,
      'buildSystemPrompt: a project root that holds the home folder resolves imports inside ~/.claude only, so ~/.ssh/id_rsa is not imported (guided step 2)',
    ).not.toContain('home-secret');
    expect(
      prompt.text,
      "buildSystemPrompt: the person's own ~/.claude files may still be imported (guided step 2)",
    ).toContain('my own rules');
  });
});
