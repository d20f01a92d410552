/**
 * Chapter 16: the sandbox policy (src/sandbox/policy.ts: sandboxPolicy). A committed settings file comes with the
 * repository, so it may make the sandbox stricter but never wider; the person's own files may do both.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { defaultSandboxPolicy, sandboxPolicy } from 'kit/sandbox/policy';
import { folders, LOCAL_FILE, local, PROJECT_FILE, project, USER_FILE, user } from './fixtures.js';

const where = () => {
  const { root, home, outside } = folders();
  return { ws: { root, home }, outside };
};

describe('sandboxPolicy (src/sandbox/policy.ts)', () => {
  test('no layers: the default policy (off; writes only in the workspace; no hosts), nothing dropped', async () => {
    const { ws } = where();
    const merged = await sandboxPolicy([], ws, false);
    expect(merged.policy, 'sandboxPolicy: start from defaultSandboxPolicy(workspace) (guided step 1)').toEqual(
      defaultSandboxPolicy(ws),
    );
    expect(merged.dropped, 'nothing to drop').toEqual([]);
  });

  test("the person's own file may widen everything: hosts, excluded commands, writes outside, fewer questions", async () => {
    const { ws, outside } = where();
    const { policy, dropped } = await sandboxPolicy(
      [
        user({
          enabled: true,
          autoAllowBashIfSandboxed: true,
          excludedCommands: ['docker'],
          filesystem: { allowWrite: [outside] },
          network: { allowedDomains: ['registry.npmjs.org'], allowLocalBinding: true },
        }),
      ],
      ws,
      false,
    );
    expect(dropped, 'sandboxPolicy: a user file may widen, trusted folder or not (guided step 2)').toEqual([]);
    expect(policy.enabled && policy.autoAllowBashIfSandboxed, 'both switches taken (guided step 3)').toBe(true);
    expect(policy.excludedCommands, 'excludedCommands taken (guided step 4)').toEqual(['docker']);
    expect(policy.network.allowedDomains, 'allowedDomains taken (guided step 4)').toEqual(['registry.npmjs.org']);
    expect(policy.network.allowLocalBinding, 'allowLocalBinding taken from the user file (guided step 3)').toBe(true);
    expect(policy.filesystem.allowWrite, 'the workspace, then the folder outside (guided step 4)').toEqual([
      ws.root,
      outside,
    ]);
  });

  test('the committed project file never widens, even in a trusted folder: each key it tried is one dropped line', async () => {
    const { ws, outside } = where();
    const { policy, dropped } = await sandboxPolicy(
      [
        project({
          autoAllowBashIfSandboxed: true,
          excludedCommands: ['curl', 'docker'],
          filesystem: { allowWrite: [outside], allowRead: ['~/.ssh'] },
          network: { allowedDomains: ['evil.example'], allowUnixSockets: ['/var/run/docker.sock'] },
        }),
      ],
      ws,
      true,
    );
    expect(
      policy,
      'sandboxPolicy: nothing of a project file that widens is taken, trusted or not (guided step 2)',
    ).toEqual(defaultSandboxPolicy(ws));
    expect(dropped, 'one line per key it could not use (guided steps 3 and 4)').toHaveLength(6);
    for (const line of dropped) {
      expect(line.startsWith(`${PROJECT_FILE}: sandbox.`), `each line names the file and the key: ${line}`).toBe(true);
      expect(line, 'and says why (guided step 2)').toContain('the committed project file may not widen the sandbox');
    }
    const line = (key: string) => dropped.find((one) => one.includes(`sandbox.${key} `)) ?? '';
    expect(line('excludedCommands'), 'a list line names its entries, joined with ", " (guided step 4)').toContain(
      'curl, docker',
    );
    expect(line('network.allowUnixSockets'), 'the sockets too, each key its own line (guided step 4)').toContain(
      '/var/run/docker.sock',
    );
    expect(line('network.allowedDomains'), 'a list line names its entries (guided step 4)').toContain('evil.example');
    expect(line('filesystem.allowWrite'), 'the write outside is named (guided step 4)').toContain(outside);
    expect(line('filesystem.allowRead'), 'paths are named as absolute paths (guided step 4)').toContain(
      path.join(ws.home, '.ssh'),
    );
  });

  test('the local file widens only in a trusted folder, and says why not otherwise', async () => {
    const { ws } = where();
    const layers = [local({ network: { allowedDomains: ['api.example'] }, autoAllowBashIfSandboxed: true })];
    const trusted = await sandboxPolicy(layers, ws, true);
    expect(
      trusted.policy.network.allowedDomains,
      'sandboxPolicy: a trusted local file may widen (guided step 2)',
    ).toEqual(['api.example']);
    expect(trusted.policy.autoAllowBashIfSandboxed, 'a trusted local file may widen a switch (guided step 3)').toBe(
      true,
    );
    const untrusted = await sandboxPolicy(layers, ws, false);
    expect(untrusted.policy, 'an untrusted local file widens nothing (guided step 2)').toEqual(
      defaultSandboxPolicy(ws),
    );
    expect(untrusted.dropped, 'two lines: the list and the switch (guided steps 3 and 4)').toHaveLength(2);
    for (const line of untrusted.dropped) {
      expect(line.startsWith(`${LOCAL_FILE}: sandbox.`), `names the local file: ${line}`).toBe(true);
      expect(line, 'says why (guided step 2)').toContain('an untrusted folder may not widen the sandbox');
    }
  });

  test('any layer may narrow: an untrusted project file turns the sandbox on, denies folders and asks more', async () => {
    const { ws } = where();
    const { policy, dropped } = await sandboxPolicy(
      [
        user({ enabled: false, autoAllowBashIfSandboxed: true, allowUnsandboxedCommands: true }),
        project({
          enabled: true,
          autoAllowBashIfSandboxed: false,
          allowUnsandboxedCommands: false,
          failIfUnavailable: true,
          filesystem: { denyRead: ['~/.aws-backup'], denyWrite: ['dist'] },
        }),
      ],
      ws,
      false,
    );
    expect(dropped, 'sandboxPolicy: nothing that narrows is dropped, from any layer (guided step 3)').toEqual([]);
    expect(
      [policy.enabled, policy.autoAllowBashIfSandboxed, policy.allowUnsandboxedCommands, policy.failIfUnavailable],
      'each narrowing value of a later layer wins over the earlier layer (guided step 3)',
    ).toEqual([true, false, false, true]);
    expect(
      policy.filesystem.denyRead,
      'denyRead always added, as an absolute path, after the defaults (guided step 4)',
    ).toEqual([...defaultSandboxPolicy(ws).filesystem.denyRead, path.join(ws.home, '.aws-backup')]);
    expect(policy.filesystem.denyWrite, 'denyWrite always added, from the workspace root (guided step 4)').toEqual([
      path.join(ws.root, 'dist'),
    ]);
  });

  test('a project file cannot switch the sandbox off, or switch a narrowing back, after the person switched it on', async () => {
    const { ws } = where();
    const { policy, dropped } = await sandboxPolicy(
      [
        user({ enabled: true, allowUnsandboxedCommands: false, failIfUnavailable: true }),
        project({
          enabled: false,
          allowUnsandboxedCommands: true,
          failIfUnavailable: false,
          enableWeakerNestedSandbox: true,
          network: { allowLocalBinding: true },
        }),
      ],
      ws,
      true,
    );
    expect(
      [policy.enabled, policy.allowUnsandboxedCommands, policy.failIfUnavailable, policy.enableWeakerNestedSandbox],
      "sandboxPolicy: a widening switch from the project file is ignored, so the person's values stay (guided step 3)",
    ).toEqual([true, false, true, false]);
    expect(
      policy.network.allowLocalBinding,
      'allowLocalBinding: true widens: ignored from the project file (guided step 3)',
    ).toBe(false);
    const keys = dropped.map((line) => /sandbox\.(\S+) ignored/.exec(line)?.[1]);
    expect(keys.sort(), 'one line per switch ignored, naming it (guided step 3)').toEqual(
      [
        'allowUnsandboxedCommands',
        'enableWeakerNestedSandbox',
        'enabled',
        'failIfUnavailable',
        'network.allowLocalBinding',
      ].sort(),
    );
  });

  test('a later layer wins for a switch, in both directions, when it may widen', async () => {
    const { ws } = where();
    const on = await sandboxPolicy(
      [user({ autoAllowBashIfSandboxed: false }), local({ autoAllowBashIfSandboxed: true })],
      ws,
      true,
    );
    expect(
      on.policy.autoAllowBashIfSandboxed,
      'sandboxPolicy: the trusted local file comes last and wins (guided step 3)',
    ).toBe(true);
    const off = await sandboxPolicy(
      [user({ autoAllowBashIfSandboxed: true }), local({ autoAllowBashIfSandboxed: false })],
      ws,
      false,
    );
    expect(off.policy.autoAllowBashIfSandboxed, 'a narrowing value wins from any later layer (guided step 3)').toBe(
      false,
    );
  });

  test('allowWrite inside the workspace is taken from any layer; outside it, only from a layer that may widen', async () => {
    const { ws, outside } = where();
    const { policy, dropped } = await sandboxPolicy(
      [project({ filesystem: { allowWrite: ['build', './out/', outside] } })],
      ws,
      false,
    );
    expect(
      policy.filesystem.allowWrite,
      'sandboxPolicy: paths inside the workspace are taken, made absolute, without a trailing slash (guided step 4)',
    ).toEqual([ws.root, path.join(ws.root, 'build'), path.join(ws.root, 'out')]);
    expect(dropped, 'one line for the path outside (guided step 4)').toEqual([
      `${PROJECT_FILE}: sandbox.filesystem.allowWrite ${outside} ignored: the committed project file may not widen the sandbox`,
    ]);
  });

  test('a committed symlink inside the workspace that leads out of it does not count as inside', async () => {
    const { ws, outside } = where();
    symlinkSync(outside, path.join(ws.root, 'cache'));
    mkdirSync(path.join(ws.root, 'real'));
    symlinkSync(path.join(ws.root, 'real'), path.join(ws.root, 'alias'));
    const { policy, dropped } = await sandboxPolicy(
      [project({ filesystem: { allowWrite: ['cache/npm', 'alias'] } })],
      ws,
      true,
    );
    expect(
      policy.filesystem.allowWrite,
      'sandboxPolicy: allowWrite is judged where the path really leads (realLocation), not by its name (guided step 4)',
    ).toEqual([ws.root, path.join(ws.root, 'alias')]);
    expect(dropped.join('\n'), 'the link out is dropped, named as written from the root').toContain(
      path.join(ws.root, 'cache/npm'),
    );
  });

  test('the workspace reached through a symlink still counts as inside', async () => {
    const { ws } = where();
    const linked = `${ws.root}-link`;
    symlinkSync(ws.root, linked);
    const { policy, dropped } = await sandboxPolicy(
      [project({ filesystem: { allowWrite: ['out'] } })],
      { root: linked, home: ws.home },
      false,
    );
    expect(
      dropped,
      'sandboxPolicy: compare with where the workspace really is (realLocation of the root) (guided step 1)',
    ).toEqual([]);
    expect(policy.filesystem.allowWrite).toEqual([linked, path.join(linked, 'out')]);
  });

  test('lists add up in the layers order without repeats', async () => {
    const { ws } = where();
    const { policy } = await sandboxPolicy(
      [
        user({ excludedCommands: ['docker', 'git push'], filesystem: { denyRead: ['~/keys/'] } }),
        local({ excludedCommands: ['docker', 'kubectl'], filesystem: { denyRead: ['~/keys', '~/.ssh', '~/tokens'] } }),
        project({ filesystem: { denyRead: ['~/keys'] } }),
      ],
      ws,
      true,
    );
    expect(
      policy.excludedCommands,
      'sandboxPolicy: user entries first, then the local ones, no repeats (guided steps 4 and 5)',
    ).toEqual(['docker', 'git push', 'kubectl']);
    expect(
      policy.filesystem.denyRead,
      '`~/keys/` and `~/keys` are one folder, and ~/.ssh is denied already: each path once (sandboxPath, guided steps 4 and 5)',
    ).toEqual([
      ...defaultSandboxPolicy(ws).filesystem.denyRead,
      path.join(ws.home, 'keys'),
      path.join(ws.home, 'tokens'),
    ]);
  });

  test('the layers given are not changed', async () => {
    const { ws } = where();
    const layers = [user({ excludedCommands: ['docker'], filesystem: { denyRead: ['~/.ssh'] } })];
    const copy = structuredClone(layers);
    const first = await sandboxPolicy(layers, ws, false);
    first.policy.excludedCommands.push('rm');
    const second = await sandboxPolicy(layers, ws, false);
    expect(layers, 'sandboxPolicy: the layers are read, never written').toEqual(copy);
    expect(second.policy.excludedCommands, 'a policy is a new object each time (guided step 1)').toEqual(['docker']);
  });

  test('a user file names its own file in its lines, and a user file never drops anything', async () => {
    const { ws, outside } = where();
    const { dropped } = await sandboxPolicy(
      [user({ filesystem: { allowWrite: [outside] } }), project({ network: { allowedDomains: ['x.example'] } })],
      ws,
      true,
    );
    expect(dropped, 'sandboxPolicy: only the project layer has a line').toEqual([
      `${PROJECT_FILE}: sandbox.network.allowedDomains x.example ignored: the committed project file may not widen the sandbox`,
    ]);
    expect(dropped.join(''), 'the user file widens freely').not.toContain(USER_FILE);
  });
});
