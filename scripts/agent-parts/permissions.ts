/**
 * `npm run agent`: the part of chapter 8. Not wired in yet: it adds nothing.
 */
import type { AgentPart } from './part.js';

export const part: AgentPart = {
  name: 'permissions',
  chapter: 8,
  options: [],
  async setup() {
    return undefined;
  },
};
