/**
 * Chapter 15: the settings files of a workspace as the factory reads them: chapter 8's rules and mode, and beside
 * them the hooks and the MCP server choices of the same files, with what each file said on its own (for trust.ts).
 */
import { readFile } from 'node:fs/promises';
import type { PermissionMode } from '../permissions/evaluate.js';
import { loadSettings, settingsFiles, SettingsError } from '../permissions/settings.js';
import { isMissing, readConfigFile } from '../safe-file.js';
import { mergeHookConfigs, parseHookSettings, type HookConfig } from './command-hooks.js';
import type { AgentSettings, SettingsScope, SettingsSource } from './trust.js';
import { errorText } from '../safe-call.js';

/**
 * The settings of a workspace: chapter 8's loadSettings for the permissions, and the `hooks` of the same files (in
 * the same order: the user's file, the project's, the project's local one), with what each file said on its own
 * (`sources`), for the trust decision (trust.ts). Each file is first checked with the given readConfigFile: a
 * settings file that is a link out of its folder (the workspace, or the home folder for the person's), not a
 * regular file, or too big is a SettingsError before anything reads it.
 */
export async function loadAgentSettings(cwd: string, home: string): Promise<AgentSettings> {
  const [userFile, projectFile, localFile] = settingsFiles(cwd, home);
  const scopes = new Map<string, SettingsScope>([
    [userFile!, 'user'],
    [projectFile!, 'project'],
    [localFile!, 'local'],
  ]);
  const texts = new Map<string, string>();
  for (const [file, scope] of scopes) {
    try {
      texts.set(file, readConfigFile(file, { roots: [scope === 'user' ? home : cwd] }));
    } catch (error) {
      if (isMissing(error)) continue;
      throw new SettingsError(errorText(error));
    }
  }
  const settings = await loadSettings(cwd, home);
  const hooks: HookConfig[] = [];
  const sources: SettingsSource[] = [];
  for (const file of settings.files) {
    const json = JSON.parse(texts.get(file) ?? (await readFile(file, 'utf8'))) as Record<string, unknown>;
    const config = parseHookSettings(json, file);
    hooks.push(config);
    const mode = (json.permissions as { defaultMode?: PermissionMode } | undefined)?.defaultMode;
    const names = (key: string) =>
      Array.isArray(json[key])
        ? (json[key] as unknown[]).filter((name): name is string => typeof name === 'string')
        : undefined;
    sources.push({
      file,
      scope: scopes.get(file) ?? 'project',
      ...(mode ? { defaultMode: mode } : {}),
      hooks: config,
      ...(typeof json.enableAllProjectMcpServers === 'boolean'
        ? { enableAllProjectMcpServers: json.enableAllProjectMcpServers }
        : {}),
      ...(names('enabledMcpjsonServers') ? { enabledMcpjsonServers: names('enabledMcpjsonServers') } : {}),
      ...(names('disabledMcpjsonServers') ? { disabledMcpjsonServers: names('disabledMcpjsonServers') } : {}),
    });
  }
  return { ...settings, hooks: mergeHookConfigs(hooks), sources };
}
