/**
 * Chapter 5 (given): the pictures a user message may carry, checked once for every provider.
 *
 * Anthropic and OpenAI take the same four image types, as base64 in the request. What they cannot take is better
 * refused here, with a sentence that says why, than sent and answered with a 400, or worse, dropped on the way so
 * that the model answers a question about a picture it never saw. A provider says whether its model takes images
 * at all (`imageInput`); one that does not, or does not say, refuses a request that carries one: fail closed.
 */
import type { ImageBlock, Message } from './messages.js';
import type { Provider } from './provider.js';

/** The media types both APIs take (Anthropic's whole list; OpenAI takes these too). Compared exactly. */
export const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/**
 * The longest image data the kit sends, in base64 characters: 5 MiB, Anthropic's limit for one image (OpenAI's is
 * larger). Counting the encoded text rather than the bytes is the stricter reading, so nothing over the limit
 * leaves the machine.
 */
export const MAX_IMAGE_DATA_CHARS = 5 * 1024 * 1024;

/**
 * What one image costs in the context, for the estimates of chapter 12: both APIs scale a large picture down before
 * the model sees it (Anthropic to about 1.15 megapixels, roughly 1,600 tokens; OpenAI's high detail to at most about
 * 1,500), so a fixed upper bound is closer than the length of its base64, which grows with the file, not the tokens.
 */
export const IMAGE_TOKEN_ESTIMATE = 1600;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A request the kit will not send because of an image: a type, a size or data the APIs refuse, or a model without images. */
export class ImageInputError extends Error {
  override name = 'ImageInputError';
}

/** What is wrong with an image, as a sentence, or undefined when both APIs can take it. Never throws. */
export function imageProblem(image: ImageBlock): string | undefined {
  const type: unknown = image.mimeType;
  if (typeof type !== 'string' || !(IMAGE_MEDIA_TYPES as readonly string[]).includes(type)) {
    return `an image of type ${JSON.stringify(type)} cannot be sent: the models take ${IMAGE_MEDIA_TYPES.join(', ')} (exactly, without parameters)`;
  }
  const data: unknown = image.data;
  if (typeof data !== 'string' || data === '') return `an image (${type}) has no data`;
  if (data.length > MAX_IMAGE_DATA_CHARS) {
    return `an image (${type}) of ${data.length} base64 characters is over the limit of ${MAX_IMAGE_DATA_CHARS} (5 MiB, Anthropic's limit for one image): send a smaller picture`;
  }
  if (data.length % 4 !== 0 || !BASE64.test(data)) {
    return `the data of an image (${type}) is not base64: send the bytes as plain base64, without a data: prefix, spaces or line breaks`;
  }
  return undefined;
}

/** The image with its media type narrowed to one the APIs take; throws an ImageInputError saying what is wrong. */
export function checkImage(image: ImageBlock): ImageBlock & { mimeType: ImageMediaType } {
  const problem = imageProblem(image);
  if (problem !== undefined) throw new ImageInputError(problem);
  return image as ImageBlock & { mimeType: ImageMediaType };
}

/** How many images the messages carry (only user messages carry them). */
export function imageCount(messages: readonly Message[]): number {
  let count = 0;
  for (const message of messages) if (message.role === 'user') count += message.images?.length ?? 0;
  return count;
}

/**
 * Throws an ImageInputError when the messages carry an image and the provider has not said its model takes them
 * (`imageInput` true). Called before anything is sent (turnEvents, chapter 6), so nothing leaves the machine.
 */
export function refuseImages(provider: Pick<Provider, 'name' | 'imageInput'>, messages: readonly Message[]): void {
  if (provider.imageInput === true) return;
  const count = imageCount(messages);
  if (count === 0) return;
  throw new ImageInputError(
    `the ${provider.name} provider's model takes no images, and this request carries ${count === 1 ? 'one' : count}: ` +
      'nothing was sent. Use a model that reads images, or send the request without them',
  );
}
