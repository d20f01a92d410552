import { describe, expect, test } from 'vitest';
import {
  checkOptions,
  defaultOptions,
  OPTIONS,
  parseFlags,
  readValue,
  splitRuleList,
  USAGE,
  UsageError,
  type CliOptions,
  type OptionValue,
} from 'kit/capstone/flags';

/** The UsageError `run` throws; fails with `label` when it throws nothing or something else (a TODO stays a TODO). */
function usageError(run: () => unknown, label: string): UsageError {
  try {
    run();
  } catch (error) {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    expect(
      error instanceof Error && error.name,
      `${label}: the error must be a UsageError (the program exits 2 on it), got ${String(error)}`,
    ).toBe('UsageError');
    expect(error, `${label}: an instance of the UsageError class of src/capstone/flags.ts`).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  return expect.fail(`${label}: no UsageError was thrown`);
}

/** Runs `run`, failing with `label` when it throws (a TODO stays a TODO, so an unfinished stub says so). */
function noError(run: () => unknown, label: string): void {
  try {
    run();
  } catch (error) {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    expect.fail(`${label}: expected no error, got ${String(error)}`);
  }
}

const NAME: OptionValue = { kind: 'text', placeholder: 'NAME' };
const FORMAT: OptionValue = { kind: 'choice', placeholder: 'FORMAT', choices: ['text', 'json', 'stream-json'] };
const TURNS: OptionValue = { kind: 'number', placeholder: 'N', least: 1 };
const DEPTH: OptionValue = { kind: 'number', placeholder: 'N', least: 0 };

describe('splitRuleList (src/capstone/flags.ts)', () => {
  test('rules are separated by commas or spaces, but a rule keeps the spaces and commas inside its parentheses', () => {
    expect(
      splitRuleList('Bash(npm test:*) Edit(src/**)'),
      'splitRuleList step 3: the space inside Bash(npm test:*) belongs to the rule',
    ).toEqual(['Bash(npm test:*)', 'Edit(src/**)']);
    expect(splitRuleList('Read,Edit'), 'splitRuleList step 2: a comma outside parentheses ends a rule').toEqual([
      'Read',
      'Edit',
    ]);
    expect(
      splitRuleList('Bash(git log:*),Bash(git diff:*)'),
      'splitRuleList step 2: a comma after a closing parenthesis ends a rule',
    ).toEqual(['Bash(git log:*)', 'Bash(git diff:*)']);
    expect(
      splitRuleList('Bash(echo a,b)\tWebFetch(domain:example.com)'),
      'splitRuleList step 3: a comma inside parentheses stays; a tab outside ends the rule',
    ).toEqual(['Bash(echo a,b)', 'WebFetch(domain:example.com)']);
    expect(
      splitRuleList('Bash(echo (a b) c) Read'),
      'splitRuleList step 1: nested parentheses: depth goes back to 0 only after the last )',
    ).toEqual(['Bash(echo (a b) c)', 'Read']);
  });

  test('empty pieces are dropped, the last rule counts, and a stray ) does not swallow the rest', () => {
    expect(
      splitRuleList(' , Read ,,  Edit , '),
      'splitRuleList step 2: no empty rules from repeated separators',
    ).toEqual(['Read', 'Edit']);
    expect(splitRuleList('Read'), 'splitRuleList step 4: the rule still open at the end counts').toEqual(['Read']);
    expect(splitRuleList(''), 'splitRuleList: nothing in, no rules out').toEqual([]);
    expect(
      splitRuleList('Read) Edit Bash(x y)'),
      'splitRuleList step 1: depth never goes below 0, so later spaces still separate',
    ).toEqual(['Read)', 'Edit', 'Bash(x y)']);
  });
});

describe('readValue (src/capstone/flags.ts)', () => {
  test('text is returned as given; a missing or empty value names the option and what it takes', () => {
    expect(readValue('--model', NAME, 'claude-sonnet-4-5'), 'readValue step 4: text as it is').toBe(
      'claude-sonnet-4-5',
    );
    expect(readValue('--model', NAME, ' spaced '), 'readValue step 4: text is not trimmed').toBe(' spaced ');
    for (const raw of [undefined, '', '   ']) {
      const error = usageError(
        () => readValue('--model', NAME, raw),
        `readValue step 1: --model with ${JSON.stringify(raw)}`,
      );
      expect(error.message, 'readValue step 1: the message names the option').toContain('--model');
      expect(error.message, 'readValue step 1: and says it needs a value, with the placeholder').toMatch(
        /needs a value.*NAME/,
      );
    }
  });

  test('a choice must be one of the choices; the error lists them all and quotes the value given', () => {
    expect(readValue('--output-format', FORMAT, 'stream-json'), 'readValue step 2: a listed choice is returned').toBe(
      'stream-json',
    );
    const error = usageError(() => readValue('--output-format', FORMAT, 'JSON'), 'readValue step 2: JSON is not json');
    for (const part of ['--output-format', 'text', 'json', 'stream-json', '"JSON"']) {
      expect(error.message, `readValue step 2: the message holds ${part}`).toContain(part);
    }
    expect(
      error.message,
      'readValue step 2: the choices listed one by one, joined with ", " (`one of text, json, stream-json`)',
    ).toContain('text, json, stream-json');
  });

  test('a number is a whole number of at least the least, returned as a number', () => {
    expect(readValue('--max-turns', TURNS, '12'), 'readValue step 3: "12" is the number 12').toBe(12);
    expect(readValue('--max-turns', TURNS, '1'), 'readValue step 3: the least itself is allowed').toBe(1);
    expect(readValue('--subagent-depth', DEPTH, '0'), 'readValue step 3: 0 is fine when the least is 0').toBe(0);
    for (const raw of ['0', '-1', '2.5', '1e3', '0x10', ' 3', 'three', '12abc', '99999999999999999999']) {
      const error = usageError(
        () => readValue('--max-turns', TURNS, raw),
        `readValue step 3: "${raw}" is not a whole number of at least 1`,
      );
      expect(error.message, 'readValue step 3: the message names the option').toContain('--max-turns');
      expect(error.message, 'readValue step 3: says what it takes').toMatch(/whole number of at least 1/);
      expect(error.message, 'readValue step 3: and quotes the value given').toContain(`"${raw}"`);
    }
  });
});

describe('checkOptions (src/capstone/flags.ts)', () => {
  const options = (change: Partial<CliOptions>): CliOptions => ({ ...defaultOptions(), ...change });

  test('--resume and --continue together are refused, naming both', () => {
    const error = usageError(
      () => checkOptions(options({ resume: 'abc', continue: true })),
      'checkOptions step 2: --resume with --continue',
    );
    expect(error.message, 'checkOptions step 2: names --resume').toContain('--resume');
    expect(error.message, 'checkOptions step 2: names --continue').toContain('--continue');
    noError(() => checkOptions(options({ resume: 'abc' })), 'checkOptions step 2: --resume alone is fine');
    noError(() => checkOptions(options({ continue: true })), 'checkOptions step 2: --continue alone is fine');
  });

  test('--no-session with --resume or --continue is refused, naming both options', () => {
    const resumed = usageError(
      () => checkOptions(options({ noSession: true, resume: 'abc' })),
      'checkOptions step 3: --no-session with --resume',
    );
    expect(resumed.message, 'checkOptions step 3: names --no-session and --resume').toMatch(
      /--no-session[\s\S]*--resume|--resume[\s\S]*--no-session/,
    );
    const continued = usageError(
      () => checkOptions(options({ noSession: true, continue: true })),
      'checkOptions step 3: --no-session with --continue',
    );
    expect(continued.message, 'checkOptions step 3: names --no-session and --continue').toMatch(
      /--no-session[\s\S]*--continue|--continue[\s\S]*--no-session/,
    );
    noError(
      () => checkOptions(options({ noSession: true, print: true })),
      'checkOptions step 3: --no-session alone is fine',
    );
  });

  test('json and stream-json output need -p; text does not', () => {
    for (const format of ['json', 'stream-json'] as const) {
      const error = usageError(
        () => checkOptions(options({ outputFormat: format })),
        `checkOptions step 4: --output-format ${format} without -p`,
      );
      expect(error.message, 'checkOptions step 4: names --output-format').toContain('--output-format');
      expect(error.message, 'checkOptions step 4: names the format').toContain(format);
      expect(error.message, 'checkOptions step 4: and says it needs -p').toContain('-p');
      noError(
        () => checkOptions(options({ outputFormat: format, print: true })),
        `checkOptions step 4: ${format} with -p is fine`,
      );
    }
    noError(() => checkOptions(options({})), 'checkOptions step 4: text output without -p is fine');
  });

  test('--help and --version are answered whatever else was given', () => {
    const tangled = { resume: 'abc', continue: true, noSession: true, outputFormat: 'json' as const };
    noError(
      () => checkOptions(options({ ...tangled, help: true })),
      'checkOptions step 1: with --help, return before any check',
    );
    noError(
      () => checkOptions(options({ ...tangled, version: true })),
      'checkOptions step 1: with --version, return before any check',
    );
  });
});

describe('parseFlags (src/capstone/flags.ts)', () => {
  test('nothing given: the defaults, a new object each time', () => {
    const first = parseFlags([]);
    expect(first, 'parseFlags step 1: start from defaultOptions()').toEqual(defaultOptions());
    first.allowedTools.push('Read');
    expect(
      parseFlags([]).allowedTools,
      'parseFlags step 1: a new defaultOptions() for every call, its lists empty',
    ).toEqual([]);
    expect(first.prompt, 'parseFlags step 8: no positional words, no prompt').toBeUndefined();
  });

  test('-p is a flag; every positional word, wherever it stands, is part of the prompt', () => {
    expect(parseFlags(['-p', 'what is in this folder?']), 'parseFlags steps 5 and 8: -p "text" as before').toEqual({
      ...defaultOptions(),
      print: true,
      prompt: 'what is in this folder?',
    });
    expect(
      parseFlags(['explain', '--print', 'this', 'file']).prompt,
      'parseFlags step 8: the words around the flag, joined by one space',
    ).toBe('explain this file');
    expect(parseFlags(['--prompt', 'hi']).print, "parseFlags step 5: --prompt, the kit's old spelling, is -p too").toBe(
      true,
    );
    const interactive = parseFlags(['fix', 'the', 'tests']);
    expect(
      [interactive.print, interactive.prompt],
      'parseFlags step 7: words without -p are a first prompt for an interactive session',
    ).toEqual([false, 'fix the tests']);
    expect(parseFlags(['-']).prompt, 'parseFlags step 4: "-" alone is a word, not an option').toBe('-');
  });

  test('every option, by its short and its long name, lands in its field with its type', () => {
    const argv = [
      '-p',
      '--output-format',
      'json',
      '--model',
      'claude-haiku-4-5',
      '--provider',
      'offline',
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Read',
      '--disallowedTools',
      'Bash(rm:*)',
      '--max-turns',
      '7',
      '-r',
      'abc123',
      '--mcp-config',
      'a.json',
      '--system-prompt',
      'Be brief.',
      '--append-system-prompt',
      'Use TypeScript.',
      '--compact-at',
      '50000',
      '--max-parallel',
      '2',
      '--output-budget',
      '0',
      '--max-retries',
      '3',
      '--max-wait',
      '30',
      '--subagent-depth',
      '2',
      '--cwd',
      'sub',
      '--starter',
      '--list',
      'go',
    ];
    const expected: CliOptions = {
      ...defaultOptions(),
      print: true,
      prompt: 'go',
      outputFormat: 'json',
      model: 'claude-haiku-4-5',
      provider: 'offline',
      permissionMode: 'acceptEdits',
      allowedTools: ['Read'],
      disallowedTools: ['Bash(rm:*)'],
      maxTurns: 7,
      resume: 'abc123',
      mcpConfig: ['a.json'],
      systemPrompt: 'Be brief.',
      appendSystemPrompt: 'Use TypeScript.',
      compactAt: 50000,
      maxParallel: 2,
      outputBudget: 0,
      maxRetries: 3,
      maxWait: 30,
      subagentDepth: 2,
      cwd: 'sub',
      starter: true,
      list: true,
    };
    expect(
      parseFlags(argv),
      'parseFlags step 6: each value read with readValue (numbers as numbers) and set on its key',
    ).toEqual(expected);
    const short = parseFlags(['-c', '--no-session', '-h', '-v']);
    expect(
      [short.continue, short.noSession, short.help, short.version],
      'parseFlags step 5: -c, --no-session, -h and -v are flags',
    ).toEqual([true, true, true, true]);
    expect(
      parseFlags(['--starter', '--solution']).starter,
      'parseFlags step 5: --solution sets starter back to false (spec.sets)',
    ).toBe(false);
    expect(
      parseFlags(['--continue', '--allowed-tools', 'Edit']),
      "parseFlags step 4: Claude Code's other spellings (--continue, --allowed-tools)",
    ).toEqual({ ...defaultOptions(), continue: true, allowedTools: ['Edit'] });
  });

  test('--flag=value works as --flag value, split at the first =', () => {
    expect(parseFlags(['--model=sonnet']).model, 'parseFlags step 3: --model=sonnet').toBe('sonnet');
    expect(
      parseFlags(['--append-system-prompt=a=b', '--max-turns=3']),
      'parseFlags step 3: the value is everything after the first =',
    ).toEqual({ ...defaultOptions(), appendSystemPrompt: 'a=b', maxTurns: 3 });
    expect(
      parseFlags(['-p', '--output-format=stream-json', 'hi']).outputFormat,
      'parseFlags step 3: --output-format=stream-json',
    ).toBe('stream-json');
    expect(
      parseFlags(['--allowedTools=Bash(a=b) Read']).allowedTools,
      'parseFlags step 3: an = inside the value stays in it',
    ).toEqual(['Bash(a=b)', 'Read']);
    const flag = usageError(() => parseFlags(['--print=yes']), 'parseFlags step 5: a flag given a value');
    expect(flag.message, 'parseFlags step 5: the message names the flag').toContain('--print');
    const empty = usageError(() => parseFlags(['--model=']), 'parseFlags step 6: --model= gives an empty value');
    expect(empty.message, 'parseFlags step 6: an empty value after = is read (and refused) by readValue').toContain(
      '--model',
    );
  });

  test('a value is the next word, whatever it looks like; a missing one is an error naming the option', () => {
    expect(
      parseFlags(['--append-system-prompt', '-v means verbose']),
      'parseFlags step 6: the next word is the value even when it starts with -',
    ).toEqual({ ...defaultOptions(), appendSystemPrompt: '-v means verbose' });
    expect(
      parseFlags(['--model', 'a', 'fix', 'it']),
      'parseFlags step 6: only one word is taken; the rest is the prompt',
    ).toEqual({ ...defaultOptions(), model: 'a', prompt: 'fix it' });
    const missing = usageError(
      () => parseFlags(['-p', 'hi', '--model']),
      'parseFlags step 6: --model as the last word',
    );
    expect(missing.message, 'parseFlags step 6: a missing value is reported for the option').toMatch(
      /--model needs a value/,
    );
    const bad = usageError(() => parseFlags(['--permission-mode', 'yolo']), 'parseFlags step 6: a wrong choice');
    expect(bad.message, 'parseFlags step 6: readValue lists the modes').toContain('bypassPermissions');
  });

  test('repeatable options collect every value in order; the others keep the last one', () => {
    const options = parseFlags([
      '--allowedTools',
      'Bash(npm test:*) Edit(src/**)',
      '--allowedTools',
      'Read,Grep',
      '--mcp-config',
      'a.json',
      '--mcp-config',
      'b.json',
    ]);
    expect(
      options.allowedTools,
      'parseFlags step 6: each value split with splitRuleList, every rule kept in order',
    ).toEqual(['Bash(npm test:*)', 'Edit(src/**)', 'Read', 'Grep']);
    expect(options.mcpConfig, 'parseFlags step 6: --mcp-config given twice keeps both files, not split').toEqual([
      'a.json',
      'b.json',
    ]);
    expect(
      parseFlags(['--mcp-config', 'my servers.json']).mcpConfig,
      'parseFlags step 6: only rules are split; a file name with a space stays whole',
    ).toEqual(['my servers.json']);
    expect(
      parseFlags(['--disallowedTools', 'Bash(rm:*) WebFetch']).disallowedTools,
      'parseFlags step 6: --disallowedTools is split too',
    ).toEqual(['Bash(rm:*)', 'WebFetch']);
    expect(
      parseFlags(['--model', 'a', '--model', 'b']).model,
      'parseFlags step 6: a single-valued option given twice: the later one wins',
    ).toBe('b');
  });

  test('-- ends the options: every later word is part of the prompt', () => {
    expect(
      parseFlags(['-p', '--', '--help', 'me', 'with', '-v']),
      'parseFlags step 2: after --, --help and -v are words of the prompt',
    ).toEqual({ ...defaultOptions(), print: true, prompt: '--help me with -v' });
    expect(parseFlags(['--', '--', 'x']).prompt, 'parseFlags step 2: only the first -- is dropped').toBe('-- x');
  });

  test('an unknown option is a UsageError naming it', () => {
    for (const argv of [['--verbose'], ['-x'], ['--nope=1'], ['-pc']]) {
      const error = usageError(() => parseFlags(argv), `parseFlags step 4: ${argv[0]} is not an option`);
      expect(
        error.message,
        'parseFlags step 4: the message says the option is unknown and names it (before any =)',
      ).toContain(`unknown option "${argv[0]!.split('=')[0]}"`);
      expect(error.message, 'parseFlags step 4: and points at --help').toContain('--help');
    }
    const short = usageError(
      () => parseFlags(['-r=abc']),
      'parseFlags step 3: only a word starting with -- is split at =',
    );
    expect(short.message, 'parseFlags step 3: -r=abc is looked up whole').toContain('unknown option "-r=abc"');
  });

  test('the combination is checked after reading, and the help text lists exactly the options parseFlags takes', () => {
    const both = usageError(
      () => parseFlags(['-c', '-r', 'abc']),
      'parseFlags step 8: -c with -r goes through checkOptions',
    );
    expect(both.message, 'parseFlags step 8: the refusal of checkOptions').toContain('--continue');
    usageError(
      () => parseFlags(['--output-format', 'json', 'hi']),
      'parseFlags step 8: json output without -p goes through checkOptions',
    );
    expect(
      parseFlags(['--help', '-c', '-r', 'abc']).help,
      'parseFlags step 8: --help wins over a bad combination',
    ).toBe(true);
    const names = OPTIONS.flatMap((spec) => spec.names);
    for (const name of names) {
      expect(USAGE, `USAGE lists ${name}`).toContain(name);
      const spec = OPTIONS.find((s) => s.names.includes(name))!;
      const argv = spec.value
        ? [name, spec.value.kind === 'choice' ? spec.value.choices.at(-1)! : spec.value.kind === 'number' ? '3' : 'x']
        : [name];
      if (spec.key === 'outputFormat') argv.push('-p');
      noError(() => parseFlags(argv), `parseFlags step 4: every name in USAGE is an option (${argv.join(' ')})`);
    }
    expect(new Set(names).size, 'OPTIONS: no name is given to two options').toBe(names.length);
  });
});
