/** The parts of `npm run agent`, in the order they are set up (each sees the provider and tools the earlier left). */
import type { AgentPart } from './part.js';
import { part as retries } from './retries.js';
import { part as mcp } from './mcp.js';
import { part as permissions } from './permissions.js';
import { part as planning } from './planning.js';
import { part as executor } from './executor.js';
import { part as session } from './session.js';

export const PARTS: readonly AgentPart[] = [retries, mcp, permissions, planning, executor, session];
export type { AgentPart, PartContext, PartOption, PartResult, SlashCommand } from './part.js';
