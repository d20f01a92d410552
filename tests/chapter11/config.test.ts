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
      'expandVars steps 1-2: replace every ${NAME} with env[NAME]',
    ).toBe('/home/ada/bin:/home/ada/.local');
    expect(expandVars('Bearer $TOKEN {TOKEN} $', env, 'x'), 'expandVars step 4: only ${NAME} is a reference').toBe(
      'Bearer $TOKEN {TOKEN} $',
    );
  });

  test('${VAR:-default} gives the default when the variable is unset or empty, and the value when it is set', () => {
    expect(expandVars('${MISSING:-8080}', env, 'x'), 'expandVars step 2: unset variable, use the default').toBe('8080');
    expect(expandVars('${EMPTY:-fallback}', env, 'x'), 'expandVars step 2: an empty variable counts as unset').toBe(
      'fallback',
    );
    expect(expandVars('${TOKEN:-fallback}', env, 'x'), 'expandVars step 2: a set variable wins over the default').toBe(
      's3cret',
    );
    expect(expandVars('[${MISSING:-}]', env, 'x'), 'expandVars step 2: an empty default gives ""').toBe('[]');
  });

  test('an unset ${VAR} without a default is an error that names where it was and the variable', () => {
    expect(
      () => expandVars('Bearer ${NOPE}', env, 'server "docs": headers.Authorization'),
      'expandVars step 3: throw for an unset variable with no default',
    ).toThrow(/server "docs": headers\.Authorization.*NOPE/);
    expect(
      () => expandVars('${EMPTY}', env, 'here'),
      'expandVars step 3: an empty variable with no default is missing too',
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
    expect(servers.everything, 'parseMcpConfig step 4: a stdio entry with every string expanded').toEqual({
      type: 'stdio',
      command: 'npx',
      args: ['-y', 'server-everything', 'stdio'],
      env: { KEY: 's3cret' },
    });
    expect(servers.bare, 'parseMcpConfig step 4: args [] and env {} when absent, no cwd unless given').toEqual({
      type: 'stdio',
      command: '/home/ada/bin/srv',
      args: [],
      env: {},
    });
    expect(Object.keys(servers), 'parseMcpConfig step 5: every server, by name').toEqual(['everything', 'bare']);
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
    expect(servers.docs, 'parseMcpConfig step 3: an http entry, url and header values expanded').toEqual({
      type: 'http',
      url: 'https://example.test/mcp',
      headers: { Authorization: 'Bearer s3cret' },
    });
    expect(servers.open, 'parseMcpConfig step 3: headers {} when absent').toEqual({
      type: 'http',
      url: 'http://127.0.0.1:9000/mcp',
      headers: {},
    });
    expect(servers.local, 'parseMcpConfig step 4: cwd expanded when given').toEqual({
      type: 'stdio',
      command: 'srv',
      args: [],
      env: {},
      cwd: '/home/ada/work',
    });
  });

  test('a file without an mcpServers object is an error that says what was expected', () => {
    expect(configError({ servers: {} }), 'parseMcpConfig step 1').toMatch(/proj\/\.mcp\.json.*mcpServers/);
    expect(configError([]), 'parseMcpConfig step 1: an array is not the file').toMatch(/mcpServers/);
    expect(
      configError({ mcpServers: [] }),
      'parseMcpConfig step 1: mcpServers must be an object, not an array',
    ).toMatch(/mcpServers/);
  });

  test('a bad server name is an error naming it: "__" inside, a final "_", other characters, more than 40', () => {
    for (const name of ['a__b', 'tools_', 'my server', 'x'.repeat(41), '']) {
      expect(
        configError({ mcpServers: { [name]: { command: 'srv' } } }),
        `parseMcpConfig step 2: server name ${JSON.stringify(name)} must be refused (names must keep mcp__<server>__<tool> unambiguous)`,
      ).toContain(`server "${name}"`);
    }
    expect(
      () =>
        parseMcpConfig({ mcpServers: { 'git-hub_2': { command: 'srv' }, ['x'.repeat(40)]: { command: 'srv' } } }, env),
      'parseMcpConfig step 2: letters, digits, "-" and single "_" are fine',
    ).not.toThrow();
  });

  test('a stdio entry without a usable command is an error naming the server and "command"', () => {
    expect(configError({ mcpServers: { fs: { args: ['x'] } } }), 'parseMcpConfig step 4: command is required').toMatch(
      /server "fs".*command/,
    );
    expect(
      configError({ mcpServers: { fs: { command: '  ' } } }),
      'parseMcpConfig step 4: an empty command is refused',
    ).toMatch(/server "fs".*command/);
    expect(
      configError({ mcpServers: { fs: { command: 42 } } }),
      'parseMcpConfig step 4: command must be a string',
    ).toMatch(/server "fs".*command/);
    expect(configError({ mcpServers: { fs: 'npx srv' } }), 'parseMcpConfig step 2: an entry must be an object').toMatch(
      /server "fs": expected an object/,
    );
    expect(configError({ mcpServers: { fs: null } }), 'parseMcpConfig step 2: null is not an entry').toMatch(
      /server "fs": expected an object/,
    );
  });

  test('args, env and headers of the wrong shape are errors naming the server and the field', () => {
    expect(
      configError({ mcpServers: { fs: { command: 'srv', args: '--root /' } } }),
      'parseMcpConfig step 4: args must be an array',
    ).toMatch(/server "fs".*args/);
    expect(
      configError({ mcpServers: { fs: { command: 'srv', args: ['ok', 3] } } }),
      'parseMcpConfig step 4: every arg must be a string',
    ).toMatch(/server "fs".*args/);
    expect(
      configError({ mcpServers: { fs: { command: 'srv', env: { PORT: 80 } } } }),
      'parseMcpConfig step 4: env values must be strings',
    ).toMatch(/server "fs".*env/);
    expect(
      configError({ mcpServers: { fs: { command: 'srv', env: ['A=1'] } } }),
      'parseMcpConfig step 4: env must be an object',
    ).toMatch(/server "fs".*env/);
    expect(
      configError({ mcpServers: { web: { type: 'http', url: 'https://x.test', headers: 'Auth: x' } } }),
      'parseMcpConfig step 3: headers must be an object of strings',
    ).toMatch(/server "web".*headers/);
    expect(
      configError({ mcpServers: { fs: { command: 'srv', cwd: 7 } } }),
      'parseMcpConfig step 4: cwd must be a string',
    ).toMatch(/server "fs": cwd/);
  });

  test('an http entry needs an http(s) url; an unknown type is an error naming "type"', () => {
    expect(configError({ mcpServers: { web: { type: 'http' } } }), 'parseMcpConfig step 3: url is required').toMatch(
      /server "web".*url/,
    );
    expect(
      configError({ mcpServers: { web: { type: 'http', url: 'not a url' } } }),
      'parseMcpConfig step 3: url must parse',
    ).toMatch(/server "web".*url/);
    expect(
      configError({ mcpServers: { web: { type: 'http', url: 'file:///etc/passwd' } } }),
      'parseMcpConfig step 3: only http: and https:',
    ).toMatch(/server "web".*url/);
    expect(
      configError({ mcpServers: { web: { type: 'sse', url: 'https://x.test' } } }),
      'parseMcpConfig step 5: only stdio and http',
    ).toMatch(/server "web".*type/);
  });

  test('a missing variable in an entry is an error naming the server and the field it is in', () => {
    expect(
      configError({
        mcpServers: {
          web: { type: 'http', url: 'https://x.test', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } },
        },
      }),
      'parseMcpConfig steps 3-4 with expandVars: the message says which server and field need the variable',
    ).toMatch(/server "web".*headers.*DOCS_TOKEN/);
  });
});
