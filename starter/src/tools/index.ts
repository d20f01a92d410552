/** The built-in tools, ready to hand to an agent. */
import { ToolSet } from '../tool.js';
import { readTool } from './read.js';

export { readTool } from './read.js';

/** A fresh ToolSet with every built-in tool. */
export function builtinTools(): ToolSet {
  return new ToolSet([readTool]);
}
