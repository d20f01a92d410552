/**
 * Chapter 14: what the person typed in the editor, as the user message the model reads.
 *
 * An editor's prompt is a list of content blocks: the typed text, and context the person attached: a link to a
 * file (`@src/app.ts` in Zed), a file's text embedded in the prompt (an open buffer, a selection), or a picture.
 * The kit's user message is one string plus its images, so the text blocks become one text, with each attachment
 * marked so that the model knows what it is and where it came from, and the image blocks become the message's
 * images. The server tells the client (initialize, promptCapabilities) that it takes embedded context, images only
 * when the model reads them, and no audio, so a block the agent cannot pass on is a bad request, never dropped.
 */
import { RequestError, type ContentBlock } from '@agentclientprotocol/sdk';
import { imageProblem } from '../images.js';
import type { ImageBlock } from '../messages.js';
import { fileURLToPath } from 'node:url';

/** A resource's URI as a person reads it: a file path for file:// URIs, else the URI. */
export function uriLabel(uri: string): string {
  if (!uri.startsWith('file://')) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

/**
 * The text of the user message for a prompt's content blocks (ACP's ContentBlock lists the kinds), the parts in
 * their order, joined by a blank line, empty ones left out:
 *
 * - typed text as it is;
 * - a link to a file as Zed writes a mention, `[@app.ts](file:///…/app.ts)`, so the model can open it with its tools;
 * - an embedded file's text marked with where it came from: `<context ref="/work/src/app.ts">`, a newline, the text,
 *   a newline, `</context>`, the ref a file path for a file:// URI (uriLabel, given) and the URI itself otherwise;
 * - nothing for a picture: promptImages takes those.
 *
 * Refused as invalid params (a RequestError, -32602) whose message says why: the agent said in initialize what it
 * takes, so a part it cannot pass on is never dropped. Audio (the message names `audio`), an embedded binary (it
 * names the `resource` and the `blob`), and a prompt with no text at all, no blocks or only blank text or only a
 * picture (it says the prompt is `empty`).
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  // #region chapter 14: promptText
  // 1. Map each block, in order, to its text: text → block.text; resource_link → `[@${name}](${uri})`; resource with
  //    a `text` field → <context ref="…">\n…\n</context>, the ref being uriLabel(uri); image → '' (promptImages
  //    takes it); anything else (audio, a resource without text) → throw RequestError.invalidParams(undefined,
  //    message) naming the block's type and saying that this agent takes text, links, embedded text and images.
  // 2. Join the pieces with a blank line ("\n\n"), leaving out empty ones.
  // 3. Nothing left but whitespace (no blocks, or only blank text): throw RequestError.invalidParams saying the prompt
  //    is empty.
  const pieces = blocks.map((block) => {
    if (block.type === 'text') return block.text;
    if (block.type === 'resource_link') return `[@${block.name}](${block.uri})`;
    if (block.type === 'resource' && 'text' in block.resource) {
      return `<context ref="${uriLabel(block.resource.uri)}">\n${block.resource.text}\n</context>`;
    }
    if (block.type === 'image') return '';
    const kind = block.type === 'resource' ? 'resource without text (a blob)' : block.type;
    throw RequestError.invalidParams(
      undefined,
      `a prompt block of type ${kind} is not supported: this agent takes text, resource links, embedded text resources and images`,
    );
  });
  const text = pieces.filter((piece) => piece !== '').join('\n\n');
  if (text.trim() === '')
    throw RequestError.invalidParams(undefined, 'the prompt is empty: send at least one text block');
  return text;
  // #endregion
}

/**
 * The pictures of a prompt's content blocks, in order, as the user message's ImageBlocks (media type and data,
 * nothing else). `imageInput` is whether the session's model reads them (what initialize advertised); a prompt
 * without pictures has none, whatever the model reads.
 *
 * Refused as invalid params (a RequestError, -32602), before anything runs, and never dropped: any picture when the
 * model reads none (the message says the model does `not read images`); one with no data, given only by its `uri`
 * (the message names the uri: the agent does not fetch pictures); and one the APIs cannot take, with imageProblem's
 * sentence (given: its media type, its size, data that is not base64).
 */
export function promptImages(blocks: readonly ContentBlock[], imageInput: boolean): ImageBlock[] {
  // #region chapter 14: promptImages
  // 1. Keep the blocks of type 'image', in order; none: return [].
  // 2. imageInput false: throw RequestError.invalidParams(undefined, message) saying that this agent's model does not
  //    read images (and that the agent said so in initialize), so nothing is silently left out.
  // 3. For each image: no data (an image given only by uri) → invalidParams saying the agent needs the data; else
  //    { type: 'image', mimeType, data }, and imageProblem(image) (given) that is not undefined → invalidParams with
  //    that sentence.
  const images = blocks.filter((block): block is Extract<ContentBlock, { type: 'image' }> => block.type === 'image');
  if (images.length === 0) return [];
  if (!imageInput) {
    throw RequestError.invalidParams(
      undefined,
      "this agent's model does not read images (initialize said image: false): send the prompt without them, or switch to a model that reads images",
    );
  }
  return images.map((block) => {
    if (!block.data)
      throw RequestError.invalidParams(
        undefined,
        "an image without its data cannot be sent (this agent does not fetch pictures by uri): send the image's data",
      );
    const image: ImageBlock = { type: 'image', mimeType: block.mimeType, data: block.data };
    const problem = imageProblem(image);
    if (problem !== undefined) throw RequestError.invalidParams(undefined, problem);
    return image;
  });
  // #endregion
}
