/**
 * `npm run agent`: the part of chapter 9. Not wired in yet: it adds nothing.
 */
import type { AgentPart } from './part.js';

export const part: AgentPart = {
  name: 'executor',
  chapter: 9,
  options: [],
  async setup() {
    return undefined;
  },
};
