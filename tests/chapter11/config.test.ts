import { describe, expect, test } from 'vitest';
import { expandVars, parseMcpConfig } from 'kit/mcp/config';

const env = { HOME_DIR: '/home/ada', TOKEN: 's3cret', EMPTY: '' };

/** The error parseMcpConfig throws for `json`, as text (fails the test when it does not throw). */
function configError(json: unknown): string {
  try {
    parseMcpConfig(json, env, 'proj/.mcp.json');
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error(
    `parseMcpConfig accepted ${JSON.stringify(json)}; it should throw an error naming the server and the field`,
  );
}

describe('expandVars (src/mcp/config.ts)', () => {
  test('${VAR} takes the value from the environment, everywhere in the text, and plain text is left alone', () => {
    expect(
      expandVars('${HOME_DIR}/bin:${HOME_DIR}/.local', env, 'x'),
      'expandVars: replace every ${NAME} with env[NAME] (guided steps 1-2)',
    ).toBe('/home/ada/bin:/home/ada/.local');
    expect(
      expandVars('Bearer $TOKEN {TOKEN} $', env, 'x'),
      'expandVars: only ${NAME} is a reference (guided step 4)',
    ).toBe('Bearer $TOKEN {TOKEN} $');
  });

  test('${VAR:-default} gives the default when the variable is unset or empty, and the value when it is set', () => {
    expect(
      expandVars('${MISSING:-8080}', env, 'x'),
      'expandVars: unset variable, use the default (guided step 2)',
    ).toBe('8080');
    expect(
      expandVars('${EMPTY:-fallback}', env, 'x'),
      'expandVars: an empty variable counts as unset (guided step 2)',
    ).toBe('fallback');
    expect(
      expandVars('${TOKEN:-fallback}', env, 'x'),
      'expandVars: a set variable wins over the default (guided step 2)',
    ).toBe('s3cret');
    expect(expandVars('[${MISSING:-}]', env, 'x'), 'expandVars: an empty default gives "" (guided step 2)').toBe('[]');
  });

  test('an unset ${VAR} without a default is an error that names where it was and the variable', () => {
    expect(
      () => expandVars('Bearer ${NOPE}', env, 'server "docs": headers.Authorization'),
      'expandVars: throw for an unset variable with no default (guided step 3)',
    ).toThrow(/server "docs": headers\.Authorization.*NOPE/);
    expect(
      () => expandVars('${EMPTY}', env, 'here'),
      'expandVars: an empty variable with no default is missing too (guided step 3)',
    ).toThrow(/EMPTY/);
  });
});

describe('parseMcpConfig (src/mcp/config.ts)', () => {
  test('a stdio server: type defaults to stdio, command, args and env are expanded, args and env default to empty', () => {
    const servers = parseMcpConfig(
      {
        mcpServers: {
          everything: { command: 'npx', args: ['-y', 'server-everything', '${MODE:-stdio}'], env: { KEY: '${TOKEN}' } },
          bare: { command: '${HOME_DIR}/bin/srv' },
        },
      },
      env,
    );
    expect(servers.everything, 'parseMcpConfig: a stdio entry with every string expanded (guided step 4)').toEqual({
      type: 'stdio',
      command: 'npx',
      args: ['-y', 'server-everything', 'stdio'],
      env: { KEY: 's3cret' },
    });
    expect(servers.bare, 'parseMcpConfig: args [] and env {} when absent, no cwd unless given (guided step 4)').toEqual(
      {
        type: 'stdio',
        command: '/home/ada/bin/srv',
        args: [],
        env: {},
      },
    );
    expect(Object.keys(servers), 'parseMcpConfig: every server, by name (guided step 5)').toEqual([
      'everything',
      'bare',
    ]);
  });

  test('an http server: url and headers expanded; cwd of a stdio server only when given', () => {
    const servers = parseMcpConfig(
      {
        mcpServers: {
          docs: {
            type: 'http',
            url: 'https://example.test/${PATH_PART:-mcp}',
            headers: { Authorization: 'Bearer ${TOKEN}' },
          },
          local: { type: 'stdio', command: 'srv', cwd: '${HOME_DIR}/work' },
          open: { type: 'http', url: 'http://127.0.0.1:9000/mcp' },
        },
      },
      env,
    );
    expect(servers.docs, 'parseMcpConfig: an http entry, url and header values expanded (guided step 3)').toEqual({
      type: 'http',
      url: 'https://example.test/mcp',
      headers: { Authorization: 'Bearer s3cret' },
    });
    expect(servers.open, 'parseMcpConfig: headers {} when absent (guided step 3)').toEqual({
      type: 'http',
      url: 'http://127.0.0.1:9000/mcp',
      headers: {},
    });
    expect(servers.local, 'parseMcpConfig: cwd expanded when given (guided step 4)').toEqual({
      type: 'stdio',
      command: 'srv',
      args: [],
      env: {},
      cwd: '/home/ada/work',
    });
  });

  test('a file without an mcpServers object is an error that says what was expected', () => {
    expect(configError({ servers: {} }), 'parseMcpConfig guided step 1').toMatch(/proj\/\.mcp\.json.*mcpServers/);
    expect(configError([]), 'parseMcpConfig: an array is not the file (guided step 1)').toMatch(/mcpServers/);
    expect(
      configError({ mcpServers: [] }),
      'parseMcpConfig: mcpServers must be an object, not an array (guided step 1)',
    ).toMatch(/mcpServers/);
  });

  test('a bad server name is an error naming it: "__" inside, a final "_", other characters, more than 40', () => {
    for (const name of ['a__b', 'tools_', 'my server', 'x'.repeat(41), '']) {
      expect(
        configError({ mcpServers: { [name]: { command: 'srv' } } }),
        `parseMcpConfig: server name ${JSON.stringify(name)} must be refused (names must keep mcp__<server>__<tool> unambiguous) (guided step 2)`,
      ).toContain(`server "${name}"`);
    }
    expect(
      () =>
        parseMcpConfig({ mcpServers: { 'git-hub_2': { command: 'srv' }, ['x'.repeat(40)]: { command: 'srv' } } }, env),
      'parseMcpConfig: letters, digits, "-" and single "_" are fine (guided step 2)',
    ).not.toThrow();
  });

  test('a stdio entry without a usable command is an error naming the server and "command"', () => {
    expect(
      configError({ mcpServers: { fs: { args: ['x'] } } }),
      'parseMcpConfig: command is required (guided step 4)',
    ).toMatch(/server "fs".*command/);
    expect(
      configError({ mcpServers: { fs: { command: '  ' } } }),
      'parseMcpConfig: an empty command is refused (guided step 4)',
    ).toMatch(/server "fs".*command/);
    expect(
      configError({ mcpServers: { fs: { command: 42 } } }),
      'parseMcpConfig: command must be a string (guided step 4)',
    ).toMatch(/server "fs".*command/);
    expect(
      configError({ mcpServers: { fs: 'npx srv' } }),
      'parseMcpConfig: an entry must be an object (guided step 2)',
    ).toMatch(/server "fs": expected an object/);
    expect(configError({ mcpServers: { fs: null } }), 'parseMcpConfig: null is not an entry (guided step 2)').toMatch(
      /server "fs": expected an object/,
    );
  });

  test('args, env and headers of the wrong shape are errors naming the server and the field', () => {
    expect(
      configError({ mcpServers: { fs: { command: 'srv', args: '--root /' } } }),
      'parseMcpConfig: args must be an array (guided step 4)',
    ).toMatch(/server "fs".*args/);
    expect(
      configError({ mcpServers: { fs: { command: 'srv', args: ['ok', 3] } } }),
      'parseMcpConfig: every arg must be a string (guided step 4)',
    ).toMatch(/server "fs".*args/);
    expect(
      configError({ mcpServers: { fs: { command: 'srv', env: { PORT: 80 } } } }),
      'parseMcpConfig: env values must be strings (guided step 4)',
    ).toMatch(/server "fs".*env/);
    expect(
      configError({ mcpServers: { fs: { command: 'srv', env: ['A=1'] } } }),
      'parseMcpConfig: env must be an object (guided step 4)',
    ).toMatch(/server "fs".*env/);
    expect(
      configError({ mcpServers: { web: { type: 'http', url: 'https://x.test', headers: 'Auth: x' } } }),
      'parseMcpConfig: headers must be an object of strings (guided step 3)',
    ).toMatch(/server "web".*headers/);
    expect(
      configError({ mcpServers: { fs: { command: 'srv', cwd: 7 } } }),
      'parseMcpConfig: cwd must be a string (guided step 4)',
    ).toMatch(/server "fs": cwd/);
  });

  test('an http entry needs an http(s) url; an unknown type is an error naming "type"', () => {
    expect(
      configError({ mcpServers: { web: { type: 'http' } } }),
      'parseMcpConfig: url is required (guided step 3)',
    ).toMatch(/server "web".*url/);
    expect(
      configError({ mcpServers: { web: { type: 'http', url: 'not a url' } } }),
      'parseMcpConfig: url must parse (guided step 3)',
    ).toMatch(/server "web".*url/);
    expect(
      configError({ mcpServers: { web: { type: 'http', url: 'file:///etc/passwd' } } }),
      'parseMcpConfig: only http: and https: (guided step 3)',
    ).toMatch(/server "web".*url/);
    expect(
      configError({ mcpServers: { web: { type: 'sse', url: 'https://x.test' } } }),
      'parseMcpConfig: only stdio and http (guided step 5)',
    ).toMatch(/server "web".*type/);
  });

  test('a missing variable in an entry is an error naming the server and the field it is in', () => {
    expect(
      configError({
        mcpServers: {
          web: { type: 'http', url: 'https://x.test', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } },
        },
      }),
      'parseMcpConfig guided steps 3-4 with expandVars: the message says which server and field need the variable',
    ).toMatch(/server "web".*headers.*DOCS_TOKEN/);
  });
});
