/** claude-compare's cases: Modes; --allowedTools. */
import { allow, bash, type Case, changed, edit, exists, GIT_CONFIG, ok, read, removed, write } from '../case.js';

export const modes: Case[] = [
  // --- Modes ----------------------------------------------------------------------------------------------------
  { name: 'default-touch', call: bash('touch X'), effect: exists('X') },
  { name: 'default-cat-inside', call: bash('cat notes.txt'), effect: ok },
  { name: 'default-read-tool-inside', call: read('notes.txt'), effect: ok },
  { name: 'default-write-tool', call: write('new.txt'), effect: exists('new.txt') },
  { name: 'bypass-touch', mode: 'bypassPermissions', call: bash('touch X'), effect: exists('X') },
  {
    name: 'ask-rule-bypass',
    user: { permissions: { ask: ['Bash(touch:*)'] } },
    mode: 'bypassPermissions',
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'ask-rule-edit-bypass',
    user: { permissions: { ask: ['Edit(./notes.txt)'] } },
    mode: 'bypassPermissions',
    call: write('notes.txt'),
    effect: changed('notes.txt'),
  },
  {
    name: 'plan-allowed-touch',
    user: allow('Bash(touch:*)'),
    mode: 'plan',
    call: bash('touch X'),
    effect: exists('X'),
  },
  { name: 'plan-write-tool', mode: 'plan', call: write('new.txt'), effect: exists('new.txt') },
  { name: 'accept-edits-write-tool', mode: 'acceptEdits', call: write('new.txt'), effect: exists('new.txt') },
  {
    name: 'accept-edits-edit-tool',
    mode: 'acceptEdits',
    call: edit('notes.txt', 'hello', 'bye'),
    effect: changed('notes.txt'),
  },
  { name: 'accept-edits-touch', mode: 'acceptEdits', call: bash('touch X'), effect: exists('X') },
  { name: 'accept-edits-rm', mode: 'acceptEdits', call: bash('rm notes.txt'), effect: removed('notes.txt') },
  {
    name: 'accept-edits-echo-git-config-glob',
    user: allow('Bash(echo:*)'),
    mode: 'acceptEdits',
    call: bash("echo '[alias] x = !touch X' >> .gi?/config"),
    effect: changed(GIT_CONFIG),
  },
  {
    name: 'accept-edits-sed-git-config-glob',
    mode: 'acceptEdits',
    call: bash("sed -i 's/bare = false/bare = true/' .gi?/config"),
    effect: changed(GIT_CONFIG),
  },
  {
    name: 'accept-edits-write-git-config',
    mode: 'acceptEdits',
    call: write(GIT_CONFIG, '[core]\n\tfsmonitor = touch X\n'),
    effect: changed(GIT_CONFIG),
  },
  {
    name: 'accept-edits-edit-git-config',
    mode: 'acceptEdits',
    call: edit(GIT_CONFIG, 'bare = false', 'bare = false\n\tfsmonitor = touch X'),
    effect: changed(GIT_CONFIG),
  },
  {
    name: 'accept-edits-git-hook',
    mode: 'acceptEdits',
    call: write('.git/hooks/pre-commit', '#!/bin/sh\ntouch X\n'),
    effect: exists('.git/hooks/pre-commit'),
  },
  {
    name: 'accept-edits-vscode-tasks',
    mode: 'acceptEdits',
    call: write('.vscode/tasks.json', '{ "version": "2.0.0", "tasks": [] }\n'),
    effect: exists('.vscode/tasks.json'),
  },
  {
    name: 'accept-edits-husky-pre-commit',
    mode: 'acceptEdits',
    call: write('.husky/pre-commit', 'touch X\n'),
    effect: exists('.husky/pre-commit'),
  },
  {
    name: 'accept-edits-claude-settings',
    mode: 'acceptEdits',
    call: write('.claude/settings.json', '{ "permissions": { "defaultMode": "bypassPermissions" } }\n'),
    effect: exists('.claude/settings.json'),
  },
  {
    name: 'accept-edits-mcp-json',
    mode: 'acceptEdits',
    call: write('.mcp.json', '{ "mcpServers": { "x": { "command": "touch", "args": ["X"] } } }\n'),
    effect: exists('.mcp.json'),
  },
  {
    name: 'accept-edits-touch-git-hook',
    mode: 'acceptEdits',
    call: bash('touch .git/hooks/post-checkout'),
    effect: exists('.git/hooks/post-checkout'),
  },

  // --- --allowedTools -------------------------------------------------------------------------------------------
  {
    name: 'allowed-tools-edit-then-write',
    flags: ['--allowedTools', 'Edit'],
    call: write('new.txt'),
    effect: exists('new.txt'),
  },
  {
    name: 'allowed-tools-write-then-edit',
    flags: ['--allowedTools', 'Write'],
    call: edit('notes.txt', 'hello', 'bye'),
    effect: changed('notes.txt'),
  },
  {
    name: 'allowed-tools-edit-path-dotdot',
    files: { 'docs/readme.md': '# docs\n' },
    flags: ['--allowedTools', 'Edit(docs/**)'],
    call: write('docs/../x.txt'),
    effect: exists('x.txt'),
  },
  {
    name: 'allowed-tools-bash-rule-touch',
    flags: ['--allowedTools', 'Bash(touch:*)'],
    call: bash('touch X'),
    effect: exists('X'),
  },
];
