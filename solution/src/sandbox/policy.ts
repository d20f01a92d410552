/**
 * Chapter 16: the sandbox policy, merged from the settings files and held to the trust boundary.
 *
 * A sandbox is only as strong as the file that sets it up, and one of those files comes with the repository. So the
 * merge does not treat every layer alike: a key that *narrows* the sandbox (turns it on, denies a folder, asks more)
 * may come from any file, since a stricter boundary can only cost the person a question; a key that *widens* it (a
 * folder to write outside the workspace, a host, a command that runs outside, fewer questions) is taken only from a
 * file the person wrote: their own `~/.claude/settings.json` always, the project's `settings.local.json` in a folder
 * they trusted, the committed `.claude/settings.json` never. What a file tried and could not do is one line in
 * `dropped`, as chapter 15's trustedSettings reports what it left out.
 */
import path from 'node:path';
import type { Workspace } from '../permissions/command.js';
import { isInside, realLocation } from '../workspace.js';
import { type SandboxLayer, sandboxPath } from './settings.js';

/** The sandbox as the agent runs it: every path absolute, every list merged, every switch decided. */
export interface SandboxPolicy {
  /** Commands run inside the sandbox. */
  enabled: boolean;
  /** A command that runs inside the sandbox and would only be asked about by chapter 8's mode runs without asking. */
  autoAllowBashIfSandboxed: boolean;
  /** The model may ask for a command to run outside the sandbox (`dangerouslyDisableSandbox`); it is always asked. */
  allowUnsandboxedCommands: boolean;
  /** When the sandbox cannot start, the agent refuses to start, instead of asking about every command. */
  failIfUnavailable: boolean;
  /** Commands that run outside the sandbox, through chapter 8's questions (`docker`, `git push:*`). */
  excludedCommands: string[];
  filesystem: {
    /** Where a command may write: the workspace, and what the files add. */
    allowWrite: string[];
    denyWrite: string[];
    denyRead: string[];
    /** Paths readable again inside a denied folder. */
    allowRead: string[];
  };
  network: {
    /** The hosts a command may reach through the sandbox's proxy; none by default. */
    allowedDomains: string[];
    allowUnixSockets: string[];
    allowLocalBinding: boolean;
  };
  /** Run inside a container that cannot give bubblewrap its own namespaces (weaker: the person's choice only). */
  enableWeakerNestedSandbox: boolean;
}

/**
 * What a command inside the sandbox may not read in the person's home whatever the settings say, unless their own
 * file reads it again (allowRead): the keys and tokens of the usual tools, and the agents' own files (their settings,
 * Claude Code's credentials, the kit's saved sessions).
 */
export const CREDENTIAL_PATHS: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.gnupg',
  '.netrc',
  '.docker',
  '.kube',
  '.config/gcloud',
  '.config/gh',
  '.claude',
  '.coding-agent',
];

/**
 * The policy with no settings at all: off; when turned on, commands write only in the workspace, reach no host, and
 * read everything but the person's credentials (CREDENTIAL_PATHS under `workspace.home`).
 */
export function defaultSandboxPolicy(workspace: Workspace): SandboxPolicy {
  const denyRead = CREDENTIAL_PATHS.map((name) => path.join(workspace.home, name));
  return {
    enabled: false,
    autoAllowBashIfSandboxed: false,
    allowUnsandboxedCommands: true,
    failIfUnavailable: false,
    excludedCommands: [],
    filesystem: { allowWrite: [workspace.root], denyWrite: [], denyRead, allowRead: [] },
    network: { allowedDomains: [], allowUnixSockets: [], allowLocalBinding: false },
    enableWeakerNestedSandbox: false,
  };
}

/** The switches, each with the value that widens the sandbox (given: which way each one points is Claude Code's). */
export const WIDENING_SWITCHES = {
  enabled: false,
  autoAllowBashIfSandboxed: true,
  allowUnsandboxedCommands: true,
  failIfUnavailable: false,
  enableWeakerNestedSandbox: true,
} as const;

/** The policy and a line for everything a layer tried and was not allowed to do. */
export interface MergedPolicy {
  policy: SandboxPolicy;
  dropped: string[];
}

/**
 * Merges the layers (readSandboxLayers: the person's file, the project's, the local one, in that order) over
 * defaultSandboxPolicy(workspace). `trusted` is the person's decision about the folder (chapter 15).
 *
 * - A layer may widen the sandbox when it is the person's own (scope `user`), or the local file (`local`) of a
 *   trusted folder; the committed project file (`project`) never may, trusted or not. Any layer may narrow it.
 * - A switch (WIDENING_SWITCHES names the value of each that widens): the later layer wins, but a layer that may not
 *   widen can only set the switch to its narrowing value. `network.allowLocalBinding: true` widens too.
 * - Lists add up in the layers' order, paths made absolute with sandboxPath (given) and without repeats.
 *   `denyWrite` and `denyRead` only narrow: always taken. `excludedCommands`, `filesystem.allowRead`,
 *   `network.allowedDomains` and `network.allowUnixSockets` only widen. `filesystem.allowWrite` widens only when the
 *   path really leads outside the workspace (realLocation: a committed symlink inside it may point anywhere); a path
 *   inside the workspace is taken from any layer.
 * - `dropped` has one line for each layer and key it could not use, naming the file and the key (a list's line names
 *   the entries left out). A layer's line says why: the committed project file may not widen the sandbox, or the
 *   local file may not in a folder the person has not trusted.
 */
export async function sandboxPolicy(
  layers: readonly SandboxLayer[],
  workspace: Workspace,
  trusted: boolean,
): Promise<MergedPolicy> {
  // #region chapter 16: sandboxPolicy
  // 1. Start from defaultSandboxPolicy(workspace) and an empty `dropped`. Find where the workspace really is
  //    (realLocation of its root): allowWrite entries are compared with that.
  // 2. For each layer, in order: it may widen when its scope is 'user', or 'local' and the folder is trusted. Its
  //    why-not: `the committed project file may not widen the sandbox` for 'project', `an untrusted folder may not
  //    widen the sandbox` for 'local'.
  // 3. Each switch of WIDENING_SWITCHES the layer sets, and network.allowLocalBinding (true widens): a value that
  //    widens, from a layer that may not widen, is a line `<file>: sandbox.<key> ignored: <why-not>`; any other
  //    value is taken.
  // 4. Each list: its entries as absolute paths (sandboxPath, given; not excludedCommands or allowedDomains, which
  //    are not paths). denyWrite and denyRead: always added. excludedCommands, allowRead, allowedDomains and
  //    allowUnixSockets: added when the layer may widen, otherwise one line `<file>: sandbox.<key> <entries>
  //    ignored: <why-not>`. allowWrite: an entry whose realLocation is inside the real workspace is added from any
  //    layer; one outside only when the layer may widen, otherwise into that layer's one ignored line.
  // 5. No repeats in any list. Return { policy, dropped }.
  const policy = defaultSandboxPolicy(workspace);
  const dropped: string[] = [];
  const realRoot = await realLocation(workspace.root);
  const add = (list: string[], entries: readonly string[]) => {
    for (const entry of entries) if (!list.includes(entry)) list.push(entry);
  };
  for (const { file, scope, sandbox } of layers) {
    const widens = scope === 'user' || (scope === 'local' && trusted);
    const whyNot =
      scope === 'project'
        ? 'the committed project file may not widen the sandbox'
        : 'an untrusted folder may not widen the sandbox';
    const ignored = (key: string, entries?: readonly string[]) =>
      dropped.push(`${file}: sandbox.${key}${entries ? ` ${entries.join(', ')}` : ''} ignored: ${whyNot}`);
    for (const key of Object.keys(WIDENING_SWITCHES) as (keyof typeof WIDENING_SWITCHES)[]) {
      const value = sandbox[key];
      if (value === undefined) continue;
      if (value === WIDENING_SWITCHES[key] && !widens) ignored(key);
      else policy[key] = value;
    }
    const binding = sandbox.network?.allowLocalBinding;
    if (binding === true && !widens) ignored('network.allowLocalBinding');
    else if (binding !== undefined) policy.network.allowLocalBinding = binding;
    const absolute = (entries: readonly string[] | undefined) =>
      (entries ?? []).map((entry) => sandboxPath(entry, workspace));
    add(policy.filesystem.denyWrite, absolute(sandbox.filesystem?.denyWrite));
    add(policy.filesystem.denyRead, absolute(sandbox.filesystem?.denyRead));
    const widening: [string, string[], string[]][] = [
      ['excludedCommands', policy.excludedCommands, sandbox.excludedCommands ?? []],
      ['filesystem.allowRead', policy.filesystem.allowRead, absolute(sandbox.filesystem?.allowRead)],
      ['network.allowedDomains', policy.network.allowedDomains, sandbox.network?.allowedDomains ?? []],
      ['network.allowUnixSockets', policy.network.allowUnixSockets, absolute(sandbox.network?.allowUnixSockets)],
    ];
    for (const [key, list, entries] of widening) {
      if (entries.length === 0) continue;
      if (widens) add(list, entries);
      else ignored(key, entries);
    }
    const outside: string[] = [];
    for (const entry of absolute(sandbox.filesystem?.allowWrite)) {
      if (widens || isInside(realRoot, await realLocation(entry))) add(policy.filesystem.allowWrite, [entry]);
      else outside.push(entry);
    }
    if (outside.length > 0) ignored('filesystem.allowWrite', outside);
  }
  return { policy, dropped };
  // #endregion
}
