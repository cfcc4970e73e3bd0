// Tool definitions for function-calling models: JSON Schemas with the reference server's
// argument names, and the small validator `callTool` checks arguments with (the schema
// keywords used here only; no code generation, so it runs under any CSP and in edge
// workers that forbid `eval`).

import { memoryError, type ErrorCode } from './errors.js';

/** A JSON Schema, as far as these tool definitions use it. */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  enum?: readonly (string | number | boolean)[];
  default?: unknown;
}

/** One tool for a function-calling model: its name, what it does, and its arguments. */
export interface ToolDefinition {
  name: ToolName;
  description: string;
  input_schema: JsonSchema & { type: 'object' };
}

/** The tools `tools()` describes and `callTool` runs. */
export type ToolName = 'store' | 'recall' | 'reconstruct' | 'traverse' | 'declare_associations' | 'get_contents' | 'delete_memory';

const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
const int = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', description, ...extra });
const bool = (description: string): JsonSchema => ({ type: 'boolean', description });
const obj = (properties: Record<string, JsonSchema>, required: string[] = [], description?: string): JsonSchema & { type: 'object' } =>
  ({ type: 'object', ...(description ? { description } : {}), properties, required, additionalProperties: false });

const AGENT = str('Whose memory this is. Agents never see each other\'s records.');
const PROJECT_WRITE = str('Project bucket to write into; omit or "" for the global pool.');
const CHANNEL_WRITE = str('Channel to write into (e.g. "chat"); omit or "" for channel-global.');
const PROJECT_READ = str('Omit to read every project; "" reads the global pool only; "X" reads project X and the global pool.');
const CHANNEL_READ = str('Omit or "" to read every channel; "X" reads channel X and channel-global records.');

const ASSOCIATIONS = obj({
  entities: {
    type: 'array',
    description: 'Entities this text is about. Each is registered if new and marked as mentioned by the record. Names match after Unicode normalization and case folding.',
    items: obj({
      name: str('The entity\'s canonical name, kept as written.'),
      aliases: { type: 'array', items: { type: 'string' }, description: 'Other names for it, in any script. A name can belong to one entity only.' },
    }, ['name']),
  },
  relations: {
    type: 'array',
    description: 'Facts as subject–predicate–object. Subject and object are entity names (registered if new) or record refs "mem:<id>" / "ep:<id>".',
    items: obj({ subject: { type: 'string' }, predicate: { type: 'string' }, object: { type: 'string' } }, ['subject', 'predicate', 'object']),
  },
}, [], 'What the text mentions and asserts. Malformed items are listed as dropped; they never block the write.');

const DEFINITIONS: ToolDefinition[] = [
  {
    name: 'store',
    description: 'Remember a piece of text. Optionally declare the entities it mentions and the relations it asserts, so they can be followed later with traverse. Returns the new record\'s id (its ref is "mem:<id>").',
    input_schema: obj({
      agent_id: AGENT,
      content: str('The text to remember.', { minLength: 1 }),
      timestamp: str('When it happened, ISO-8601 with an offset; defaults to now.'),
      source: obj({ type: str('"User", "Agent" or "System".'), id: { type: 'string' }, name: { type: 'string' } }, [], 'Who produced the text.'),
      metadata: { type: 'object', description: 'Any JSON object to keep with the record.' },
      associations: ASSOCIATIONS,
      project_id: PROJECT_WRITE,
      channel: CHANNEL_WRITE,
    }, ['agent_id', 'content']),
  },
  {
    name: 'recall',
    description: 'Search the memory for records that answer a query. Returns messages with their ref, text, source, time and why each matched.',
    input_schema: obj({
      agent_id: AGENT,
      query: str('What to look for; an empty query returns recent records.'),
      limit: int('How many candidates each retriever contributes.', { minimum: 0, maximum: 100, default: 10 }),
      deep: bool('Admit weaker matches too.'),
      project_id: PROJECT_READ,
      channel: CHANNEL_READ,
    }, ['agent_id', 'query']),
  },
  {
    name: 'reconstruct',
    description: 'Answer-oriented retrieval: groups the records that bear on a query into items, each with its head text, the claims behind it (newest first, with why each was included) and short excerpts, within a character budget.',
    input_schema: obj({
      agent_id: AGENT,
      query: str('The question to gather evidence for.'),
      count: int('Most items to return.', { minimum: 0, default: 10 }),
      top_k: int('Candidates considered before grouping; raise it when evidence is missing.', { minimum: 1, maximum: 100, default: 20 }),
      max_hops: int('Declared relations to follow from each item\'s entities.', { minimum: 0, maximum: 5, default: 2 }),
      max_evidence: int('Most records kept per item.', { minimum: 1, maximum: 100, default: 40 }),
      budget: int('Characters of quoted text the answer may hold.', { minimum: 1, default: 6000 }),
      deep: bool('Admit weaker matches among the candidates.'),
      trace: bool('Also return the candidates, clusters and name cues used, for debugging.'),
      project_id: PROJECT_READ,
      channel: CHANNEL_READ,
    }, ['agent_id', 'query']),
  },
  {
    name: 'traverse',
    description: 'Look up an entity by any of its names and return its neighbourhood: the entities reached through declared relations (up to max_hops away), those relations, and the refs of records mentioning each entity.',
    input_schema: obj({
      agent_id: AGENT,
      entity: str('A declared name or alias of the entity.'),
      max_hops: int('How many relations away to go; 0 returns the entity alone.', { minimum: 0, maximum: 5, default: 1 }),
      limit: int('Most entities returned, and most refs listed per entity.', { minimum: 1, maximum: 100, default: 20 }),
      project_id: PROJECT_READ,
      channel: CHANNEL_READ,
      source_id: str('Only count records whose source id is this (or starts with it, when it ends in punctuation).'),
    }, ['agent_id', 'entity']),
  },
  {
    name: 'declare_associations',
    description: 'Declare entities, aliases and relations (optionally as evidenced by one record), or retract relations and mentions declared earlier.',
    input_schema: obj({
      agent_id: AGENT,
      associations: ASSOCIATIONS,
      anchor_ref: str('The record the declaration rests on: "mem:<id>" or "ep:<id>".'),
      retract: obj({
        relations: { type: 'array', items: { type: 'integer' }, description: 'Relation ids to remove.' },
        mentions: { type: 'array', items: obj({ entity: { type: 'integer' }, ref: { type: 'string' } }, ['entity', 'ref']), description: 'Mentions to remove: entity id and record ref.' },
      }, [], 'Declarations to take back.'),
      project_id: PROJECT_WRITE,
      channel: CHANNEL_WRITE,
    }, ['agent_id']),
  },
  {
    name: 'get_contents',
    description: 'Fetch the full text of records by ref ("mem:<id>" or "ep:<id>"), as returned by recall, reconstruct or traverse. Refs that do not exist come back in missing.',
    input_schema: obj({
      agent_id: AGENT,
      refs: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 20, description: 'Up to 20 refs.' },
    }, ['agent_id', 'refs']),
  },
  {
    name: 'delete_memory',
    description: 'Forget one stored record, together with every mention and relation that rests on it.',
    input_schema: obj({ agent_id: AGENT, memory_id: int('The id store returned.', { minimum: 1 }) }, ['agent_id', 'memory_id']),
  },
];

/** Fresh copies of the tool definitions, without the arguments in `bound`. */
export function toolDefinitions(bound: readonly string[] = []): ToolDefinition[] {
  const copy: ToolDefinition[] = structuredClone(DEFINITIONS);
  for (const tool of copy) {
    const schema = tool.input_schema;
    for (const name of bound) delete schema.properties?.[name];
    schema.required = schema.required?.filter((name) => !bound.includes(name));
  }
  return copy;
}

/** The definition of `name`, or an `unknown_tool` error. */
export function toolDefinition(name: string, bound: readonly string[] = []): ToolDefinition {
  const tool = toolDefinitions(bound).find((t) => t.name === name);
  if (!tool) throw memoryError('unknown_tool', `unknown tool ${JSON.stringify(name)}; tools: ${DEFINITIONS.map((t) => t.name).join(', ')}`);
  return tool;
}

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

/** Throws the first way `value` breaks `schema`, as the engine's error codes say it. */
export function validate(schema: JsonSchema, value: unknown, path = ''): void {
  const at = path || 'arguments';
  const join = (name: string | number) => (typeof name === 'number' ? `${at}[${name}]` : path ? `${path}.${name}` : name);
  const fail = (code: ErrorCode, message: string, field = at): never => { throw memoryError(code, `${field}: ${message}`, field); };
  const t = typeOf(value);
  if (schema.type && t !== schema.type && !(schema.type === 'number' && t === 'integer')) {
    fail('wrong_type', `expected ${schema.type}, got ${t}`);
  }
  if (schema.enum && !schema.enum.includes(value as never)) fail('invalid_value', `must be one of ${schema.enum.join(', ')}`);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) fail('out_of_range', `must be at least ${schema.minimum}, got ${value}`);
    if (schema.maximum !== undefined && value > schema.maximum) fail('out_of_range', `must be at most ${schema.maximum}, got ${value}`);
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) fail('out_of_range', `must have at least ${schema.minLength} characters`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) fail('out_of_range', `must have at most ${schema.maxLength} characters`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) fail('out_of_range', `must have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) fail('out_of_range', `must have at most ${schema.maxItems} items`);
    if (schema.items) value.forEach((item, i) => validate(schema.items!, item, join(i)));
  }
  if (t === 'object') {
    const record = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!(name in record)) fail('missing_field', 'is required', join(name));
    for (const [name, v] of Object.entries(record)) {
      const sub = schema.properties?.[name];
      if (sub) validate(sub, v, join(name));
      else if (schema.additionalProperties === false) fail('unknown_option', 'is not an argument of this tool', join(name));
    }
  }
}
