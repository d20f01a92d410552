/** The built-in tools, ready to hand to an agent. */
import { ToolSet } from '../tool.js';
import { type BackgroundCommands, backgroundTools } from './background.js';
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
export * from './background.js';

/**
 * A fresh ToolSet with every built-in tool: the three that look (read, glob, grep), then those that change things.
 * Given a registry of background commands, the bash tool takes `run_in_background` and TaskOutput and TaskStop come
 * last, all three on that registry (backgroundTools).
 */
export function builtinTools(background?: BackgroundCommands): ToolSet {
  if (!background) return new ToolSet([readTool, globTool, grepTool, writeTool, editTool, bashTool]);
  const [bash, taskOutput, taskStop] = backgroundTools(background);
  return new ToolSet([readTool, globTool, grepTool, writeTool, editTool, bash, taskOutput, taskStop]);
}
