/**
 * Chapter 2: what a tool is.
 *
 * A tool is a name, a description the model reads, a zod schema for its input, and an `execute` function. The
 * schema does two jobs: it becomes the JSON Schema the model is shown, and it checks the model's arguments before
 * `execute` ever sees them.
 */
import { TodoError } from './todo.js';
import { z } from 'zod';
import type { AgentEvent } from './agent-event-types.js';
import type { JsonSchema, ToolDefinition } from './provider.js';

/** What a tool may use while it runs. */
export interface ToolContext {
  /** The workspace root. Every path a tool touches must stay inside it. */
  cwd: string;
  /** Fires when the run is cancelled; long-running tools should stop. */
  signal?: AbortSignal;
  /** Chapter 7: the id of the call being run and the model call (turn) that asked for it, when the loop runs it. */
  callId?: string;
  turn?: number;
  /**
   * Chapter 7: hands an event to the run's consumers while the tool runs; the loop yields it at once, before the
   * call's result (chapter 13's task list and sub-agents report this way). Absent outside a loop.
   */
  emit?(event: AgentEvent): void;
}

export interface Tool<Input = any> {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType<Input>;
  /**
   * The JSON Schema to show the model instead of one made from `input` (chapter 11: an MCP server's tool comes with
   * its own schema, which is offered as the server gave it; `input` then checks arguments against that schema).
   */
  readonly jsonSchema?: JsonSchema;
  /** True for tools that only look (read, glob, grep): safe to run without asking, and in parallel. */
  readonly readOnly: boolean;
  /** Runs the tool on checked input and returns the text the model will read. Throws to report a failure. */
  execute(input: Input, ctx: ToolContext): Promise<string>;
}

export interface ToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  input: S;
  readOnly?: boolean;
  execute(input: z.output<S>, ctx: ToolContext): Promise<string>;
}

/** Names both Anthropic and OpenAI accept. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Checks a tool's spec and returns the tool. Throws (a programmer mistake, caught at start-up) when the name is
 * not 1-64 letters, digits, `_` or `-`, when the description is empty, or when the input is not a zod object.
 * This one is given, not a stub: tools are defined when their modules load, before any test runs.
 */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): Tool<z.output<S>> {
  if (!TOOL_NAME.test(spec.name)) {
    throw new Error(`defineTool: "${spec.name}" is not a valid tool name (1-64 letters, digits, "_" or "-")`);
  }
  if (spec.description.trim() === '') throw new Error(`defineTool: tool "${spec.name}" needs a description`);
  if (!(spec.input instanceof z.ZodObject)) {
    throw new Error(`defineTool: the input of tool "${spec.name}" must be a z.object(...)`);
  }
  return {
    name: spec.name,
    description: spec.description,
    input: spec.input as z.ZodType<z.output<S>>,
    readOnly: spec.readOnly ?? false,
    execute: spec.execute,
  };
}

/**
 * What the model is shown for a tool: its name, its description, and a JSON Schema of its zod input, each field
 * with its description. The schema describes what the model must send (zod's `input` view, as the guide shows:
 * a field with a default is optional for the model, so only fields without one are required), without the
 * `$schema` key, which providers do not want.
 */
export function toolDefinition(tool: Tool): ToolDefinition {
  if (tool.jsonSchema) return { name: tool.name, description: tool.description, inputSchema: tool.jsonSchema };
  // #region chapter 2: toolDefinition
  // Write it from the contract above. Step by step instead: npm run reset -- chapter2 --guided
  throw new TodoError(2, 'toolDefinition');
  // #endregion
}

/** The tools an agent may use, by name, in the order they were added. */
export class ToolSet implements Iterable<Tool> {
  private readonly byName = new Map<string, Tool>();

  constructor(tools: Iterable<Tool> = []) {
    for (const tool of tools) this.add(tool);
  }

  /**
   * Adds a tool and returns the set, so that calls chain. Throws if a tool of that name is already in the set, with
   * an error that names it, and the first one stays: two tools cannot share a name (silently replacing one would
   * run another tool than the model chose).
   */
  add(tool: Tool): this {
    // #region chapter 2: ToolSet.add
    // Write it from the contract above. Step by step instead: npm run reset -- chapter2 --guided
    throw new TodoError(2, 'ToolSet.add');
    // #endregion
  }

  /**
   * The tool with that exact name, or undefined: no trimming, no case folding (a misspelt name is the model's to
   * correct, told so by chapter 3). Names every object inherits (`toString`, `constructor`) find nothing either.
   */
  get(name: string): Tool | undefined {
    // #region chapter 2: ToolSet.get
    // Write it from the contract above. Step by step instead: npm run reset -- chapter2 --guided
    throw new TodoError(2, 'ToolSet.get');
    // #endregion
  }

  /**
   * Takes the tool of that name out of the set; true if there was one. Given, not a stub: chapter 11 replaces an MCP
   * server's tools when the server says its list changed.
   */
  remove(name: string): boolean {
    return this.byName.delete(name);
  }

  /** The tool names, in the order they were added. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  get size(): number {
    return this.byName.size;
  }

  /**
   * The definitions sent to the model, one per tool as toolDefinition gives it, in the order the tools were added.
   * Made afresh at each call, so a tool added or removed since shows; describing a tool never runs it.
   */
  definitions(): ToolDefinition[] {
    // #region chapter 2: ToolSet.definitions
    // Write it from the contract above. Step by step instead: npm run reset -- chapter2 --guided
    throw new TodoError(2, 'ToolSet.definitions');
    // #endregion
  }

  [Symbol.iterator](): Iterator<Tool> {
    return this.byName.values();
  }
}
