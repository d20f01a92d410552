/**
 * `npm run agent`: the part of chapter 10. Not wired in yet: it adds nothing.
 */
import type { AgentPart } from './part.js';

export const part: AgentPart = {
  name: 'retries',
  chapter: 10,
  options: [],
  async setup() {
    return undefined;
  },
};
