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
import { TodoError } from '../todo.js';
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
 * The text of the user message for a prompt's blocks, joined with blank lines in their order:
 * - text: as it is;
 * - resource_link: `[@<name>](<uri>)`, the way Zed writes a mention, so the model can read the file with its tools;
 * - resource (embedded): `<context ref="<file path or uri>">`, a newline, the text, a newline, `</context>`; an
 *   embedded blob (binary) is refused;
 * - image: nothing (promptImages takes them);
 * - audio: refused.
 * A prompt with no text at all (no blocks, or only empty text) is refused too. Refusals are
 * RequestError.invalidParams with a message that names the block.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  // #region chapter 14: promptText
  // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
  throw new TodoError(14, 'promptText');
  // #endregion
}

/**
 * The images of a prompt's blocks, in order, as the user message's images. `imageInput` is whether the session's
 * model reads images (what initialize advertised). Refused with RequestError.invalidParams, before anything runs:
 * any image when the model reads none (the message says so), an image with no data (only a `uri`: the agent does
 * not fetch pictures), and an image the APIs cannot take (imageProblem: its type, size or data). Never drops one.
 */
export function promptImages(blocks: readonly ContentBlock[], imageInput: boolean): ImageBlock[] {
  // #region chapter 14: promptImages
  // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
  throw new TodoError(14, 'promptImages');
  // #endregion
}
