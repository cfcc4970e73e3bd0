// Tool definitions for function-calling models. The JSON Schemas, the annotations and the
// types of the definitions are generated from the engine's option and response types and its
// table of operations (tool-schemas.ts, by a Rust test), with the reference server's argument
// names; `callTool` leaves checking the arguments to the engine, whose errors name the
// offending argument. A selection (`only`, `exclude`, `readOnly`) hands a model some of the
// tools, and `callTool` given the same selection runs no other.

import { memoryError } from './errors.js';
import { TOOL_DEFINITIONS, type JsonSchema, type ToolAnnotations, type ToolDefinition, type ToolName } from './tool-schemas.js';

export type { JsonSchema, ToolAnnotations, ToolDefinition, ToolName };

/** The function-calling formats `tools({ format })` writes the definitions in. */
export type ToolFormat = 'anthropic' | 'openai' | 'mcp';

/** A tool as Anthropic's Messages API takes it: these keys only (it refuses any other). */
export interface AnthropicToolDefinition {
  name: ToolName;
  description: string;
  input_schema: JsonSchema & { type: 'object' };
}

/** A tool as OpenAI's Chat Completions `tools` array takes it. */
export interface OpenAiToolDefinition {
  type: 'function';
  function: { name: ToolName; description: string; parameters: JsonSchema & { type: 'object' }; strict: boolean };
}

/**
 * A tool as an MCP server lists it (`tools/list`): with the JSON Schema its results'
 * `structuredContent` follows, and what it does to the memory (`readOnlyHint`,
 * `destructiveHint`: a host asks before running such a tool).
 */
export interface McpToolDefinition {
  name: ToolName;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  annotations: ToolAnnotations;
}

/** The definitions in one format. */
export type ToolDefinitions<F extends ToolFormat> =
  F extends 'openai' ? OpenAiToolDefinition[] : F extends 'mcp' ? McpToolDefinition[] : AnthropicToolDefinition[];

/** Which of the tools are handed out: all of them unless one of these says otherwise (together, every one applies). */
export interface ToolSelection {
  /** Only these tools (names); an unknown name is an `invalid_value` error naming `only`. */
  only?: readonly ToolName[];
  /** All but these tools; unknown names are refused the same way (field `exclude`). */
  exclude?: readonly ToolName[];
  /** Only the tools that do not write (annotations.readOnlyHint). */
  readOnly?: boolean;
}

/** Options of `tools()`. */
export interface ToolsOptions<F extends ToolFormat = ToolFormat> extends ToolSelection {
  /**
   * `'anthropic'` (default: `{name, description, input_schema}`), `'openai'` (`{type:
   * 'function', function}`) or `'mcp'` (`inputSchema`, `outputSchema`, `annotations`).
   */
  format?: F;
}

/**
 * What an adapter (`associative-memory/ai-sdk`, `associative-memory/langchain`) needs of a
 * memory: an `AssociativeMemory`, or an `AgentMemory` handle, whose tools then take no
 * `agent_id` and can reach no other agent.
 */
export interface ToolMemory {
  tools(options: ToolsOptions<'mcp'>): McpToolDefinition[];
  callTool(name: string, args: unknown, selection?: ToolSelection): Promise<unknown>;
}

/** The definitions in `format`, built from the same generated schemas. */
export function formatTools(tools: ToolDefinition[], format: ToolFormat = 'anthropic'): AnthropicToolDefinition[] | OpenAiToolDefinition[] | McpToolDefinition[] {
  switch (format) {
    case 'anthropic':
      return tools.map(({ name, description, input_schema }) => ({ name, description, input_schema }));
    case 'mcp':
      return tools.map(({ name, description, input_schema, output_schema, annotations }) => (
        { name, description, inputSchema: input_schema, outputSchema: output_schema, annotations }));
    case 'openai':
      return tools.map(({ name, description, input_schema }) => {
        const parameters = strictSchema(input_schema) as (JsonSchema & { type: 'object' }) | null;
        return {
          type: 'function' as const,
          function: parameters ? { name, description, parameters, strict: true } : { name, description, parameters: input_schema, strict: false },
        };
      });
    default:
      throw memoryError('invalid_value', `format must be 'anthropic', 'openai' or 'mcp', got ${JSON.stringify(format)}`, 'format');
  }
}

/** Keywords OpenAI's strict mode does not accept; the engine checks them anyway. */
const NOT_STRICT = ['minLength', 'maxLength', 'default'];

/**
 * A schema in OpenAI's strict-mode subset: every object closed (`additionalProperties:
 * false`) with every property required, an optional one made nullable instead (the engine
 * reads `null` as absent). `null` when the schema holds a free-form object (metadata),
 * which strict mode cannot express: that tool is offered with `strict: false`.
 */
export function strictSchema(schema: JsonSchema): JsonSchema | null {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!NOT_STRICT.includes(key) && key !== 'properties' && key !== 'items' && key !== 'required') out[key] = value;
  }
  if (schema.items) {
    const items = strictSchema(schema.items);
    if (!items) return null;
    out.items = items;
  }
  if (schema.type === 'object') {
    if (schema.additionalProperties !== false || !schema.properties) return null;
    const required = new Set(schema.required ?? []);
    const properties: Record<string, JsonSchema> = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      const strict = strictSchema(property);
      if (!strict) return null;
      properties[name] = required.has(name) ? strict : { ...strict, type: [strict.type, 'null'] as unknown as JsonSchema['type'] };
    }
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  return out;
}

/**
 * The names of the tools `selection` hands out, in the tools' order. A selection that is not
 * one (a name that is no tool, a list that is not a list of names) is refused, naming its field.
 */
export function selectTools(selection: ToolSelection = {}): ToolName[] {
  const names = TOOL_DEFINITIONS.map((t) => t.name);
  const listed = (field: 'only' | 'exclude'): readonly string[] | undefined => {
    const value: unknown = selection[field];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((n) => typeof n !== 'string')) {
      throw memoryError('wrong_type', `${field} must be a list of tool names, got ${JSON.stringify(value)}`, field);
    }
    const unknown = value.filter((n) => !(names as string[]).includes(n));
    if (unknown.length > 0) {
      throw memoryError('invalid_value', `${field} names no tool ${unknown.map((n) => JSON.stringify(n)).join(', ')}; tools: ${names.join(', ')}`, field);
    }
    return value;
  };
  const only = listed('only');
  const exclude = listed('exclude');
  if (selection.readOnly !== undefined && typeof selection.readOnly !== 'boolean') {
    throw memoryError('wrong_type', `readOnly must be true or false, got ${JSON.stringify(selection.readOnly)}`, 'readOnly');
  }
  return TOOL_DEFINITIONS.filter((t) => (only === undefined || only.includes(t.name))
    && !exclude?.includes(t.name)
    && (!selection.readOnly || t.annotations.readOnlyHint)).map((t) => t.name);
}

/** Fresh copies of the definitions of the tools `selection` hands out, without the arguments in `bound`. */
export function toolDefinitions(bound: readonly string[] = [], selection: ToolSelection = {}): ToolDefinition[] {
  const selected = selectTools(selection);
  const copy: ToolDefinition[] = structuredClone(TOOL_DEFINITIONS.filter((t) => selected.includes(t.name))) as ToolDefinition[];
  for (const tool of copy) {
    const schema = tool.input_schema;
    for (const name of bound) delete schema.properties?.[name];
    schema.required = schema.required?.filter((name) => !bound.includes(name));
  }
  return copy;
}

/**
 * Checks that `name` is one of the tools `selection` hands out and `args` an object that
 * sets none of the arguments in `bound` (a scoped handle fills those in); everything else
 * about the arguments is the engine's to check.
 */
export function checkToolCall(name: string, args: unknown, bound: readonly string[] = [], selection: ToolSelection = {}): Record<string, unknown> {
  const selected: string[] = selectTools(selection);
  if (!selected.includes(name)) {
    throw memoryError('unknown_tool', `unknown tool ${JSON.stringify(name)}; tools: ${selected.join(', ') || '(none)'}`);
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw memoryError('wrong_type', `the arguments of ${name} must be an object`, 'options');
  }
  const given = args as Record<string, unknown>;
  const fixed = bound.find((key) => key in given);
  if (fixed) throw memoryError('unknown_option', `${fixed} is fixed by this handle; it is not an argument here`, fixed);
  return given;
}
