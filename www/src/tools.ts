// Tool definitions for function-calling models. The JSON Schemas are generated from the
// engine's option types (tool-schemas.ts, by a Rust test), with the reference server's
// argument names; `callTool` leaves checking the arguments to the engine, whose errors
// name the offending argument.

import { memoryError } from './errors.js';
import { TOOL_DEFINITIONS, type ToolName } from './tool-schemas.js';

export type { ToolName };

/** A JSON Schema, as the tool definitions use it. */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  [keyword: string]: unknown;
}

/** One tool for a function-calling model: its name, what it does, and its arguments. */
export interface ToolDefinition {
  name: ToolName;
  description: string;
  input_schema: JsonSchema & { type: 'object' };
}

/** Fresh copies of the tool definitions, without the arguments in `bound`. */
export function toolDefinitions(bound: readonly string[] = []): ToolDefinition[] {
  const copy: ToolDefinition[] = structuredClone(TOOL_DEFINITIONS) as ToolDefinition[];
  for (const tool of copy) {
    const schema = tool.input_schema;
    for (const name of bound) delete schema.properties?.[name];
    schema.required = schema.required?.filter((name) => !bound.includes(name));
  }
  return copy;
}

/**
 * Checks that `name` is one of the tools and `args` an object that sets none of the
 * arguments in `bound` (a scoped handle fills those in); everything else about the
 * arguments is the engine's to check.
 */
export function checkToolCall(name: string, args: unknown, bound: readonly string[] = []): Record<string, unknown> {
  if (!TOOL_DEFINITIONS.some((t) => t.name === name)) {
    throw memoryError('unknown_tool', `unknown tool ${JSON.stringify(name)}; tools: ${TOOL_DEFINITIONS.map((t) => t.name).join(', ')}`);
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw memoryError('wrong_type', `the arguments of ${name} must be an object`, 'options');
  }
  const given = args as Record<string, unknown>;
  const fixed = bound.find((key) => key in given);
  if (fixed) throw memoryError('unknown_option', `${fixed} is fixed by this handle; it is not an argument here`, fixed);
  return given;
}
