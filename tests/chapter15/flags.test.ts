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
      'splitRuleList: the space inside Bash(npm test:*) belongs to the rule (guided step 3)',
    ).toEqual(['Bash(npm test:*)', 'Edit(src/**)']);
    expect(
      splitRuleList('Read,Edit'),
      'splitRuleList: a comma outside parentheses ends a rule (guided step 2)',
    ).toEqual(['Read', 'Edit']);
    expect(
      splitRuleList('Bash(git log:*),Bash(git diff:*)'),
      'splitRuleList: a comma after a closing parenthesis ends a rule (guided step 2)',
    ).toEqual(['Bash(git log:*)', 'Bash(git diff:*)']);
    expect(
      splitRuleList('Bash(echo a,b)\tWebFetch(domain:example.com)'),
      'splitRuleList: a comma inside parentheses stays; a tab outside ends the rule (guided step 3)',
    ).toEqual(['Bash(echo a,b)', 'WebFetch(domain:example.com)']);
    expect(
      splitRuleList('Bash(echo (a b) c) Read'),
      'splitRuleList: nested parentheses: depth goes back to 0 only after the last ) (guided step 1)',
    ).toEqual(['Bash(echo (a b) c)', 'Read']);
  });

  test('empty pieces are dropped, the last rule counts, and a stray ) does not swallow the rest', () => {
    expect(
      splitRuleList(' , Read ,,  Edit , '),
      'splitRuleList: no empty rules from repeated separators (guided step 2)',
    ).toEqual(['Read', 'Edit']);
    expect(splitRuleList('Read'), 'splitRuleList: the rule still open at the end counts (guided step 4)').toEqual([
      'Read',
    ]);
    expect(splitRuleList(''), 'splitRuleList: nothing in, no rules out').toEqual([]);
    expect(
      splitRuleList('Read) Edit Bash(x y)'),
      'splitRuleList: depth never goes below 0, so later spaces still separate (guided step 1)',
    ).toEqual(['Read)', 'Edit', 'Bash(x y)']);
  });
});

describe('readValue (src/capstone/flags.ts)', () => {
  test('text is returned as given; a missing or empty value names the option and what it takes', () => {
    expect(readValue('--model', NAME, 'claude-sonnet-4-5'), 'readValue: text as it is (guided step 4)').toBe(
      'claude-sonnet-4-5',
    );
    expect(readValue('--model', NAME, ' spaced '), 'readValue: text is not trimmed (guided step 4)').toBe(' spaced ');
    for (const raw of [undefined, '', '   ']) {
      const error = usageError(
        () => readValue('--model', NAME, raw),
        `readValue: --model with ${JSON.stringify(raw)} (guided step 1)`,
      );
      expect(error.message, 'readValue: the message names the option (guided step 1)').toContain('--model');
      expect(error.message, 'readValue: and says it needs a value, with the placeholder (guided step 1)').toMatch(
        /needs a value.*NAME/,
      );
    }
  });

  test('a choice must be one of the choices; the error lists them all and quotes the value given', () => {
    expect(
      readValue('--output-format', FORMAT, 'stream-json'),
      'readValue: a listed choice is returned (guided step 2)',
    ).toBe('stream-json');
    const error = usageError(
      () => readValue('--output-format', FORMAT, 'JSON'),
      'readValue: JSON is not json (guided step 2)',
    );
    for (const part of ['--output-format', 'text', 'json', 'stream-json', '"JSON"']) {
      expect(error.message, `readValue: the message holds ${part} (guided step 2)`).toContain(part);
    }
    expect(
      error.message,
      'readValue: the choices listed one by one, joined with ", " (`one of text, json, stream-json`) (guided step 2)',
    ).toContain('text, json, stream-json');
  });

  test('a number is a whole number of at least the least, returned as a number', () => {
    expect(readValue('--max-turns', TURNS, '12'), 'readValue: "12" is the number 12 (guided step 3)').toBe(12);
    expect(readValue('--max-turns', TURNS, '1'), 'readValue: the least itself is allowed (guided step 3)').toBe(1);
    expect(readValue('--subagent-depth', DEPTH, '0'), 'readValue: 0 is fine when the least is 0 (guided step 3)').toBe(
      0,
    );
    for (const raw of ['0', '-1', '2.5', '1e3', '0x10', ' 3', 'three', '12abc', '99999999999999999999']) {
      const error = usageError(
        () => readValue('--max-turns', TURNS, raw),
        `readValue: "${raw}" is not a whole number of at least 1 (guided step 3)`,
      );
      expect(error.message, 'readValue: the message names the option (guided step 3)').toContain('--max-turns');
      expect(error.message, 'readValue: says what it takes (guided step 3)').toMatch(/whole number of at least 1/);
      expect(error.message, 'readValue: and quotes the value given (guided step 3)').toContain(`"${raw}"`);
    }
  });
});

describe('checkOptions (src/capstone/flags.ts)', () => {
  const options = (change: Partial<CliOptions>): CliOptions => ({ ...defaultOptions(), ...change });

  test('--resume and --continue together are refused, naming both', () => {
    const error = usageError(
      () => checkOptions(options({ resume: 'abc', continue: true })),
      'checkOptions: --resume with --continue (guided step 2)',
    );
    expect(error.message, 'checkOptions: names --resume (guided step 2)').toContain('--resume');
    expect(error.message, 'checkOptions: names --continue (guided step 2)').toContain('--continue');
    noError(() => checkOptions(options({ resume: 'abc' })), 'checkOptions: --resume alone is fine (guided step 2)');
    noError(() => checkOptions(options({ continue: true })), 'checkOptions: --continue alone is fine (guided step 2)');
  });

  test('--no-session with --resume or --continue is refused, naming both options', () => {
    const resumed = usageError(
      () => checkOptions(options({ noSession: true, resume: 'abc' })),
      'checkOptions: --no-session with --resume (guided step 3)',
    );
    expect(resumed.message, 'checkOptions: names --no-session and --resume (guided step 3)').toMatch(
      /--no-session[\s\S]*--resume|--resume[\s\S]*--no-session/,
    );
    const continued = usageError(
      () => checkOptions(options({ noSession: true, continue: true })),
      'checkOptions: --no-session with --continue (guided step 3)',
    );
    expect(continued.message, 'checkOptions: names --no-session and --continue (guided step 3)').toMatch(
      /--no-session[\s\S]*--continue|--continue[\s\S]*--no-session/,
    );
    noError(
      () => checkOptions(options({ noSession: true, print: true })),
      'checkOptions: --no-session alone is fine (guided step 3)',
    );
  });

  test('--fork-session needs --resume or --continue: alone it is refused, naming the three', () => {
    const alone = usageError(
      () => checkOptions(options({ forkSession: true })),
      'checkOptions: --fork-session without --resume or --continue (guided step 4)',
    );
    for (const name of ['--fork-session', '--resume', '--continue'])
      expect(alone.message, `checkOptions: the refusal names ${name} (guided step 4)`).toContain(name);
    noError(
      () => checkOptions(options({ forkSession: true, resume: 'abc' })),
      'checkOptions: --fork-session with --resume is fine (guided step 4)',
    );
    noError(
      () => checkOptions(options({ forkSession: true, continue: true })),
      'checkOptions: --fork-session with --continue is fine (guided step 4)',
    );
  });

  test('json and stream-json output need -p; text does not', () => {
    for (const format of ['json', 'stream-json'] as const) {
      const error = usageError(
        () => checkOptions(options({ outputFormat: format })),
        `checkOptions: --output-format ${format} without -p (guided step 5)`,
      );
      expect(error.message, 'checkOptions: names --output-format (guided step 5)').toContain('--output-format');
      expect(error.message, 'checkOptions: names the format (guided step 5)').toContain(format);
      expect(error.message, 'checkOptions: and says it needs -p (guided step 5)').toContain('-p');
      noError(
        () => checkOptions(options({ outputFormat: format, print: true })),
        `checkOptions: ${format} with -p is fine (guided step 5)`,
      );
    }
    noError(() => checkOptions(options({})), 'checkOptions: text output without -p is fine (guided step 5)');
  });

  test('--help and --version are answered whatever else was given', () => {
    const tangled = { resume: 'abc', continue: true, noSession: true, outputFormat: 'json' as const };
    noError(
      () => checkOptions(options({ ...tangled, help: true })),
      'checkOptions: with --help, return before any check (guided step 1)',
    );
    noError(
      () => checkOptions(options({ ...tangled, version: true })),
      'checkOptions: with --version, return before any check (guided step 1)',
    );
  });
});

describe('parseFlags (src/capstone/flags.ts)', () => {
  test('nothing given: the defaults, a new object each time', () => {
    const first = parseFlags([]);
    expect(first, 'parseFlags: start from defaultOptions() (guided step 1)').toEqual(defaultOptions());
    first.allowedTools.push('Read');
    expect(
      parseFlags([]).allowedTools,
      'parseFlags: a new defaultOptions() for every call, its lists empty (guided step 1)',
    ).toEqual([]);
    expect(first.prompt, 'parseFlags: no positional words, no prompt (guided step 8)').toBeUndefined();
  });

  test('-p is a flag; every positional word, wherever it stands, is part of the prompt', () => {
    expect(
      parseFlags(['-p', 'what is in this folder?']),
      'parseFlags: -p "text" as before (guided steps 5 and 8)',
    ).toEqual({
      ...defaultOptions(),
      print: true,
      prompt: 'what is in this folder?',
    });
    expect(
      parseFlags(['explain', '--print', 'this', 'file']).prompt,
      'parseFlags: the words around the flag, joined by one space (guided step 8)',
    ).toBe('explain this file');
    expect(
      parseFlags(['--prompt', 'hi']).print,
      "parseFlags: --prompt, the kit's old spelling, is -p too (guided step 5)",
    ).toBe(true);
    const interactive = parseFlags(['fix', 'the', 'tests']);
    expect(
      [interactive.print, interactive.prompt],
      'parseFlags: words without -p are a first prompt for an interactive session (guided step 7)',
    ).toEqual([false, 'fix the tests']);
    expect(parseFlags(['-']).prompt, 'parseFlags: "-" alone is a word, not an option (guided step 4)').toBe('-');
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
      'parseFlags: each value read with readValue (numbers as numbers) and set on its key (guided step 6)',
    ).toEqual(expected);
    const short = parseFlags(['-c', '--no-session', '-h', '-v']);
    expect(
      [short.continue, short.noSession, short.help, short.version],
      'parseFlags: -c, --no-session, -h and -v are flags (guided step 5)',
    ).toEqual([true, true, true, true]);
    expect(
      parseFlags(['--starter', '--solution']).starter,
      'parseFlags: --solution sets starter back to false (spec.sets) (guided step 5)',
    ).toBe(false);
    expect(
      parseFlags(['--continue', '--allowed-tools', 'Edit']),
      "parseFlags: Claude Code's other spellings (--continue, --allowed-tools) (guided step 4)",
    ).toEqual({ ...defaultOptions(), continue: true, allowedTools: ['Edit'] });
  });

  test('--flag=value works as --flag value, split at the first =', () => {
    expect(parseFlags(['--model=sonnet']).model, 'parseFlags: --model=sonnet (guided step 3)').toBe('sonnet');
    expect(
      parseFlags(['--append-system-prompt=a=b', '--max-turns=3']),
      'parseFlags: the value is everything after the first = (guided step 3)',
    ).toEqual({ ...defaultOptions(), appendSystemPrompt: 'a=b', maxTurns: 3 });
    expect(
      parseFlags(['-p', '--output-format=stream-json', 'hi']).outputFormat,
      'parseFlags: --output-format=stream-json (guided step 3)',
    ).toBe('stream-json');
    expect(
      parseFlags(['--allowedTools=Bash(a=b) Read']).allowedTools,
      'parseFlags: an = inside the value stays in it (guided step 3)',
    ).toEqual(['Bash(a=b)', 'Read']);
    const flag = usageError(() => parseFlags(['--print=yes']), 'parseFlags: a flag given a value (guided step 5)');
    expect(flag.message, 'parseFlags: the message names the flag (guided step 5)').toContain('--print');
    const empty = usageError(
      () => parseFlags(['--model=']),
      'parseFlags: --model= gives an empty value (guided step 6)',
    );
    expect(
      empty.message,
      'parseFlags: an empty value after = is read (and refused) by readValue (guided step 6)',
    ).toContain('--model');
  });

  test('a value is the next word, whatever it looks like; a missing one is an error naming the option', () => {
    expect(
      parseFlags(['--append-system-prompt', '-v means verbose']),
      'parseFlags: the next word is the value even when it starts with - (guided step 6)',
    ).toEqual({ ...defaultOptions(), appendSystemPrompt: '-v means verbose' });
    expect(
      parseFlags(['--model', 'a', 'fix', 'it']),
      'parseFlags: only one word is taken; the rest is the prompt (guided step 6)',
    ).toEqual({ ...defaultOptions(), model: 'a', prompt: 'fix it' });
    const missing = usageError(
      () => parseFlags(['-p', 'hi', '--model']),
      'parseFlags: --model as the last word (guided step 6)',
    );
    expect(missing.message, 'parseFlags: a missing value is reported for the option (guided step 6)').toMatch(
      /--model needs a value/,
    );
    const bad = usageError(
      () => parseFlags(['--permission-mode', 'yolo']),
      'parseFlags: a wrong choice (guided step 6)',
    );
    expect(bad.message, 'parseFlags: readValue lists the modes (guided step 6)').toContain('bypassPermissions');
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
      'parseFlags: each value split with splitRuleList, every rule kept in order (guided step 6)',
    ).toEqual(['Bash(npm test:*)', 'Edit(src/**)', 'Read', 'Grep']);
    expect(
      options.mcpConfig,
      'parseFlags: --mcp-config given twice keeps both files, not split (guided step 6)',
    ).toEqual(['a.json', 'b.json']);
    expect(
      parseFlags(['--mcp-config', 'my servers.json']).mcpConfig,
      'parseFlags: only rules are split; a file name with a space stays whole (guided step 6)',
    ).toEqual(['my servers.json']);
    expect(
      parseFlags(['--disallowedTools', 'Bash(rm:*) WebFetch']).disallowedTools,
      'parseFlags: --disallowedTools is split too (guided step 6)',
    ).toEqual(['Bash(rm:*)', 'WebFetch']);
    expect(
      parseFlags(['--model', 'a', '--model', 'b']).model,
      'parseFlags: a single-valued option given twice: the later one wins (guided step 6)',
    ).toBe('b');
  });

  test('-- ends the options: every later word is part of the prompt', () => {
    expect(
      parseFlags(['-p', '--', '--help', 'me', 'with', '-v']),
      'parseFlags: after --, --help and -v are words of the prompt (guided step 2)',
    ).toEqual({ ...defaultOptions(), print: true, prompt: '--help me with -v' });
    expect(parseFlags(['--', '--', 'x']).prompt, 'parseFlags: only the first -- is dropped (guided step 2)').toBe(
      '-- x',
    );
  });

  test('an unknown option is a UsageError naming it', () => {
    for (const argv of [['--verbose'], ['-x'], ['--nope=1'], ['-pc']]) {
      const error = usageError(() => parseFlags(argv), `parseFlags: ${argv[0]} is not an option (guided step 4)`);
      expect(
        error.message,
        'parseFlags: the message says the option is unknown and names it (before any =) (guided step 4)',
      ).toContain(`unknown option "${argv[0]!.split('=')[0]}"`);
      expect(error.message, 'parseFlags: and points at --help (guided step 4)').toContain('--help');
    }
    const short = usageError(
      () => parseFlags(['-r=abc']),
      'parseFlags: only a word starting with -- is split at = (guided step 3)',
    );
    expect(short.message, 'parseFlags: -r=abc is looked up whole (guided step 3)').toContain('unknown option "-r=abc"');
  });

  test('the combination is checked after reading, and the help text lists exactly the options parseFlags takes', () => {
    const both = usageError(
      () => parseFlags(['-c', '-r', 'abc']),
      'parseFlags: -c with -r goes through checkOptions (guided step 8)',
    );
    expect(both.message, 'parseFlags: the refusal of checkOptions (guided step 8)').toContain('--continue');
    usageError(
      () => parseFlags(['--output-format', 'json', 'hi']),
      'parseFlags: json output without -p goes through checkOptions (guided step 8)',
    );
    expect(
      parseFlags(['--help', '-c', '-r', 'abc']).help,
      'parseFlags: --help wins over a bad combination (guided step 8)',
    ).toBe(true);
    const names = OPTIONS.flatMap((spec) => spec.names);
    for (const name of names) {
      expect(USAGE, `USAGE lists ${name}`).toContain(name);
      const spec = OPTIONS.find((s) => s.names.includes(name))!;
      const argv = spec.value
        ? [name, spec.value.kind === 'choice' ? spec.value.choices.at(-1)! : spec.value.kind === 'number' ? '3' : 'x']
        : [name];
      if (spec.key === 'outputFormat') argv.push('-p');
      if (spec.key === 'forkSession') argv.push('-c');
      noError(
        () => parseFlags(argv),
        `parseFlags: every name in USAGE is an option (${argv.join(' ')}) (guided step 4)`,
      );
    }
    expect(new Set(names).size, 'OPTIONS: no name is given to two options').toBe(names.length);
  });
});
