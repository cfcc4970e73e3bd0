// `associative-memory/server-memory`: a drop-in for the official MCP memory server
// (`@modelcontextprotocol/server-memory`): its nine tools, with their argument and result
// shapes, kept in this package's engine instead of a `memory.jsonl`. An MCP host that ran
// `npx -y @modelcontextprotocol/server-memory` switches by changing the command to
// `npx -y associative-memory --db memory.sqlite --compat server-memory`; the graph then is
// one agent's memories, which the engine's own tools (recall, reconstruct, traverse) read.
//
// The graph is kept as `importMcpMemoryGraph` lays it out (www/src/import-mcp.ts): a memory
// `<name>: <entityType>` per entity, one per observation mentioning its entity, one per
// relation declaring it, each with `metadata.mcp_memory` saying what it is. So a
// `memory.jsonl` imported with `--import-mcp-memory` reads back through these tools as the
// official server read it.
//
// The metadata holds the names exactly as written, so the tools compare names as the
// official server does (exactly), while the engine's graph (traverse) compares them after
// Unicode normalization and case folding. Every tool reads the agent's memories afresh, as
// the official server reads its file on every call, and calls run one at a time.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentMemory } from './core.js';
import { memoryError } from './errors.js';
import { entityItem, observationItem, relationItem } from './import-mcp.js';
import type { Source, StoreItem } from './types.js';

/** An entity of the official server's graph. */
export interface GraphEntity { name: string; entityType: string; observations: string[] }
/** A relation of the official server's graph. */
export interface GraphRelation { from: string; to: string; relationType: string }
/** The official server's knowledge graph. */
export interface KnowledgeGraph { entities: GraphEntity[]; relations: GraphRelation[] }

/** Memories read per `listMemories` page (its largest). */
const PAGE = 500;

/** The graph's memories of an agent, by kind, oldest first, each with its memory id. */
interface Stored {
  entities: { id: number; name: string; entityType: string }[];
  observations: { id: number; entity: string; content: string }[];
  relations: { id: number; relation: GraphRelation }[];
}

function isText(v: unknown): v is string { return typeof v === 'string'; }

/** Every memory of `handle` that belongs to the graph, oldest first. */
async function readStored(handle: AgentMemory): Promise<Stored> {
  const rows: { id: number; content: string; record: Record<string, unknown> }[] = [];
  for (let offset: number | undefined = 0; offset !== undefined;) {
    const page = await handle.listMemories({ limit: PAGE, offset });
    for (const m of page.memories) {
      const record = (m.metadata as { mcp_memory?: unknown } | undefined)?.mcp_memory;
      if (record && typeof record === 'object') rows.push({ id: m.id, content: m.content, record: record as Record<string, unknown> });
    }
    offset = page.next_offset;
  }
  rows.sort((a, b) => a.id - b.id);
  const stored: Stored = { entities: [], observations: [], relations: [] };
  for (const { id, content, record: r } of rows) {
    if (r.kind === 'entity' && isText(r.entity) && isText(r.entity_type)) stored.entities.push({ id, name: r.entity, entityType: r.entity_type });
    else if (r.kind === 'observation' && isText(r.entity)) stored.observations.push({ id, entity: r.entity, content });
    else if (r.kind === 'relation' && isText(r.from) && isText(r.to) && isText(r.relation_type)) {
      stored.relations.push({ id, relation: { from: r.from, to: r.to, relationType: r.relation_type } });
    }
  }
  return stored;
}

/** The graph the stored memories make: entities by their entity memory, observations and relations by theirs. */
function graphOf(stored: Stored): KnowledgeGraph {
  const byName = new Map<string, GraphEntity>();
  for (const e of stored.entities) if (!byName.has(e.name)) byName.set(e.name, { name: e.name, entityType: e.entityType, observations: [] });
  for (const o of stored.observations) byName.get(o.entity)?.observations.push(o.content);
  return { entities: [...byName.values()], relations: stored.relations.map((r) => r.relation) };
}

function sameRelation(a: GraphRelation, b: GraphRelation): boolean {
  return a.from === b.from && a.to === b.to && a.relationType === b.relationType;
}

/** The part of `graph` about the entities `keep` selects: them, and every relation touching one. */
function subgraph(graph: KnowledgeGraph, keep: (e: GraphEntity) => boolean): KnowledgeGraph {
  const entities = graph.entities.filter(keep);
  const names = new Set(entities.map((e) => e.name));
  return { entities, relations: graph.relations.filter((r) => names.has(r.from) || names.has(r.to)) };
}

/**
 * The official server's operations on one agent's memories. Each method reads the agent's
 * graph afresh; the writes of one call go in one `storeMany` (all or nothing), the deletes
 * one memory at a time (relations first, the entity's own memory last, so a call cut short
 * leaves a graph the next call reads as it is).
 */
export class ServerMemoryGraph {
  #queue: Promise<unknown> = Promise.resolve();

  /** `handle`: the agent (and scope) whose memories are the graph. `source`: what the new memories record as their source. */
  constructor(readonly handle: AgentMemory, readonly source?: Source) {}

  /** Runs `task` after every call before it: a call reads and writes a graph no other call is changing. */
  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #store(items: StoreItem[]): Promise<void> {
    if (items.length > 0) await this.handle.storeMany(items);
  }

  /** Creates the entities whose names the graph does not have yet (the first of a name given twice); returns those created. */
  createEntities(entities: GraphEntity[]): Promise<GraphEntity[]> {
    return this.#serial(async () => {
      const known = new Set(graphOf(await readStored(this.handle)).entities.map((e) => e.name));
      const created = entities.filter((e) => !known.has(e.name) && (known.add(e.name), true));
      await this.#store(created.flatMap((e) => [
        entityItem(e.name, e.entityType, this.source),
        ...e.observations.map((o) => observationItem(e.name, e.entityType, o, this.source)),
      ]));
      return created;
    });
  }

  /** Creates the relations the graph does not have yet (compared exactly); returns those created. */
  createRelations(relations: GraphRelation[]): Promise<GraphRelation[]> {
    return this.#serial(async () => {
      const known = graphOf(await readStored(this.handle)).relations;
      const created: GraphRelation[] = [];
      for (const r of relations) {
        if (known.some((k) => sameRelation(k, r))) continue;
        known.push(r);
        created.push(r);
      }
      await this.#store(created.map((r) => relationItem(r, this.source)));
      return created;
    });
  }

  /**
   * Adds to each named entity the observations it does not have yet. An entity the graph
   * does not have fails the whole call (nothing is added), as the official server does.
   */
  addObservations(observations: { entityName: string; contents: string[] }[]): Promise<{ entityName: string; addedObservations: string[] }[]> {
    return this.#serial(async () => {
      const graph = graphOf(await readStored(this.handle));
      const items: StoreItem[] = [];
      const results = observations.map((o) => {
        const entity = graph.entities.find((e) => e.name === o.entityName);
        if (!entity) throw memoryError('not_found', `Entity with name ${o.entityName} not found`, 'observations');
        const added = o.contents.filter((c) => !entity.observations.includes(c));
        entity.observations.push(...added);
        items.push(...added.map((c) => observationItem(entity.name, entity.entityType, c, this.source)));
        return { entityName: o.entityName, addedObservations: added };
      });
      await this.#store(items);
      return results;
    });
  }

  /** Deletes the named entities, their observations and every relation from or to them. */
  deleteEntities(names: string[]): Promise<void> {
    return this.#serial(async () => {
      const gone = new Set(names);
      const stored = await readStored(this.handle);
      await this.#delete([
        ...stored.relations.filter((r) => gone.has(r.relation.from) || gone.has(r.relation.to)).map((r) => r.id),
        ...stored.observations.filter((o) => gone.has(o.entity)).map((o) => o.id),
        ...stored.entities.filter((e) => gone.has(e.name)).map((e) => e.id),
      ]);
      // The engine's entity goes too when nothing mentions it or relates to it any more
      // (another name of the graph that normalizes to the same entity keeps it).
      for (const name of gone) {
        const t = await this.handle.traverse({ entity: name, max_hops: 1 });
        const start = t.entities.find((e) => e.hops === 0);
        if (start && (start.mentions ?? []).length === 0 && !start.mentions_omitted && t.relations.length === 0) {
          await this.handle.deleteEntity({ entity_id: start.id });
        }
      }
    });
  }

  /** Deletes the given observations of each named entity (an entity the graph does not have is passed over). */
  deleteObservations(deletions: { entityName: string; observations: string[] }[]): Promise<void> {
    return this.#serial(async () => {
      const stored = await readStored(this.handle);
      const known = new Set(stored.entities.map((e) => e.name));
      await this.#delete(stored.observations
        .filter((o) => known.has(o.entity) && deletions.some((d) => d.entityName === o.entity && d.observations.includes(o.content)))
        .map((o) => o.id));
    });
  }

  /** Deletes the given relations (compared exactly). */
  deleteRelations(relations: GraphRelation[]): Promise<void> {
    return this.#serial(async () => {
      const stored = await readStored(this.handle);
      await this.#delete(stored.relations.filter((r) => relations.some((d) => sameRelation(d, r.relation))).map((r) => r.id));
    });
  }

  async #delete(ids: number[]): Promise<void> {
    for (const memory_id of ids) await this.handle.deleteMemory({ memory_id });
  }

  /** The whole graph: entities in the order they were created, relations likewise. */
  readGraph(): Promise<KnowledgeGraph> {
    return this.#serial(async () => graphOf(await readStored(this.handle)));
  }

  /**
   * The entities whose name, type or an observation contains `query` (ignoring case, as
   * `toLowerCase` folds it), with every relation touching one of them.
   */
  searchNodes(query: string): Promise<KnowledgeGraph> {
    const q = query.toLowerCase();
    return this.#serial(async () => subgraph(graphOf(await readStored(this.handle)), (e) =>
      e.name.toLowerCase().includes(q) || e.entityType.toLowerCase().includes(q) || e.observations.some((o) => o.toLowerCase().includes(q))));
  }

  /** The named entities, with every relation touching one of them. */
  openNodes(names: string[]): Promise<KnowledgeGraph> {
    return this.#serial(async () => subgraph(graphOf(await readStored(this.handle)), (e) => names.includes(e.name)));
  }
}

// The tools: the official server's names, arguments and results, in this package's words.

type Schema = Record<string, unknown>;
const text = (description?: string): Schema => (description ? { type: 'string', description } : { type: 'string' });
const list = (items: Schema, description?: string): Schema => (description ? { type: 'array', items, description } : { type: 'array', items });
type ObjectSchema = Schema & { type: 'object'; properties: Record<string, Schema> };
const object = (properties: Record<string, Schema>, closed = false): ObjectSchema => ({
  type: 'object', properties, required: Object.keys(properties), ...(closed ? { additionalProperties: false } : {}),
});
const entity = (closed: boolean) => object({
  name: text('The entity\'s name, its key in the graph (compared exactly).'),
  entityType: text('What kind of thing it is: person, service, project…'),
  observations: list(text(), 'Facts about the entity, each one short statement.'),
}, closed);
const relation = (closed: boolean) => object({
  from: text('The name of the entity the relation goes from.'),
  to: text('The name of the entity the relation goes to.'),
  relationType: text('What `from` is to `to`, in the active voice: maintains, works_at…'),
}, closed);
const graphOutput = object({ entities: list(entity(true)), relations: list(relation(true)) }, true);
const doneOutput = object({ success: { type: 'boolean' }, message: text() }, true);

/** Whether a tool writes, destroys, can be repeated to no further effect. */
const WRITES = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
const DELETES = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } as const;
const READS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** The nine tools, in the official server's order. */
export const SERVER_MEMORY_TOOLS = [
  {
    name: 'create_entities', title: 'Create entities',
    description: 'Adds entities to the knowledge graph, each with a type and its first observations. An entity whose name the graph already has is left as it is; the result lists those created.',
    inputSchema: object({ entities: list(entity(false)) }), outputSchema: object({ entities: list(entity(true)) }, true), annotations: WRITES,
  },
  {
    name: 'create_relations', title: 'Create relations',
    description: 'Connects entities: each relation goes from one entity to another with a type in the active voice ("Kaito maintains Ledger"). A relation the graph already has is skipped; the result lists those created.',
    inputSchema: object({ relations: list(relation(false)) }), outputSchema: object({ relations: list(relation(true)) }, true), annotations: WRITES,
  },
  {
    name: 'add_observations', title: 'Add observations',
    description: 'Records new facts about entities the graph already has. Facts an entity already holds are skipped; naming an entity the graph lacks fails the call and adds nothing.',
    inputSchema: object({ observations: list(object({
      entityName: text('The entity the facts are about.'),
      contents: list(text(), 'The facts to add.'),
    })) }),
    outputSchema: object({ results: list(object({ entityName: text(), addedObservations: list(text()) }, true)) }, true), annotations: WRITES,
  },
  {
    name: 'delete_entities', title: 'Delete entities',
    description: 'Removes entities with their observations and every relation from or to them.',
    inputSchema: object({ entityNames: list(text(), 'The names of the entities to remove.') }), outputSchema: doneOutput, annotations: DELETES,
  },
  {
    name: 'delete_observations', title: 'Delete observations',
    description: 'Removes particular facts from entities; facts or entities the graph lacks are passed over.',
    inputSchema: object({ deletions: list(object({
      entityName: text('The entity holding the facts.'),
      observations: list(text(), 'The facts to remove, as written.'),
    })) }),
    outputSchema: doneOutput, annotations: DELETES,
  },
  {
    name: 'delete_relations', title: 'Delete relations',
    description: 'Removes relations, each named by its from, to and relationType exactly.',
    inputSchema: object({ relations: list(relation(false), 'The relations to remove.') }), outputSchema: doneOutput, annotations: DELETES,
  },
  {
    name: 'read_graph', title: 'Read the graph',
    description: 'Returns the whole knowledge graph: every entity with its observations, and every relation.',
    inputSchema: { type: 'object', properties: {} } as ObjectSchema, outputSchema: graphOutput, annotations: READS,
  },
  {
    name: 'search_nodes', title: 'Search the graph',
    description: 'Finds the entities whose name, type or an observation contains the query (ignoring case), with the relations that touch them.',
    inputSchema: object({ query: text('Text to look for in names, types and observations.') }), outputSchema: graphOutput, annotations: READS,
  },
  {
    name: 'open_nodes', title: 'Open entities',
    description: 'Returns the named entities with their observations, and the relations that touch them.',
    inputSchema: object({ names: list(text(), 'The names of the entities to return.') }), outputSchema: graphOutput, annotations: READS,
  },
] as const satisfies readonly Tool[];

/** A tool of the official server's. */
export type ServerMemoryToolName = (typeof SERVER_MEMORY_TOOLS)[number]['name'];

/** Options of `createServerMemoryServer`. */
export interface ServerMemoryServerOptions {
  /** The server's name in the MCP handshake; default `'associative-memory'`. */
  name?: string;
  /** The server's version in the handshake; default the package's. */
  version?: string;
  /** Only these tools; an unknown name is an `invalid_value` error naming `only`. */
  only?: readonly ServerMemoryToolName[];
  /** All but these tools; unknown names are refused the same way (field `exclude`). */
  exclude?: readonly ServerMemoryToolName[];
  /** Only the tools that do not write: read_graph, search_nodes, open_nodes. */
  readOnly?: boolean;
  /** What the memories the tools write record as their source; default the agent. */
  source?: Source;
}

/** The package version announced by default. */
const VERSION = '0.1.0';

/** The tools `options` selects, or a typed error naming the option that names no tool. */
function selectTools(options: ServerMemoryServerOptions): Tool[] {
  const names: readonly string[] = SERVER_MEMORY_TOOLS.map((t) => t.name);
  for (const field of ['only', 'exclude'] as const) {
    const given = options[field];
    if (given === undefined) continue;
    const unknown = Array.isArray(given) ? given.find((n) => !names.includes(n)) : given;
    if (unknown !== undefined) throw memoryError('invalid_value', `${field} names no tool of the memory server: ${JSON.stringify(unknown)}; tools: ${names.join(', ')}`, field);
  }
  return (SERVER_MEMORY_TOOLS as readonly Tool[]).filter((t) =>
    (options.only === undefined || (options.only as readonly string[]).includes(t.name))
    && !(options.exclude as readonly string[] | undefined)?.includes(t.name)
    && (options.readOnly !== true || t.annotations?.readOnlyHint === true));
}

/** `args[key]` checked to be what the tool's schema says, or a typed error naming where it is not. */
function strings(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) throw memoryError('wrong_type', `${field} must be an array of strings`, field);
  value.forEach((v, i) => { if (typeof v !== 'string') throw memoryError('wrong_type', `${field}[${i}] must be a string`, `${field}[${i}]`); });
  return value as string[];
}
function records<K extends string>(value: unknown, field: string, shape: Record<K, 'string' | 'strings'>): Record<K, never>[] {
  if (!Array.isArray(value)) throw memoryError('wrong_type', `${field} must be an array of objects`, field);
  return value.map((v, i) => {
    const at = `${field}[${i}]`;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw memoryError('wrong_type', `${at} must be an object`, at);
    const out: Record<string, unknown> = {};
    for (const [key, kind] of Object.entries(shape) as [K, 'string' | 'strings'][]) {
      const got = (v as Record<string, unknown>)[key];
      if (got === undefined) throw memoryError('missing_field', `${at}.${key} is required`, `${at}.${key}`);
      if (kind === 'string' && typeof got !== 'string') throw memoryError('wrong_type', `${at}.${key} must be a string`, `${at}.${key}`);
      out[key] = kind === 'strings' ? strings(got, `${at}.${key}`) : got;
    }
    return out as Record<K, never>;
  });
}

/** Runs one of the nine tools: its structured result and the text the official server writes beside it. */
async function run(graph: ServerMemoryGraph, name: string, args: Record<string, unknown>): Promise<{ structured: Record<string, unknown>; text?: string }> {
  const done = (message: string) => ({ structured: { success: true, message }, text: message });
  switch (name) {
    case 'create_entities':
      return { structured: { entities: await graph.createEntities(records(args.entities, 'entities', { name: 'string', entityType: 'string', observations: 'strings' })) } };
    case 'create_relations':
      return { structured: { relations: await graph.createRelations(records(args.relations, 'relations', { from: 'string', to: 'string', relationType: 'string' })) } };
    case 'add_observations':
      return { structured: { results: await graph.addObservations(records(args.observations, 'observations', { entityName: 'string', contents: 'strings' })) } };
    case 'delete_entities':
      await graph.deleteEntities(strings(args.entityNames, 'entityNames'));
      return done('Entities deleted successfully');
    case 'delete_observations':
      await graph.deleteObservations(records(args.deletions, 'deletions', { entityName: 'string', observations: 'strings' }));
      return done('Observations deleted successfully');
    case 'delete_relations':
      await graph.deleteRelations(records(args.relations, 'relations', { from: 'string', to: 'string', relationType: 'string' }));
      return done('Relations deleted successfully');
    case 'read_graph':
      return { structured: { ...(await graph.readGraph()) } };
    case 'search_nodes':
      if (typeof args.query !== 'string') throw memoryError(args.query === undefined ? 'missing_field' : 'wrong_type', 'query must be a string', 'query');
      return { structured: { ...(await graph.searchNodes(args.query)) } };
    default: // open_nodes
      return { structured: { ...(await graph.openNodes(strings(args.names, 'names'))) } };
  }
}

/**
 * An MCP server with the official memory server's nine tools, over `handle`'s memories (an
 * agent handle: `memory.agent('assistant')`, with a project if the graph is to live in one).
 * Results are what that server answers: `structuredContent` and its JSON text (a delete's
 * text is its message); a refused call is a tool error (`isError`) whose text says why.
 *
 * ```ts
 * const server = createServerMemoryServer(memory.agent('assistant'));
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createServerMemoryServer(handle: AgentMemory, options: ServerMemoryServerOptions = {}): Server {
  const tools = selectTools(options);
  const graph = new ServerMemoryGraph(handle, options.source);
  const server = new Server(
    { name: options.name ?? 'associative-memory', version: options.version ?? VERSION },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    const fail = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });
    if (!tools.some((t) => t.name === name)) return fail(`unknown tool ${JSON.stringify(name)}; tools: ${tools.map((t) => t.name).join(', ')}`);
    try {
      const { structured, text } = await run(graph, name, request.params.arguments ?? {});
      const shown = text ?? JSON.stringify(name === 'create_entities' || name === 'create_relations' || name === 'add_observations' ? Object.values(structured)[0] : structured, null, 2);
      return { content: [{ type: 'text', text: shown }], structuredContent: structured };
    } catch (error) {
      if (typeof (error as { code?: unknown })?.code !== 'string') throw error;
      return fail(String((error as Error).message));
    }
  });
  return server;
}
