/**
 * The local search's tokenizer, for the index (built in Node) and for the reader's queries (in the browser).
 *
 * MiniSearch's default splits on spaces and punctuation only, so a Chinese sentence, written without spaces, is one
 * token: "智能体" inside "把工具调用交给智能体循环" would never match. Runs of Han characters are cut into words by
 * Intl.Segmenter (locale zh, granularity word), the same way for the page and the query; every other run is split
 * as MiniSearch's default splits it, so the English index and its searches are exactly what they were.
 *
 * VitePress sends this function to the browser as its source text (its config serializes functions), so it must
 * not use anything from outside its own body but globals: keep it one self-contained arrow function.
 */
export const searchTokenize = (text: string): string[] => {
  const tokens: string[] = [];
  let segmenter: Intl.Segmenter | undefined;
  // MiniSearch's SPACE_OR_PUNCTUATION.
  for (const run of text.split(/[\n\r\p{Z}\p{P}]+/u)) {
    if (!run) continue;
    if (!/\p{Script=Han}/u.test(run)) {
      tokens.push(run);
      continue;
    }
    segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
    for (const { segment, isWordLike } of segmenter.segment(run)) if (isWordLike) tokens.push(segment);
  }
  return tokens;
};
