/** The parts of `npm run agent`, in the order they are set up (each sees the provider and tools the earlier left). */
import type { AgentPart } from './part.js';
import { part as retries } from './retries.js';
import { part as mcp } from './mcp.js';
import { part as permissions } from './permissions.js';
import { part as executor } from './executor.js';

export const PARTS: readonly AgentPart[] = [retries, mcp, permissions, executor];
export type { AgentPart, PartContext, PartOption, PartResult } from './part.js';
