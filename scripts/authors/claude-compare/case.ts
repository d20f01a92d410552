/**
 * What a case of claude-compare is (a workspace, settings, a mode and flags, one call, one effect), and the helpers
 * and fixtures the cases are written with (scripts/authors/claude-compare/cases/).
 */

/** The permission modes both agents know. */
export type Mode = 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions';

/** The part of a Claude Code settings file a case writes. */
export interface SettingsFile {
  permissions?: { allow?: string[]; ask?: string[]; deny?: string[]; defaultMode?: Mode };
  /** Claude Code: the person accepted bypassPermissions once (its dialog), so a settings file may choose it. */
  skipDangerousModePermissionPrompt?: boolean;
  hooks?: Record<string, { matcher?: string; hooks: { type: 'command'; command: string }[] }[]>;
  /** Claude Code's sandbox settings (chapter 16), written as they are. */
  sandbox?: Record<string, unknown>;
}

/** One tool call, in the kit's terms (claude-compare.ts gives Claude Code its own names and `file_path`). */
export type Call =
  | { tool: 'bash'; command: string }
  | { tool: 'read'; path: string }
  | { tool: 'write'; path: string; content: string }
  | { tool: 'edit'; path: string; old: string; new: string };

/**
 * What shows that the call ran. Paths are relative to the workspace (`../out/x` is outside it), `~/` is HOME.
 * - exists: the file was made (it must not exist before);
 * - removed: the file or folder is gone;
 * - changed: the file's content differs from before the run;
 * - leaked: the string came back to the model in a tool result (the fake server's log);
 * - ok: the call's tool result is not an error (it ran and succeeded).
 */
export type Effect =
  | { kind: 'exists'; path: string }
  | { kind: 'removed'; path: string }
  | { kind: 'changed'; path: string }
  | { kind: 'leaked'; text: string }
  | { kind: 'ok' };

export interface Case {
  name: string;
  /** Workspace files (committed), relative to the workspace. */
  files?: Record<string, string>;
  /** Workspace files changed after the commit (a dirty work tree). */
  dirty?: Record<string, string>;
  /** Workspace files made executable. */
  executables?: string[];
  /** Symbolic links in the workspace: link -> target. */
  symlinks?: Record<string, string>;
  /** Files in HOME, relative to it. */
  home?: Record<string, string>;
  user?: SettingsFile;
  project?: SettingsFile;
  local?: SettingsFile;
  /** The folder is trusted: Claude Code's hasTrustDialogAccepted, the kit's ~/.coding-agent/trust.json. */
  trusted?: boolean;
  /** --permission-mode, for both. */
  mode?: Mode;
  /** More flags, for both (after every other flag). */
  flags?: string[];
  call: Call;
  effect: Effect;
  /** The kit is looser here on purpose: why. A looser case with a reason does not fail the run. */
  deliberate?: string;
}

export const OUT_SECRET = 'OUT-SECRET-5c1e';
export const HOME_SECRET = 'HOME-SECRET-8b2d';
export const ENV_SECRET = 'ENV-SECRET-3f9a';
export const COMMIT_SUBJECT = 'COMMIT-SUBJECT-9d2e';

export const allow = (...rules: string[]): SettingsFile => ({ permissions: { allow: rules } });
export const deny = (...rules: string[]): SettingsFile => ({ permissions: { deny: rules } });
export const bash = (command: string): Call => ({ tool: 'bash', command });
export const read = (path: string): Call => ({ tool: 'read', path });
export const write = (path: string, content = 'written by the agent\n'): Call => ({ tool: 'write', path, content });
export const edit = (path: string, old: string, replacement: string): Call => ({
  tool: 'edit',
  path,
  old,
  new: replacement,
});
export const exists = (path: string): Effect => ({ kind: 'exists', path });
export const removed = (path: string): Effect => ({ kind: 'removed', path });
export const changed = (path: string): Effect => ({ kind: 'changed', path });
export const leaked = (text: string): Effect => ({ kind: 'leaked', text });
export const ok: Effect = { kind: 'ok' };

/** A PreToolUse hook for Bash that answers with `decision` (JSON on stdout). */
export const decisionHook = (decision: 'allow' | 'ask' | 'deny'): SettingsFile => ({
  hooks: {
    PreToolUse: [
      {
        matcher: 'Bash',
        hooks: [
          {
            type: 'command',
            command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${decision}","permissionDecisionReason":"the hook says ${decision}"}}'`,
          },
        ],
      },
    ],
  },
});
export const exit2Hook: SettingsFile = {
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo blocked by hook >&2; exit 2' }] }],
  },
};

export const ENV_FILES = { '.env': `API_KEY=${ENV_SECRET}\n`, '.gitignore': '.env\n', 'sub/keep.txt': 'keep\n' };
export const DENY_ENV: Pick<Case, 'project' | 'trusted'> = { project: deny('Read(./.env)'), trusted: true };
export const NPM_FILES = {
  'package.json': '{ "name": "ws", "version": "1.0.0", "scripts": { "test": "touch TESTED" } }\n',
  'evil.js': "require('node:fs').writeFileSync('PWNED', '');\n",
  npm: '#!/bin/sh\ntouch PWNED\n',
};
export const NPM: Pick<Case, 'files' | 'executables' | 'user'> = {
  files: NPM_FILES,
  executables: ['npm'],
  user: allow('Bash(npm test:*)'),
};
export const HOME_X = { 'x/file.txt': 'a file of the person\n' };
export const GIT_CONFIG = '.git/config';
