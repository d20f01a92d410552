import * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, test } from 'vitest';
import { assistantText } from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import { rejection, settles } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { brief, editor, testFactory } from './fixtures.js';

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const e of open.splice(0)) e.close();
});
const errorOf = async (promise: Promise<unknown>, message: string) =>
  (await rejection(promise, message)) as { code?: number; message?: string };
const MODELS = { model: 'big-1', smallFastModel: 'small-1', choices: ['big-2', 'small-2'] };

function connect(factory: ReturnType<typeof testFactory>) {
  const e = editor({ openSession: factory.openSession });
  open.push(e);
  return e;
}
/** Each option as `id=currentValue`. */
const values = (options: readonly acp.SessionConfigOption[] | null | undefined) =>
  (options ?? []).map((option) => `${option.id}=${String(option.currentValue)}`);
/** Whether `word` appears in `text` on its own: not glued to a letter, digit, "_" or "-" on either side. */
const standsAlone = (text: string, word: string) =>
  new RegExp(`(^|[^\\w-])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w-])`).test(text);
const setOption = (e: ReturnType<typeof connect>, sessionId: string, configId: string, value: string) =>
  e.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId, value });

describe('AcpServer.setConfigOption (src/acp/session-selectors.ts)', () => {
  test('session/new advertises the mode, the model and the small fast model as selectors', async () => {
    const e = connect(testFactory({ models: MODELS }));
    const session = await e.open(tempWorkspace().root);
    expect(
      values(session.configOptions),
      'AcpServer.newSession: configOptions (this.configOptionsOf(handle)) with the current values (guided step 5)',
    ).toEqual(['mode=default', 'model=big-1', 'small_fast_model=small-1']);
    const model = session.configOptions!.find((option) => option.id === 'model')!;
    expect(
      model,
      'AcpServer.newSession: the model option is a select of the category model (guided step 5)',
    ).toMatchObject({
      type: 'select',
      category: 'model',
    });
  });

  test('session/load and session/resume advertise them too', async () => {
    const e = connect(testFactory({ models: MODELS, saved: new Map([['old', []]]) }));
    const cwd = tempWorkspace().root;
    await e.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
    const loaded = await e.agent.request(acp.methods.agent.session.load, { sessionId: 'old', cwd, mcpServers: [] });
    expect(
      values(loaded.configOptions),
      'AcpServer.loadSession: configOptions as newSession gives them (guided step 5)',
    ).toEqual(['mode=default', 'model=big-1', 'small_fast_model=small-1']);
    const resumed = await e.agent.request(acp.methods.agent.session.resume, { sessionId: 'old', cwd });
    expect(
      values(resumed.configOptions),
      'AcpServer.loadSession: session/resume answers with them too (guided step 5)',
    ).toEqual(['mode=default', 'model=big-1', 'small_fast_model=small-1']);
  });

  test("picking a model answers with every option's value, and the next prompt is sent to that model", async () => {
    const factory = testFactory({ models: MODELS, script: [assistantText('one'), assistantText('two')] });
    const e = connect(factory);
    const { sessionId } = await e.open(tempWorkspace().root);
    await e.prompt(sessionId, 'First');
    const answer = await settles(
      setOption(e, sessionId, 'model', 'big-2'),
      'AcpServer.setConfigOption: a known model must be accepted',
    );
    expect(
      values(answer.configOptions),
      'AcpServer.setConfigOption: every option with its value now (guided step 5)',
    ).toEqual(['mode=default', 'model=big-2', 'small_fast_model=small-1']);
    const small = await setOption(e, sessionId, 'small_fast_model', 'small-2');
    expect(
      values(small.configOptions),
      'AcpServer.setConfigOption: the small fast model is its own option (guided step 3)',
    ).toEqual(['mode=default', 'model=big-2', 'small_fast_model=small-2']);
    await e.prompt(sessionId, 'Second');
    const requests = (factory.providers[0] as MockProvider).requests;
    expect(
      requests.map((request) => request.model),
      'AcpServer.setConfigOption: handle.models.set(...) switches the model the session sends (guided step 3)',
    ).toEqual(['big-1', 'big-2']);
  });

  test('the mode option switches the gate, as session/set_mode does, and sends no update', async () => {
    const e = connect(testFactory({ models: MODELS }));
    const { sessionId } = await e.open(tempWorkspace().root);
    const answer = await setOption(e, sessionId, 'mode', 'plan');
    expect(
      values(answer.configOptions)[0],
      'AcpServer.setConfigOption: the mode option now says plan (guided step 2)',
    ).toBe('mode=plan');
    expect(
      e.server.sessions.get(sessionId)!.handle.modes.mode,
      "AcpServer.setConfigOption: handle.modes.setMode: the gate's mode (guided step 2)",
    ).toBe('plan');
    expect(
      brief(e.of(sessionId)),
      'AcpServer.setConfigOption: the client made the change, so nothing is sent back as an update',
    ).toEqual([]);
  });

  test('an unknown option, model or mode, or a value that is not a string, is invalid params and changes nothing', async () => {
    const e = connect(testFactory({ models: MODELS }));
    const { sessionId } = await e.open(tempWorkspace().root);
    const cases: Array<[string, unknown, string]> = [
      ['temperature', '0.2', 'AcpServer.setConfigOption: an option there is not (guided step 4)'],
      ['model', 'gpt-unknown', 'AcpServer.setConfigOption: a model that is not one of the choices (guided step 3)'],
      [
        'small_fast_model',
        'mode',
        'AcpServer.setConfigOption: a small fast model that is not one of the choices (guided step 3)',
      ],
      ['mode', 'yolo', 'AcpServer.setConfigOption: a mode there is not (guided step 2)'],
      ['mode', true, 'AcpServer.setConfigOption: a boolean value (guided step 1)'],
    ];
    for (const [configId, value, where] of cases) {
      const params =
        typeof value === 'boolean'
          ? { sessionId, configId, type: 'boolean' as const, value }
          : { sessionId, configId, value: value as string };
      const error = await errorOf(
        e.agent.request(acp.methods.agent.session.setConfigOption, params),
        `${where} must be refused`,
      );
      expect(error.code, `${where}: invalid params (-32602)`).toBe(-32602);
      if (typeof value === 'string' && configId !== 'small_fast_model')
        expect(
          error.message,
          `${where}: the message names ${JSON.stringify(value === '0.2' ? configId : value)}`,
        ).toContain(value === '0.2' ? configId : value);
    }
    const { handle } = e.server.sessions.get(sessionId)!;
    expect(
      [handle.modes.mode, handle.models?.model, handle.models?.smallFastModel],
      'AcpServer.setConfigOption: a refused value changes nothing',
    ).toEqual(['default', 'big-1', 'small-1']);
  });

  test('a refusal names what was asked and every id, mode or model there is, each set apart; a non-string value is refused as such', async () => {
    const e = connect(testFactory({ models: MODELS }));
    const session = await e.open(tempWorkspace().root);
    const { sessionId } = session;
    const { handle } = e.server.sessions.get(sessionId)!;
    const ids = (session.configOptions ?? []).map((option) => option.id);
    const modes = (session.modes?.availableModes ?? []).map((mode) => mode.id);
    const cases: Array<[configId: string, value: string, named: string, listed: readonly string[], where: string]> = [
      [
        'temperature',
        '0.2',
        'temperature',
        ids,
        'an unknown option names it and the ids there are (those of this.configOptionsOf(handle)) (guided step 4)',
      ],
      [
        'mode',
        'yolo',
        'yolo',
        modes,
        'an unknown mode names it and the modes there are, as setMode does (guided step 2)',
      ],
      [
        'model',
        'gpt-unknown',
        'gpt-unknown',
        handle.models!.choices,
        'an unknown model names it and the choices (handle.models.choices) (guided step 3)',
      ],
      [
        'small_fast_model',
        'tiny-unknown',
        'tiny-unknown',
        handle.models!.choices,
        'an unknown small fast model names it and the choices (handle.models.choices) (guided step 3)',
      ],
    ];
    for (const [configId, value, named, listed, where] of cases) {
      const error = await errorOf(
        setOption(e, sessionId, configId, value),
        `AcpServer.setConfigOption ${where}: ${configId}=${value} must be refused`,
      );
      expect(error.code, `AcpServer.setConfigOption ${where}: invalid params (-32602)`).toBe(-32602);
      for (const word of [named, ...listed]) {
        expect(
          standsAlone(error.message ?? '', word),
          `AcpServer.setConfigOption ${where}: ${JSON.stringify(word)} appears in the message on its own, apart from the others (join them with ", "); the message was ${JSON.stringify(error.message)}`,
        ).toBe(true);
      }
    }
    const modelAsOption = await errorOf(
      setOption(e, sessionId, 'temperature', 'big-2'),
      'AcpServer.setConfigOption: an option there is not must be refused, even when the value is one of the models (guided step 4)',
    );
    expect(
      modelAsOption.code,
      'AcpServer.setConfigOption: only model and small_fast_model take a model; any other id is step 4: invalid params (-32602) (guided step 3)',
    ).toBe(-32602);
    for (const configId of ['mode', 'model', 'temperature']) {
      const error = await errorOf(
        e.agent.request(acp.methods.agent.session.setConfigOption, {
          sessionId,
          configId,
          type: 'boolean',
          value: true,
        }),
        `AcpServer.setConfigOption: the boolean value true for ${configId} must be refused (guided step 1)`,
      );
      expect(
        error.code,
        `AcpServer.setConfigOption: the boolean value for ${configId} is invalid params (-32602) (guided step 1)`,
      ).toBe(-32602);
      expect(
        error.message,
        `AcpServer.setConfigOption: a value that is not a string is refused first, for any option (${configId} here), with a message saying a string is expected (guided step 1)`,
      ).toMatch(/string/i);
    }
    expect(
      [handle.modes.mode, handle.models?.model, handle.models?.smallFastModel],
      'AcpServer.setConfigOption: a refused value changes nothing',
    ).toEqual(['default', 'big-1', 'small-1']);
  });

  test('a session without models offers only the mode, and refuses a model', async () => {
    const e = connect(testFactory());
    const session = await e.open(tempWorkspace().root);
    expect(values(session.configOptions), 'configOptionsOf: no handle.models, only the mode').toEqual(['mode=default']);
    const error = await errorOf(
      setOption(e, session.sessionId, 'model', 'big-1'),
      'AcpServer.setConfigOption: without handle.models, model must be refused (guided step 3)',
    );
    expect(error.code, 'AcpServer.setConfigOption: invalid params (-32602) (guided step 3)').toBe(-32602);
  });

  test("an untrusted folder's mode is not raised, through the option or session/set_mode; plan still may be chosen", async () => {
    const e = connect(testFactory({ trusted: false }));
    const { sessionId } = await e.open(tempWorkspace().root);
    for (const mode of ['bypassPermissions', 'acceptEdits']) {
      const viaOption = await errorOf(
        setOption(e, sessionId, 'mode', mode),
        `AcpServer.setConfigOption: ${mode} in an untrusted folder must be refused (checkModeTrust) (guided step 2)`,
      );
      expect(
        viaOption,
        `AcpServer.setConfigOption: ${mode} is refused as an invalid request that says the folder is not trusted (guided step 2)`,
      ).toMatchObject({ code: -32600, message: expect.stringContaining('not trusted') });
      const viaMode = await errorOf(
        e.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: mode }),
        `AcpServer.setMode: ${mode} in an untrusted folder must be refused (checkModeTrust) (guided step 3)`,
      );
      expect(viaMode.code, `AcpServer.setMode: ${mode} is an invalid request (-32600) (guided step 3)`).toBe(-32600);
    }
    expect(
      e.server.sessions.get(sessionId)!.handle.modes.mode,
      'AcpServer.setConfigOption / setMode: a refused mode changes nothing',
    ).toBe('default');
    const plan = await setOption(e, sessionId, 'mode', 'plan');
    expect(
      values(plan.configOptions),
      'AcpServer.setConfigOption: plan raises nothing, so it may be chosen (guided step 2)',
    ).toEqual(['mode=plan']);
  });

  test('a trusted folder (or a factory without the rule) may raise the mode', async () => {
    const e = connect(testFactory({ trusted: true }));
    const { sessionId } = await e.open(tempWorkspace().root);
    await settles(
      setOption(e, sessionId, 'mode', 'bypassPermissions'),
      'AcpServer.setConfigOption: a trusted folder may raise the mode (guided step 2)',
    );
    await settles(
      e.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'acceptEdits' }),
      'AcpServer.setMode: a trusted folder may raise the mode',
    );
    expect(
      e.server.sessions.get(sessionId)!.handle.modes.mode,
      'AcpServer.setMode: the mode is set (guided step 4)',
    ).toBe('acceptEdits');
  });
});
