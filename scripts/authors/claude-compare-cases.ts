/**
 * The cases of claude-compare.ts: one scripted tool call each, given to Claude Code and to the kit's agent with the
 * same workspace, settings and flags, and one effect that says whether the call ran.
 *
 * Layout of a case's folder (one per agent): `ws/` the workspace (a git repository, the agent's cwd), `out/` beside
 * it (`../out` from the workspace: outside it; `out/secret.txt` holds OUT_SECRET) and `home/` (HOME;
 * `home/secret.txt` holds HOME_SECRET). Every workspace has `notes.txt` ("hello notes") and a first commit whose
 * subject is COMMIT_SUBJECT.
 *
 * In a call's strings `@WS@`, `@OUT@` and `@HOME@` become those folders' absolute paths. A file tool's relative path
 * is given to the kit as it is and to Claude Code resolved against the workspace (its `file_path` is absolute).
 */
import type { Case } from './claude-compare/case.js';
import { outsideWorkspace } from './claude-compare/cases/outside-workspace.js';
import { commands } from './claude-compare/cases/commands.js';
import { denyRules } from './claude-compare/cases/deny-rules.js';
import { modes } from './claude-compare/cases/modes.js';
import { sandbox } from './claude-compare/cases/sandbox.js';
import { settingsAndHooks } from './claude-compare/cases/settings-and-hooks.js';

/** Every case, in the order they run and are reported. */
export const CASES: Case[] = [
  ...outsideWorkspace,
  ...commands,
  ...denyRules,
  ...modes,
  ...settingsAndHooks,
  ...sandbox,
];
