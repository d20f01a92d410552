import { describe, expect, test } from 'vitest';
import { AnthropicProvider } from 'kit/providers/anthropic';
import { OpenAIProvider } from 'kit/providers/openai';
import { openaiConfig } from 'kit/providers/config';
import { ProviderConfigError } from 'kit/providers/errors';
import { userMessage, type ImageBlock, type Message } from 'kit/messages';
import { MAX_IMAGE_DATA_CHARS, refuseImages } from 'kit/images';
import { OfflineProvider } from 'kit/offline-provider';
import type { Provider } from 'kit/provider';
import { fakeApi } from '../helpers/fake-http.js';
import { rejection } from '../helpers/assert.js';
import { ANTHROPIC_URL, OPENAI_URL, anthropicEnv, anthropicResponse, openaiEnv, openaiResponse } from './fixtures.js';

const api = fakeApi();

/** Real base64 of a few bytes each, so that a mix-up of the two shows in what was sent. */
const PNG: ImageBlock = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' };
const JPEG: ImageBlock = { type: 'image', mimeType: 'image/jpeg', data: '/9j/4AAQSkZJRg==' };
const WEBP: ImageBlock = { type: 'image', mimeType: 'image/webp', data: 'UklGRhoAAABXRUJQ' };

const LOCAL_URL = 'http://127.0.0.1:11434/v1/chat/completions';
const ask = (messages: Message[]) => ({ messages, tools: [] });
const anthropic = () => new AnthropicProvider({}, anthropicEnv);
const openai = (env: Record<string, string> = openaiEnv) => new OpenAIProvider({}, env);

async function anthropicSent(messages: Message[]) {
  api.answer(ANTHROPIC_URL, anthropicResponse([{ type: 'text', text: 'A cat.' }]));
  await anthropic().complete(ask(messages));
  return api.requests.at(-1)!.body.messages;
}

async function openaiSent(messages: Message[]) {
  api.answer(OPENAI_URL, openaiResponse({ content: 'A cat.' }));
  await openai().complete(ask(messages));
  return api.requests.at(-1)!.body.messages;
}

/** Types, sizes and data that neither API takes: each must be refused, never sent and never dropped. */
const REFUSED: Array<[what: string, image: ImageBlock, says: RegExp]> = [
  ['an SVG', { type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zz4=' }, /image\/svg\+xml/],
  [
    'a media type with a parameter',
    { type: 'image', mimeType: 'image/png; charset=binary', data: PNG.data },
    /image\/png; charset=binary/,
  ],
  ['a media type with a space before it', { type: 'image', mimeType: ' image/png', data: PNG.data }, / image\/png/],
  [
    'a data URL where the base64 should be',
    { type: 'image', mimeType: 'image/png', data: `data:image/png;base64,${PNG.data}` },
    /not base64/,
  ],
  ['base64 with a line break', { type: 'image', mimeType: 'image/png', data: 'iVBO\nRw0KGgo=' }, /not base64/],
  ['no data at all', { type: 'image', mimeType: 'image/png', data: '' }, /no data/],
  [
    'a picture over the 5 MiB limit',
    { type: 'image', mimeType: 'image/jpeg', data: 'A'.repeat(MAX_IMAGE_DATA_CHARS + 4) },
    /limit/,
  ],
];

describe('toAnthropicMessages (src/providers/anthropic.ts): images', () => {
  test('a user message with images is sent as base64 image blocks, images first and in order, then the text', async () => {
    const sent = await anthropicSent([userMessage('Which of these is the logo?', [JPEG, WEBP])]);
    expect(
      sent[0],
      'toAnthropicMessages: each image becomes { type: "image", source: { type: "base64", media_type: its mimeType, data } }, in order, and the text block comes after them (guided step 2)',
    ).toEqual({
      role: 'user',
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: JPEG.data } },
        { type: 'image', source: { type: 'base64', media_type: 'image/webp', data: WEBP.data } },
        { type: 'text', text: 'Which of these is the logo?' },
      ],
    });
  });

  test('images in an earlier message are sent again with it; a message without images stays a string; empty text is left out', async () => {
    const history: Message[] = [
      userMessage('', [PNG]),
      { role: 'assistant', content: [{ type: 'text', text: 'A cat.' }], stopReason: 'end_turn' },
      userMessage('And its colour?'),
    ];
    const sent = await anthropicSent(history);
    expect(
      sent[0].content,
      'toAnthropicMessages: the image of the first message is sent with every later request (the model has no memory); an empty text block is refused by the API, so leave it out (guided step 2)',
    ).toEqual([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.data } }]);
    expect(
      sent[2],
      'toAnthropicMessages: a user message without images is still a plain string (guided step 2)',
    ).toEqual({
      role: 'user',
      content: 'And its colour?',
    });
  });

  test.each(REFUSED)(
    '%s is refused before anything is sent, with a message that says what is wrong',
    async (what, image, says) => {
      const error = await rejection(
        anthropic().complete(ask([userMessage('What is this?', [PNG, image])])),
        `toAnthropicMessages: ${what} must be refused (through checkImage), not sent and not dropped (guided step 2)`,
      );
      expect(
        String((error as Error).message),
        `toAnthropicMessages: pass every image through checkImage (given); its error names what is wrong with ${what} (guided step 2)`,
      ).toMatch(says);
      expect(
        api.requests,
        'toAnthropicMessages: nothing is sent for a request with an image the API cannot take (guided step 2)',
      ).toHaveLength(0);
    },
  );
});

describe('toOpenAIMessages (src/providers/openai.ts): images', () => {
  test('a user message with images is sent as image_url parts with base64 data URLs, images first and in order, then the text', async () => {
    const sent = await openaiSent([userMessage('Which of these is the logo?', [JPEG, PNG])]);
    expect(
      sent[0],
      'toOpenAIMessages: each image becomes { type: "image_url", image_url: { url: "data:<mimeType>;base64,<data>" } }, in order, and the text part comes after them (guided step 2)',
    ).toEqual({
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${JPEG.data}` } },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.data}` } },
        { type: 'text', text: 'Which of these is the logo?' },
      ],
    });
  });

  test('an image with no text is sent alone; a message without images stays a string', async () => {
    const sent = await openaiSent([
      userMessage('', [WEBP]),
      { role: 'assistant', content: [{ type: 'text', text: 'A cat.' }], stopReason: 'end_turn' },
      userMessage('Thanks'),
    ]);
    expect(sent[0].content, 'toOpenAIMessages: with empty text, only the image parts (guided step 2)').toEqual([
      { type: 'image_url', image_url: { url: `data:image/webp;base64,${WEBP.data}` } },
    ]);
    expect(sent[2], 'toOpenAIMessages: a user message without images is still a plain string (guided step 2)').toEqual({
      role: 'user',
      content: 'Thanks',
    });
  });

  test.each(REFUSED)(
    '%s is refused before anything is sent, with a message that says what is wrong',
    async (what, image, says) => {
      const error = await rejection(
        openai().complete(ask([userMessage('What is this?', [image])])),
        `toOpenAIMessages: ${what} must be refused (through checkImage), not sent and not dropped (guided step 2)`,
      );
      expect(
        String((error as Error).message),
        `toOpenAIMessages: pass every image through checkImage (given); its error names what is wrong with ${what} (guided step 2)`,
      ).toMatch(says);
      expect(
        api.requests,
        'toOpenAIMessages: nothing is sent for a request with an image the API cannot take (guided step 2)',
      ).toHaveLength(0);
    },
  );
});

describe('openaiConfig (src/providers/config.ts): does the model read images?', () => {
  test("yes for OpenAI's own API; no for another server until the person says so; the option wins", () => {
    expect(
      openaiConfig({}, openaiEnv).imageInput,
      "openaiConfig: OpenAI's own API (no base URL): its models read images (guided step 4)",
    ).toBe(true);
    const local = { ...openaiEnv, OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' };
    expect(
      openaiConfig({}, local).imageInput,
      "openaiConfig: another server's model may read no images: never guess yes (guided step 4)",
    ).toBe(false);
    expect(
      openaiConfig({}, { ...local, OPENAI_IMAGE_INPUT: 'true' }).imageInput,
      'openaiConfig: OPENAI_IMAGE_INPUT=true says the model reads images (guided step 4)',
    ).toBe(true);
    expect(
      openaiConfig({}, { ...openaiEnv, OPENAI_IMAGE_INPUT: 'false' }).imageInput,
      "openaiConfig: OPENAI_IMAGE_INPUT=false turns them off, even for OpenAI's API (guided step 4)",
    ).toBe(false);
    expect(
      openaiConfig({ imageInput: true }, { ...local, OPENAI_IMAGE_INPUT: 'false' }).imageInput,
      'openaiConfig: options.imageInput wins over the variable (guided step 4)',
    ).toBe(true);
    expect(
      openaiConfig({ imageInput: false }, openaiEnv).imageInput,
      'openaiConfig: options.imageInput false wins too (guided step 4)',
    ).toBe(false);
  });

  test('an OPENAI_IMAGE_INPUT that is neither true nor false is refused, naming the variable', () => {
    for (const value of ['yes', '1', 'TRUE']) {
      let error: unknown;
      try {
        openaiConfig({}, { ...openaiEnv, OPENAI_IMAGE_INPUT: value });
      } catch (caught) {
        error = caught;
        if (caught instanceof Error && caught.name === 'TodoError') throw caught;
      }
      expect(
        error,
        `openaiConfig: OPENAI_IMAGE_INPUT=${value} is a mistake to report (a ProviderConfigError), not a guess to make (guided step 4)`,
      ).toBeInstanceOf(ProviderConfigError);
      const { provider, variable, message } = error as ProviderConfigError;
      expect(
        { provider, variable },
        "openaiConfig: new ProviderConfigError('openai', 'OPENAI_IMAGE_INPUT', ...): the provider and the variable that would fix it (guided step 4)",
      ).toEqual({ provider: 'openai', variable: 'OPENAI_IMAGE_INPUT' });
      expect(
        message,
        'openaiConfig: the message names OPENAI_IMAGE_INPUT and the value it has (guided step 4)',
      ).toContain('OPENAI_IMAGE_INPUT');
      expect(
        message,
        'openaiConfig: the message names OPENAI_IMAGE_INPUT and the value it has (guided step 4)',
      ).toContain(value);
    }
  });
});

describe('a model that reads no images (openaiConfig, with refuseImages, given)', () => {
  // What turnEvents (chapter 6, given) does before each model call: refuseImages, then the call. complete() only,
  // so that these tests need nothing from chapter 6.
  const drain = async (provider: Provider, messages: Message[]) => {
    refuseImages(provider, messages);
    return provider.complete(ask(messages));
  };

  test("a compatible server's provider refuses an image before anything is sent, and still answers text", async () => {
    const local = new OpenAIProvider({}, { ...openaiEnv, OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' });
    expect(
      local.imageInput,
      "openaiConfig: a server other than OpenAI's reads no images unless the person says so (guided step 4)",
    ).toBe(false);
    const error = await rejection(
      drain(local, [userMessage('What is this?', [PNG])]),
      'a provider whose model reads no images must refuse a request with one, not drop the image',
    );
    expect(String((error as Error).message), 'the refusal says the model takes no images').toMatch(/takes no images/);
    expect(api.requests, 'nothing is sent for a request the model cannot read').toHaveLength(0);
    api.answer(LOCAL_URL, openaiResponse({ content: 'Hello.' }));
    await drain(local, [userMessage('Hi')]);
    expect(api.requests, 'the same provider sends a request without images').toHaveLength(1);
  });

  test('with OPENAI_IMAGE_INPUT=true the compatible server gets the image; the offline stand-in refuses one', async () => {
    const local = new OpenAIProvider(
      {},
      { ...openaiEnv, OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_IMAGE_INPUT: 'true' },
    );
    api.answer(LOCAL_URL, openaiResponse({ content: 'A cat.' }));
    await drain(local, [userMessage('What is this?', [PNG])]);
    expect(
      api.requests.at(-1)!.body.messages[0].content[0],
      'openaiConfig: the person said the model reads images: the image is sent (guided step 4)',
    ).toEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.data}` } });
    const error = await rejection(
      new OfflineProvider().complete(ask([userMessage('What is this?', [PNG])])),
      'the offline stand-in cannot see a picture and must say so',
    );
    expect(String((error as Error).message), "the offline provider's refusal names it").toMatch(
      /offline provider's model takes no images/,
    );
  });
});
