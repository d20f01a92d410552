/**
 * `npm run agent`: the part of chapter 11. Not wired in yet: it adds nothing.
 */
import type { AgentPart } from './part.js';

export const part: AgentPart = {
  name: 'mcp',
  chapter: 11,
  options: [],
  async setup() {
    return undefined;
  },
};
