/** claude-compare's cases: Settings levels and trust; PreToolUse hooks. */
import { allow, bash, type Case, decisionHook, deny, exists, exit2Hook, write } from '../case.js';

export const settingsAndHooks: Case[] = [
  // --- Settings levels and trust --------------------------------------------------------------------------------
  { name: 'untrusted-project-allow', project: allow('Bash(touch:*)'), call: bash('touch X'), effect: exists('X') },
  {
    name: 'trusted-project-allow',
    project: allow('Bash(touch:*)'),
    trusted: true,
    call: bash('touch X'),
    effect: exists('X'),
  },
  { name: 'untrusted-local-allow', local: allow('Bash(touch:*)'), call: bash('touch X'), effect: exists('X') },
  {
    name: 'trusted-local-allow',
    local: allow('Bash(touch:*)'),
    trusted: true,
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'trusted-project-bypass-mode',
    project: { permissions: { defaultMode: 'bypassPermissions' } },
    trusted: true,
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'trusted-local-bypass-mode',
    local: { permissions: { defaultMode: 'bypassPermissions' } },
    trusted: true,
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'trusted-local-bypass-mode-accepted',
    user: { skipDangerousModePermissionPrompt: true },
    local: { permissions: { defaultMode: 'bypassPermissions' } },
    trusted: true,
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'trusted-local-accept-edits-mode',
    local: { permissions: { defaultMode: 'acceptEdits' } },
    trusted: true,
    call: write('new.txt'),
    effect: exists('new.txt'),
  },
  {
    name: 'trusted-project-accept-edits-mode',
    project: { permissions: { defaultMode: 'acceptEdits' } },
    trusted: true,
    call: write('new.txt'),
    effect: exists('new.txt'),
  },
  {
    name: 'user-bypass-mode',
    user: { permissions: { defaultMode: 'bypassPermissions' } },
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'user-bypass-mode-accepted',
    user: { permissions: { defaultMode: 'bypassPermissions' }, skipDangerousModePermissionPrompt: true },
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'user-accept-edits-mode-write',
    user: { permissions: { defaultMode: 'acceptEdits' } },
    call: write('new.txt'),
    effect: exists('new.txt'),
  },
  {
    name: 'untrusted-project-bypass-mode',
    project: { permissions: { defaultMode: 'bypassPermissions' } },
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'trusted-project-whole-bash',
    project: allow('Bash'),
    trusted: true,
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'user-deny-beats-local-allow',
    user: deny('Bash(touch:*)'),
    local: allow('Bash(touch:*)'),
    trusted: true,
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'untrusted-local-deny-user-allow',
    user: allow('Bash(touch:*)'),
    local: deny('Bash(touch:*)'),
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'untrusted-project-deny-bypass',
    project: deny('Bash(touch:*)'),
    mode: 'bypassPermissions',
    call: bash('touch X'),
    effect: exists('X'),
  },

  // --- PreToolUse hooks -----------------------------------------------------------------------------------------
  {
    name: 'hook-ask-with-allow-rule',
    project: { ...decisionHook('ask'), ...allow('Bash(touch:*)') },
    trusted: true,
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'hook-ask-bypass',
    project: decisionHook('ask'),
    trusted: true,
    mode: 'bypassPermissions',
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'hook-ask-accept-edits-write',
    project: {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Write',
            hooks: [
              {
                type: 'command',
                command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}'`,
              },
            ],
          },
        ],
      },
    },
    trusted: true,
    mode: 'acceptEdits',
    call: write('new.txt'),
    effect: exists('new.txt'),
  },
  {
    name: 'hook-deny-bypass',
    project: decisionHook('deny'),
    trusted: true,
    mode: 'bypassPermissions',
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'hook-exit-2-with-allow-rule',
    project: exit2Hook,
    user: allow('Bash(touch:*)'),
    trusted: true,
    call: bash('touch X'),
    effect: exists('X'),
  },
  {
    name: 'hook-allow-against-deny-rule',
    user: { ...decisionHook('allow'), ...deny('Bash(touch:*)') },
    call: bash('touch X'),
    effect: exists('X'),
  },
  { name: 'hook-allow-default-mode', user: decisionHook('allow'), call: bash('touch X'), effect: exists('X') },
  {
    name: 'untrusted-hook-deny-user-allow',
    project: decisionHook('deny'),
    user: allow('Bash(touch:*)'),
    call: bash('touch X'),
    effect: exists('X'),
    deliberate:
      "the kit runs none of an untrusted folder's hooks, a denying one included (chapter 15, capstone/trust.ts); " +
      'Claude Code -p runs them (see untrusted-hook-runs)',
  },
  {
    name: 'untrusted-hook-runs',
    project: {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'touch HOOK-RAN; exit 0' }] }] },
    },
    user: allow('Bash(echo:*)'),
    call: bash('echo hi'),
    effect: exists('HOOK-RAN'),
  },
];
