/**
 * The trust boundary in the kit's own wiring of chapters 1-14 (npm run agent and npm run acp before chapter 15 is
 * finished). There the learner's chapter 15 (trustedSettings, the trust question) does not exist yet, so the kit
 * holds the boundary itself, failing closed: a folder the person has not trusted may add questions, never remove
 * them. Its settings files' deny and ask rules apply; their allow rules and their defaultMode are left out (only the
 * person's own ~/.claude/settings.json may allow or set the mode); its .mcp.json servers are not started. A folder
 * is trusted with --trust-workspace, or once the person trusted it in npm run agent (remembered in
 * ~/.coding-agent/trust.json, chapter 15).
 */
import { readFileSync } from 'node:fs';
import { rememberedTrust } from '../../solution/src/capstone/trust.js';
import type { PermissionMode } from '../../solution/src/permissions/evaluate.js';
import type { Rule } from '../../solution/src/permissions/rules.js';
import { settingsFiles, type Settings } from '../../solution/src/permissions/settings.js';

/** Whether the folder's own files may act: --trust-workspace, or the person's remembered answer. */
export function workspaceTrusted(home: string, cwd: string, flag: boolean): boolean {
  if (flag) return true;
  try {
    return rememberedTrust(home, cwd)?.trusted === true;
  } catch {
    return false;
  }
}

/** The rules and mode the settings may give in a folder trusted or not, and a line for what was left out. */
export function workspacePermissions(
  settings: Settings,
  where: { home: string; cwd: string; trusted: boolean },
): Settings & { notes: string[] } {
  if (where.trusted) return { ...settings, notes: [] };
  const user = settingsFiles(where.cwd, where.home)[0]!;
  const rules: Rule[] = settings.rules.filter((rule) => rule.behavior !== 'allow' || rule.source === user);
  const defaultMode = userMode(user);
  const left = settings.rules.length - rules.length;
  const parts = [
    ...(left > 0 ? [`${left} allow rule${left === 1 ? '' : 's'}`] : []),
    ...(settings.defaultMode !== undefined && settings.defaultMode !== defaultMode
      ? [`defaultMode ${settings.defaultMode}`]
      : []),
  ];
  const notes =
    parts.length > 0
      ? [`this folder is not trusted: its settings' ${parts.join(' and ')} left out (--trust-workspace trusts it)`]
      : [];
  const { defaultMode: _theirs, ...rest } = settings;
  return { ...rest, rules, ...(defaultMode ? { defaultMode } : {}), notes };
}

/** The defaultMode of the person's own settings file (already checked by loadSettings), if it sets one. */
function userMode(file: string): PermissionMode | undefined {
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as { permissions?: { defaultMode?: PermissionMode } };
    return json.permissions?.defaultMode;
  } catch {
    return undefined;
  }
}
