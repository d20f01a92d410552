/**
 * Chapter 14: what the person typed in the editor, as the user message the model reads.
 *
 * An editor's prompt is a list of content blocks: the typed text, and context the person attached: a link to a
 * file (`@src/app.ts` in Zed), or a file's text embedded in the prompt (an open buffer, a selection). The kit's
 * user message is one string, so the blocks become one text, with each attachment marked so that the model knows
 * what it is and where it came from. The server tells the client (initialize, promptCapabilities) that it takes
 * embedded context but no images or audio, so a block of those kinds is a bad request.
 */
import { RequestError, type ContentBlock } from '@agentclientprotocol/sdk';
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
 * - image or audio: refused.
 * A prompt with no text at all (no blocks, or only empty text) is refused too. Refusals are
 * RequestError.invalidParams with a message that names the block.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  // #region chapter 14: promptText
  // 1. Map each block, in order, to its text: text → block.text; resource_link → `[@${name}](${uri})`; resource with
  //    a `text` field → <context ref="…">\n…\n</context>, the ref being uriLabel(uri); anything else (image, audio,
  //    a resource without text) → throw RequestError.invalidParams(undefined, message) naming the block's type
  //    and saying that this agent takes text, links and embedded text.
  // 2. Join the pieces with a blank line ("\n\n"), leaving out empty ones.
  // 3. Nothing left but whitespace (no blocks, or only blank text): throw RequestError.invalidParams saying the prompt
  //    is empty.
  const pieces = blocks.map((block) => {
    if (block.type === 'text') return block.text;
    if (block.type === 'resource_link') return `[@${block.name}](${block.uri})`;
    if (block.type === 'resource' && 'text' in block.resource) {
      return `<context ref="${uriLabel(block.resource.uri)}">\n${block.resource.text}\n</context>`;
    }
    const kind = block.type === 'resource' ? 'resource without text (a blob)' : block.type;
    throw RequestError.invalidParams(undefined, `a prompt block of type ${kind} is not supported: this agent takes text, resource links and embedded text resources`);
  });
  const text = pieces.filter((piece) => piece !== '').join('\n\n');
  if (text.trim() === '') throw RequestError.invalidParams(undefined, 'the prompt is empty: send at least one text block');
  return text;
  // #endregion
}
