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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
  throw new TodoError(14, 'promptText');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
  throw new TodoError(14, 'promptImages');
  // #endregion
}
