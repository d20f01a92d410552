/** A case's folder for one agent: the workspace, `out/` and HOME the case describes, and its call as each agent makes it. */
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { type Call, type Case, COMMIT_SUBJECT, HOME_SECRET, OUT_SECRET, type SettingsFile } from './case.js';
import { git } from './processes.js';
import type { Agent } from './outcome.js';

export interface Place {
  dir: string;
  ws: string;
  out: string;
  home: string;
}

function writeTree(root: string, files: Record<string, string> | undefined): void {
  for (const [name, content] of Object.entries(files ?? {})) {
    const file = path.join(root, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

function writeSettings(file: string, settings: SettingsFile | undefined): void {
  if (!settings) return;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
}

/** The case's workspace, `out/` and HOME for one agent, the folder trusted by both agents' records if it says so. */
export function setUp(item: Case, dir: string, home0: string): Place {
  const place = { dir, ws: path.join(dir, 'ws'), out: path.join(dir, 'out'), home: path.join(dir, 'home') };
  mkdirSync(place.ws, { recursive: true });
  writeTree(place.out, { 'secret.txt': `${OUT_SECRET}\n` });
  cpSync(home0, place.home, { recursive: true });
  writeTree(place.home, { 'secret.txt': `${HOME_SECRET}\n`, ...item.home });
  writeTree(place.ws, { 'notes.txt': 'hello notes\n', ...item.files });
  for (const name of item.executables ?? []) chmodSync(path.join(place.ws, name), 0o755);
  for (const [link, target] of Object.entries(item.symlinks ?? {})) symlinkSync(target, path.join(place.ws, link));
  writeSettings(path.join(place.ws, '.claude', 'settings.json'), item.project);
  writeSettings(path.join(place.ws, '.claude', 'settings.local.json'), item.local);
  git(place.ws, 'init', '-q');
  git(place.ws, 'add', '-A');
  git(place.ws, 'commit', '-q', '-m', COMMIT_SUBJECT);
  writeTree(place.ws, item.dirty);
  writeSettings(path.join(place.home, '.claude', 'settings.json'), item.user);
  if (item.trusted) {
    const key = realpathSync(place.ws);
    const config = path.join(place.home, '.claude.json');
    const json = existsSync(config) ? (JSON.parse(readFileSync(config, 'utf8')) as Record<string, unknown>) : {};
    const projects = (json.projects ?? {}) as Record<string, Record<string, unknown>>;
    projects[key] = { ...projects[key], hasTrustDialogAccepted: true };
    writeFileSync(config, `${JSON.stringify({ ...json, projects }, null, 2)}\n`);
    // The kit's record (solution/src/capstone/trust.ts: rememberTrust), every server approved as the question does.
    writeTree(place.home, {
      '.coding-agent/trust.json': `${JSON.stringify({ folders: { [key]: { trusted: true, servers: 'all', at: new Date().toISOString() } } }, null, 2)}\n`,
    });
  }
  return place;
}

function fill(text: string, place: Place): string {
  return text.replaceAll('@WS@', place.ws).replaceAll('@OUT@', place.out).replaceAll('@HOME@', place.home);
}

/** Where an effect's or a call's path is: `~/` is HOME, else relative to the workspace. */
export function located(file: string, place: Place): string {
  const filled = fill(file, place);
  return filled.startsWith('~/') ? path.join(place.home, filled.slice(2)) : path.resolve(place.ws, filled);
}

/** The scripted calls: the kit's call as it is; Claude Code's named its way, a file Read first before a change. */
export function scripted(
  call: Call,
  agent: Agent,
  place: Place,
): Array<{ name: string; input: Record<string, unknown> }> {
  if (agent === 'kit') {
    const input: Record<string, unknown> =
      call.tool === 'bash'
        ? { command: fill(call.command, place) }
        : call.tool === 'read'
          ? { path: fill(call.path, place) }
          : call.tool === 'write'
            ? { path: fill(call.path, place), content: call.content }
            : { path: fill(call.path, place), old_string: call.old, new_string: call.new };
    return [{ name: call.tool, input }];
  }
  if (call.tool === 'bash') return [{ name: 'Bash', input: { command: fill(call.command, place) } }];
  const file = located(call.path, place);
  if (call.tool === 'read') return [{ name: 'Read', input: { file_path: file } }];
  // Claude Code changes a file only after reading it in the session (else "File has not been read yet").
  const before = existsSync(file) ? [{ name: 'Read', input: { file_path: file } }] : [];
  if (call.tool === 'write') return [...before, { name: 'Write', input: { file_path: file, content: call.content } }];
  return [...before, { name: 'Edit', input: { file_path: file, old_string: call.old, new_string: call.new } }];
}

export function modeFlags(item: Case): string[] {
  return [...(item.mode ? ['--permission-mode', item.mode] : []), ...(item.flags ?? [])];
}
