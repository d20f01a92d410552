/**
 * Chapter 16, given: the `sandbox` key of Claude Code's settings files, read from the same three files as chapter 8.
 *
 * The keys are Claude Code's own (its settings reference, and the strings of version 2.1.332): `enabled`,
 * `autoAllowBashIfSandboxed`, `excludedCommands`, `allowUnsandboxedCommands`, `failIfUnavailable`, `filesystem`
 * (`allowWrite`, `denyWrite`, `denyRead`, `allowRead`), `network` (`allowedDomains`, `allowUnixSockets`,
 * `allowLocalBinding`, and the two proxy ports, which the kit does not use) and `enableWeakerNestedSandbox`. A key the
 * kit does not know is left alone, as chapter 8 leaves a file's other keys; a known key of the wrong type is an error
 * naming the file, never a silent default (a `denyRead` that is not read is a secret that is not protected).
 */
import path from 'node:path';
import { z } from 'zod';
import type { SettingsScope } from '../capstone/trust.js';
import { settingsFiles, SettingsError } from '../permissions/settings.js';
import { errorText } from '../safe-call.js';
import { isMissing, readConfigFile } from '../safe-file.js';

const paths = z.array(z.string().min(1)).optional();

/** The `sandbox` object of one settings file, as written. */
export const sandboxSettingsSchema = z.looseObject({
  enabled: z.boolean().optional(),
  autoAllowBashIfSandboxed: z.boolean().optional(),
  excludedCommands: z.array(z.string().min(1)).optional(),
  allowUnsandboxedCommands: z.boolean().optional(),
  failIfUnavailable: z.boolean().optional(),
  filesystem: z.looseObject({ allowWrite: paths, denyWrite: paths, denyRead: paths, allowRead: paths }).optional(),
  network: z
    .looseObject({
      allowedDomains: z.array(z.string().min(1)).optional(),
      allowUnixSockets: paths,
      allowLocalBinding: z.boolean().optional(),
      httpProxyPort: z.number().optional(),
      socksProxyPort: z.number().optional(),
    })
    .optional(),
  enableWeakerNestedSandbox: z.boolean().optional(),
});

export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

/** One settings file's `sandbox` object, with where it came from. */
export interface SandboxLayer {
  file: string;
  scope: SettingsScope;
  sandbox: SandboxSettings;
}

/**
 * The `sandbox` objects of the settings files of `cwd` (settingsFiles: the person's, the project's, the project's
 * local one, in that order), one layer for each file that has one. Each file is read with readConfigFile (a link out
 * of its folder, a FIFO or a huge file is refused); a missing file is skipped; a file that is not JSON or whose
 * `sandbox` has the wrong shape is a SettingsError naming the file.
 */
export function readSandboxLayers(cwd: string, home: string): SandboxLayer[] {
  const scopes: SettingsScope[] = ['user', 'project', 'local'];
  const layers: SandboxLayer[] = [];
  settingsFiles(cwd, home).forEach((file, index) => {
    const scope = scopes[index]!;
    let text: string;
    try {
      text = readConfigFile(file, { roots: [scope === 'user' ? home : cwd] });
    } catch (error) {
      if (isMissing(error)) return;
      throw new SettingsError(errorText(error));
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new SettingsError(`${file} is not valid JSON`);
    }
    const raw = (json as { sandbox?: unknown } | null)?.sandbox;
    if (raw === undefined) return;
    const parsed = sandboxSettingsSchema.safeParse(raw);
    if (!parsed.success)
      throw new SettingsError(`${file}: its sandbox settings have the wrong shape:\n${z.prettifyError(parsed.error)}`);
    layers.push({ file, scope, sandbox: parsed.data });
  });
  return layers;
}

/**
 * The absolute path a sandbox path entry names, as Claude Code reads it: `~/x` under the home folder, `//x` and `/x`
 * from the filesystem's root, anything else from the workspace root. `.` and `..` are resolved and a trailing slash
 * goes (`~/.ssh/` is `~/.ssh`): an entry names a folder or a file, never a spelling. A NUL character is refused.
 */
export function sandboxPath(entry: string, where: { root: string; home: string }): string {
  if (entry.includes('\0')) throw new SettingsError(`the sandbox path ${JSON.stringify(entry)} holds a NUL character`);
  if (entry === '~') return path.resolve(where.home);
  if (entry.startsWith('~/')) return path.resolve(where.home, entry.slice(2));
  if (entry.startsWith('/')) return path.resolve('/', entry.replace(/^\/+/, ''));
  return path.resolve(where.root, entry);
}
