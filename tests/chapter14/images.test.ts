import * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, test } from 'vitest';
import { promptImages } from 'kit/acp/prompt';
import { MAX_IMAGE_DATA_CHARS } from 'kit/images';
import { assistantText, userMessage, type ImageBlock } from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import { rejection } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { editor, testFactory } from './fixtures.js';

const PNG = { type: 'image' as const, data: 'iVBORw0KGgo=', mimeType: 'image/png' };
const JPEG = { type: 'image' as const, data: '/9j/4AAQSkZJRg==', mimeType: 'image/jpeg', uri: 'file:///w/photo.jpg' };
const asImage = ({ data, mimeType }: { data: string; mimeType: string }): ImageBlock => ({
  type: 'image',
  mimeType,
  data,
});

const fails = (run: () => unknown, message: string) =>
  rejection(Promise.resolve().then(run), message) as Promise<{ code?: number; message?: string }>;

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const e of open.splice(0)) e.close();
});

/** An editor on a server whose sessions' model reads images when `imageInput` says so (the server and its mock alike). */
function connect(imageInput: boolean | undefined, script = [assistantText('A cat.'), assistantText('Still a cat.')]) {
  const factory = testFactory({ provider: () => new MockProvider(script, { imageInput: imageInput === true }) });
  const e = editor({ openSession: factory.openSession, ...(imageInput === undefined ? {} : { imageInput }) });
  open.push(e);
  return { e, factory, sent: (n: number) => (factory.providers[0] as MockProvider).requests[n]!.messages };
}

describe('promptImages (src/acp/prompt.ts)', () => {
  test("the prompt's image blocks become the message's images, in order, without their uri; other blocks give none", () => {
    const blocks: acp.ContentBlock[] = [
      { type: 'text', text: 'Which is the logo?' },
      PNG,
      { type: 'resource_link', name: 'a.ts', uri: 'file:///w/a.ts' },
      JPEG,
    ];
    expect(
      promptImages(blocks, true),
      'promptImages: each image block as { type: "image", mimeType, data }, in the order given (guided steps 1 and 3)',
    ).toEqual([asImage(PNG), asImage(JPEG)]);
    expect(
      promptImages([{ type: 'text', text: 'hi' }], false),
      'promptImages: a prompt without images has none, whatever the model reads (guided step 1)',
    ).toEqual([]);
  });

  test('an image for a model that reads none is refused as invalid params that say so, never dropped', async () => {
    const error = await fails(
      () => promptImages([{ type: 'text', text: 'What is this?' }, PNG], false),
      'promptImages: an image for a model that reads no images must be refused, not dropped (guided step 2)',
    );
    expect(error, 'promptImages: RequestError.invalidParams (-32602) (guided step 2)').toMatchObject({ code: -32602 });
    expect(
      error.message,
      "promptImages: the message says the agent's model does not read images (guided step 2)",
    ).toMatch(/not read images/);
  });

  test('an image the APIs cannot take is refused as invalid params that say what is wrong', async () => {
    const cases: Array<[string, acp.ContentBlock, RegExp]> = [
      [
        'an image given only by its uri',
        { type: 'image', data: '', mimeType: 'image/png', uri: 'https://example.com/cat.png' },
        /uri/,
      ],
      ['an SVG', { type: 'image', data: 'PHN2Zz4=', mimeType: 'image/svg+xml' }, /image\/svg\+xml/],
      ['a media type with a parameter', { type: 'image', data: PNG.data, mimeType: 'image/png;q=1' }, /image\/png;q=1/],
      [
        'a data URL as the data',
        { type: 'image', data: `data:image/png;base64,${PNG.data}`, mimeType: 'image/png' },
        /not base64/,
      ],
      [
        'a picture over the limit',
        { type: 'image', data: 'A'.repeat(MAX_IMAGE_DATA_CHARS + 4), mimeType: 'image/png' },
        /limit/,
      ],
    ];
    for (const [what, block, says] of cases) {
      const error = await fails(
        () => promptImages([PNG, block], true),
        `promptImages: ${what} must be refused (guided step 3)`,
      );
      expect(error, `promptImages: ${what} → RequestError.invalidParams (-32602) (guided step 3)`).toMatchObject({
        code: -32602,
      });
      expect(
        error.message,
        `promptImages: the message says what is wrong with ${what} (imageProblem's sentence) (guided step 3)`,
      ).toMatch(says);
    }
  });
});

describe('images through the server (AcpServer.initialize and AcpServer.prompt, src/acp/server.ts)', () => {
  test("initialize advertises images only when the sessions' model reads them", async () => {
    for (const [imageInput, image] of [
      [true, true],
      [false, false],
      [undefined, false],
    ] as const) {
      const { e } = connect(imageInput);
      const init = await e.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      expect(
        init.agentCapabilities?.promptCapabilities,
        `AcpServer.initialize: options.imageInput ${imageInput} → image: ${image} (fail closed: not said is no) (guided step 2)`,
      ).toMatchObject({ image, audio: false, embeddedContext: true });
    }
  });

  test('an image block reaches the model with the text of the prompt, and stays in the history for the next prompt', async () => {
    const { root } = tempWorkspace();
    const { e, sent } = connect(true);
    const { sessionId } = await e.open(root);
    const answer = (await e.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'What is this?' }, PNG],
    })) as acp.PromptResponse;
    expect(answer.stopReason, 'AcpServer.prompt: the run ends normally').toBe('end_turn');
    expect(
      sent(0),
      'AcpServer.prompt: the user message is userMessage(text, images), the images from promptImages (guided steps 2-3)',
    ).toEqual([userMessage('What is this?', [asImage(PNG)])]);
    await e.prompt(sessionId, 'And its colour?');
    expect(sent(1)[0], 'AcpServer.prompt: the picture stays with its message in the history (guided step 3)').toEqual(
      userMessage('What is this?', [asImage(PNG)]),
    );
  });

  test('an image for a model that reads none is refused clearly; nothing reaches the model or the history; the session goes on', async () => {
    const { root } = tempWorkspace();
    const { e, factory, sent } = connect(false, [assistantText('Hello.')]);
    const { sessionId } = await e.open(root);
    const refused = (await rejection(
      e.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'What is this?' }, PNG],
      }),
      'AcpServer.prompt: an image for a model that reads none must be refused, not dropped (guided step 2)',
    )) as { code?: number; message?: string };
    expect(refused.code, 'AcpServer.prompt: promptImages refuses it (invalid params, -32602) (guided step 2)').toBe(
      -32602,
    );
    expect(refused.message, "the editor is told the agent's model does not read images").toMatch(/not read images/);
    expect(
      (factory.providers[0] as MockProvider).requests,
      'AcpServer.prompt: nothing reaches the model (guided step 2)',
    ).toHaveLength(0);
    expect(
      e.server.sessions.get(sessionId)?.handle.history,
      'AcpServer.prompt: check the images before the history changes (guided step 2)',
    ).toEqual([]);
    expect((await e.prompt(sessionId, 'Hi')).stopReason, 'the session still works').toBe('end_turn');
    expect(sent(0), 'the next prompt is sent alone').toEqual([userMessage('Hi')]);
  });

  test('a bad image in a prompt is refused before anything runs, even with a model that reads images', async () => {
    const { root } = tempWorkspace();
    const { e, factory } = connect(true);
    const { sessionId } = await e.open(root);
    const refused = (await rejection(
      e.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: 'text', text: 'Look' },
          { type: 'image', data: PNG.data, mimeType: 'image/tiff' },
        ],
      }),
      'AcpServer.prompt: an image the APIs cannot take must be refused (guided step 2)',
    )) as { code?: number; message?: string };
    expect(refused.code, 'AcpServer.prompt: promptImages refuses it (invalid params) (guided step 2)').toBe(-32602);
    expect(refused.message, 'the editor is told which type').toMatch(/image\/tiff/);
    expect((factory.providers[0] as MockProvider).requests, 'nothing reaches the model').toHaveLength(0);
    expect(e.server.sessions.get(sessionId)?.handle.history, 'the history is unchanged').toEqual([]);
  });
});
