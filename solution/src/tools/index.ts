/** The built-in tools, ready to hand to an agent. */
import { ToolSet } from '../tool.js';
import { bashTool } from './bash.js';
import { editTool } from './edit.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { readTool } from './read.js';
import { writeTool } from './write.js';

export * from './read.js';
export * from './write.js';
export * from './edit.js';
export * from './bash.js';
export * from './glob.js';
export * from './grep.js';

/** A fresh ToolSet with every built-in tool: the three that look (read, glob, grep), then those that change things. */
export function builtinTools(): ToolSet {
  return new ToolSet([readTool, globTool, grepTool, writeTool, editTool, bashTool]);
}
