/**
 * Chapter 8: the settings a person already writes for Claude Code.
 *
 * Three files, read in Claude Code's order: the user's `~/.claude/settings.json`, the project's
 * `.claude/settings.json` (committed, shared with the team) and `.claude/settings.local.json` (the person's own,
 * not committed). Their rule lists add up (a deny anywhere wins, because evaluate checks every deny first); for
 * `defaultMode` the most local file that sets it wins. A file that is not valid JSON, has the wrong shape, or holds
 * a rule that cannot be read is an error naming the file (and the rule): never a silent allow.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { PERMISSION_MODES, type PermissionMode } from './evaluate.js';
import { parseRule, type Behavior, type Rule } from './rules.js';

/** The part of a Claude Code settings file the kit reads; other keys (hooks, env, model, ...) are left alone. */
export const settingsFileSchema = z.looseObject({
  permissions: z
    .looseObject({
      allow: z.array(z.string()).optional(),
      ask: z.array(z.string()).optional(),
      deny: z.array(z.string()).optional(),
      defaultMode: z.enum(PERMISSION_MODES as [PermissionMode, ...PermissionMode[]]).optional(),
    })
    .optional(),
});

/** A settings file that cannot be used: names the file and what is wrong with it. */
export class SettingsError extends Error {
  override name = 'SettingsError';
}

export interface Settings {
  /** Every rule of every file, each with its file as its source. */
  rules: Rule[];
  /** The mode the most local file asks for, if any. */
  defaultMode?: PermissionMode;
  /** The files that were found and read, user first. */
  files: string[];
}

/** The settings files of a workspace, in the order they are read (the later ones win for defaultMode). */
export function settingsFiles(root: string, home: string): string[] {
  return [
    path.join(home, '.claude', 'settings.json'),
    path.join(root, '.claude', 'settings.json'),
    path.join(root, '.claude', 'settings.local.json'),
  ];
}

/**
 * Reads and merges the settings files of `root` (settingsFiles, in that order; HOME is `home`). It fails closed: a
 * file that is there but cannot be used is an error, never skipped, since skipping it could drop a deny rule.
 *
 * - Only a file that does not exist is skipped; any other read error (a folder in its place) is thrown as it is.
 * - A file that is not valid JSON, or whose shape settingsFileSchema refuses, is a SettingsError naming the file
 *   (and saying it is not valid `JSON`, or where the shape is wrong, with zod's prettified message). The schema
 *   checks only what the kit reads: other keys of a Claude Code file are left alone.
 * - Each rule is parsed with parseRule, the file as its source; its RuleSyntaxError is passed on (it quotes the
 *   rule and names the file).
 * - The rule lists add up, user file first, in the files' order (a deny anywhere still wins: evaluate checks
 *   every deny first); for `defaultMode` the most local file that sets one wins. `files` lists the files read.
 */
export async function loadSettings(root: string, home: string): Promise<Settings> {
  // #region chapter 8: loadSettings
  // 1. For each file of settingsFiles(root, home), in order: read it as UTF-8; a file that does not exist (ENOENT)
  //    is skipped, any other read error is thrown.
  // 2. JSON.parse it; a SyntaxError becomes a SettingsError naming the file.
  // 3. Check it with settingsFileSchema.safeParse; a failure is a SettingsError naming the file, with
  //    z.prettifyError(error) for where.
  // 4. Parse every rule of permissions.allow, ask and deny with parseRule(text, behavior, file), and add them to
  //    the rules. A defaultMode replaces the one of the files before.
  // 5. Return { rules, defaultMode, files } (files: the ones read).
  const settings: Settings = { rules: [], files: [] };
  for (const file of settingsFiles(root, home)) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new SettingsError(`${file} is not valid JSON: ${(error as Error).message}`);
    }
    const parsed = settingsFileSchema.safeParse(json);
    if (!parsed.success)
      throw new SettingsError(`${file} is not a valid settings file:\n${z.prettifyError(parsed.error)}`);
    const permissions = parsed.data.permissions ?? {};
    for (const behavior of ['allow', 'ask', 'deny'] as const satisfies readonly Behavior[]) {
      for (const text of permissions[behavior] ?? []) settings.rules.push(parseRule(text, behavior, file));
    }
    if (permissions.defaultMode) settings.defaultMode = permissions.defaultMode;
    settings.files.push(file);
  }
  return settings;
  // #endregion
}
