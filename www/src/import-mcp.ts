// `importMcpMemoryGraph`: brings in the knowledge graph of the official MCP memory server
// (`@modelcontextprotocol/server-memory`), whose `memory.jsonl` holds one JSON object per
// line: `{"type":"entity","name","entityType","observations":[…]}` or
// `{"type":"relation","from","to","relationType"}`.
//
// The graph as memories (this module holds the layout; `associative-memory/server-memory`,
// the drop-in for that server, writes and reads the same, so an imported file reads back
// through its tools as the official server read it):
//
// - an entity: a memory `<name>: <entityType>` mentioning it, so every entity and its type
//   are kept and found by recall; metadata `{ mcp_memory: { kind: 'entity', entity,
//   entity_type } }`. The entities' order is these memories' (their ids).
// - an observation: a memory of its text mentioning its entity; metadata `{ mcp_memory: {
//   kind: 'observation', entity, entity_type } }`.
// - a relation: a memory `<from> <relationType> <to>` that declares it (its anchor, so
//   deleting the memory retracts the relation); metadata `{ mcp_memory: { kind:
//   'relation', from, to, relation_type } }`.
//
// The metadata keeps every name exactly as written: the engine's graph compares names
// after Unicode normalization and case folding, the official server exactly. The file is
// read whole and checked before anything is written, then written with `storeMany`: one
// transaction per 10,000 memories, so a file of up to 10,000 memories comes in entirely or
// not at all.

import type { AssociativeMemory, StoreManyCallOptions } from './core.js';
import { storeBatches } from './batches.js';
import { memoryError } from './errors.js';
import type { Source, StoreItem } from './types.js';

/** Options of `importMcpMemoryGraph`. */
export interface McpGraphImportOptions extends StoreManyCallOptions {
  /** The agent whose memory the graph becomes. */
  agent_id: string;
  /** The project to write into (default: the global pool). */
  project_id?: string;
  /** The channel to write into (default: channel-global). */
  channel?: string;
}

/** What `importMcpMemoryGraph` brought in. */
export interface McpGraphImportResult {
  /** Distinct entities in the file (lines naming the same entity are one, as the server reads them). */
  entities: number;
  /** Memories stored: one per entity, per observation and per relation. */
  memories: number;
  /** Relations declared, each anchored on its own memory. */
  relations: number;
  /** Declarations the engine dropped (a name past its bounds, say), with the reason: the first 100. */
  dropped: { item: string; reason: string }[];
  /** How many more declarations were dropped, past the 100 listed; absent when none. */
  dropped_omitted?: number;
}

/** Dropped declarations listed at most, as the engine lists them in one response. */
const SHOWN_DROPS = 100;

interface McpEntity { name: string; entityType: string; observations: string[] }
interface McpRelation { from: string; to: string; relationType: string }

/** What a memory of the graph carries in `metadata.mcp_memory`. */
export type McpGraphRecord =
  | { kind: 'entity' | 'observation'; entity: string; entity_type: string }
  | { kind: 'relation'; from: string; to: string; relation_type: string };

/** @internal The memory that keeps an entity and its type. */
export function entityItem(name: string, entityType: string, source?: Source): StoreItem {
  return graphItem(`${name}: ${entityType}`, { kind: 'entity', entity: name, entity_type: entityType }, { entities: [{ name }] }, source);
}
/** @internal The memory of one observation of an entity. */
export function observationItem(name: string, entityType: string, observation: string, source?: Source): StoreItem {
  return graphItem(observation, { kind: 'observation', entity: name, entity_type: entityType }, { entities: [{ name }] }, source);
}
/** @internal The memory that declares one relation and is its anchor. */
export function relationItem(r: McpRelation, source?: Source): StoreItem {
  const relation = { subject: r.from, predicate: r.relationType, object: r.to };
  return graphItem(`${r.from} ${r.relationType} ${r.to}`, { kind: 'relation', from: r.from, to: r.to, relation_type: r.relationType }, { relations: [relation] }, source);
}
function graphItem(content: string, record: McpGraphRecord, associations: StoreItem['associations'], source?: Source): StoreItem {
  const item: StoreItem = { content, metadata: { mcp_memory: record }, associations };
  if (source) item.source = source;
  return item;
}

/** The graph of a `memory.jsonl`, checked line by line; a bad line is an error naming it. */
function parse(jsonl: string): { entities: McpEntity[]; relations: McpRelation[] } {
  if (typeof jsonl !== 'string') throw memoryError('wrong_type', 'the memory.jsonl content must be a string', 'jsonl');
  const entities = new Map<string, McpEntity>();
  const relations: McpRelation[] = [];
  const seen = new Set<string>();
  jsonl.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const field = `lines[${i}]`;
    const bad = (what: string, at = field) => memoryError('invalid_value', `line ${i + 1} of memory.jsonl: ${what}`, at);
    let item: Record<string, unknown>;
    try {
      item = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw bad('is not JSON');
    }
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw bad('is not a JSON object');
    const text = (key: string) => {
      const v = item[key];
      if (typeof v !== 'string' || v.trim() === '') throw bad(`"${key}" must be a non-empty string`, `${field}.${key}`);
      return v;
    };
    if (item.type === 'entity') {
      const name = text('name');
      const entityType = text('entityType');
      const observations = item.observations;
      if (!Array.isArray(observations) || observations.some((o) => typeof o !== 'string')) {
        throw bad('"observations" must be an array of strings', `${field}.observations`);
      }
      // An entity's observations as the server keeps them, a repeated one too (it stores
      // `add_observations`' ['a', 'a'] twice); a second line of the same entity adds those
      // the first lacks.
      const known = entities.get(name);
      if (known) known.observations.push(...(observations as string[]).filter((o) => !known.observations.includes(o)));
      else entities.set(name, { name, entityType, observations: [...(observations as string[])] });
    } else if (item.type === 'relation') {
      const r = { from: text('from'), to: text('to'), relationType: text('relationType') };
      const key = JSON.stringify([r.from, r.relationType, r.to]);
      if (!seen.has(key)) relations.push(r);
      seen.add(key);
    } else {
      throw bad(`"type" must be "entity" or "relation", got ${JSON.stringify(item.type)}`, `${field}.type`);
    }
  });
  return { entities: [...entities.values()], relations };
}

/**
 * Imports the official MCP memory server's `memory.jsonl` (its text) into `memory` for one
 * agent. The whole file is checked first: a malformed line is an `invalid_value` error whose
 * `field` names it (`lines[12].name`), and nothing is written.
 *
 * ```ts
 * const text = await (await fetch('/memory.jsonl')).text();
 * await importMcpMemoryGraph(memory, text, { agent_id: 'assistant' });
 * ```
 */
export async function importMcpMemoryGraph(memory: AssociativeMemory, jsonl: string, options: McpGraphImportOptions): Promise<McpGraphImportResult> {
  const { agent_id, project_id, channel, onProgress } = options;
  const { entities, relations } = parse(jsonl);
  const source = { type: 'Import', id: 'mcp-memory', name: '' };
  const items: StoreItem[] = entities.flatMap((e) => [
    entityItem(e.name, e.entityType, source),
    ...e.observations.map((o) => observationItem(e.name, e.entityType, o, source)),
  ]);
  items.push(...relations.map((r) => relationItem(r, source)));
  const handle = memory.agent(agent_id, { project_id, channel });
  const dropped: McpGraphImportResult['dropped'] = [];
  let omitted = 0;
  let declared = 0;
  for (const { start, items: batch } of storeBatches(items)) {
    const out = await handle.storeMany(batch, {
      onProgress: onProgress && (({ done }) => onProgress({ done: start + done, total: items.length })),
    });
    for (const stored of out.items) {
      declared += stored.associations?.relations.length ?? 0;
      const report = stored.associations;
      if (!report) continue;
      const room = Math.max(0, SHOWN_DROPS - dropped.length);
      dropped.push(...report.dropped.slice(0, room));
      omitted += Math.max(0, report.dropped.length - room) + (report.dropped_omitted ?? 0);
    }
  }
  if (items.length === 0) onProgress?.({ done: 0, total: 0 });
  const result: McpGraphImportResult = { entities: entities.length, memories: items.length, relations: declared, dropped };
  if (omitted > 0) result.dropped_omitted = omitted;
  return result;
}
