// Generated from the table of operations (src/api/operations.rs) by `cargo test --lib generated`;
// do not edit. `UPDATE_GENERATED=1 cargo test --lib generated` rewrites it.

import type {
  DeclareOptions, DeclareResponse, DeleteAgentDataOptions, DeleteAgentDataResponse, DeleteEntityOptions, DeleteEpisodeOptions, DeleteMemoryOptions, DeleteResponse, EmbeddingBacklogOptions, EmbeddingBacklogResponse, EpisodeOptions, EpisodeResponse, ExportMemoriesOptions, ExportMemoriesResponse, GetContentsOptions, GetContentsResponse, HistoryOptions, HistoryResponse, ImportMemoriesOptions, ImportMemoriesResponse, ListAgentsOptions, ListAgentsResponse, ListEntitiesOptions, ListEntitiesResponse, ListMemoriesOptions, ListMemoriesResponse, RecallOptions, RecallResponse, ReconstructOptions, ReconstructResponse, SetEmbeddingsOptions, SetEmbeddingsResponse, StoreManyOptions, StoreManyResponse, StoreOptions, StoreResponse, TraverseOptions, TraverseResponse, UpdateMemoryOptions, UpdateMemoryResponse
} from './types.js';

/** Options of an operation with the axes a scoped handle fixes left out. */
export type Scoped<T> = Omit<T, 'agent_id' | 'project_id' | 'channel'>;
/** Options of an operation with `agent_id` left out. */
export type Agented<T> = Omit<T, 'agent_id'>;

/** Each operation's options and response, by its tool name. */
export interface Operations {
  store: { options: StoreOptions; response: StoreResponse };
  store_many: { options: StoreManyOptions; response: StoreManyResponse };
  archive_episode: { options: EpisodeOptions; response: EpisodeResponse };
  declare_associations: { options: DeclareOptions; response: DeclareResponse };
  recall: { options: RecallOptions; response: RecallResponse };
  reconstruct: { options: ReconstructOptions; response: ReconstructResponse };
  traverse: { options: TraverseOptions; response: TraverseResponse };
  get_contents: { options: GetContentsOptions; response: GetContentsResponse };
  delete_memory: { options: DeleteMemoryOptions; response: DeleteResponse };
  delete_episode: { options: DeleteEpisodeOptions; response: DeleteResponse };
  delete_entity: { options: DeleteEntityOptions; response: DeleteResponse };
  list_entities: { options: ListEntitiesOptions; response: ListEntitiesResponse };
  history: { options: HistoryOptions; response: HistoryResponse };
  list_agents: { options: ListAgentsOptions; response: ListAgentsResponse };
  list_memories: { options: ListMemoriesOptions; response: ListMemoriesResponse };
  update_memory: { options: UpdateMemoryOptions; response: UpdateMemoryResponse };
  delete_agent_data: { options: DeleteAgentDataOptions; response: DeleteAgentDataResponse };
  export_memories: { options: ExportMemoriesOptions; response: ExportMemoriesResponse };
  import_memories: { options: ImportMemoriesOptions; response: ImportMemoriesResponse };
  embedding_backlog: { options: EmbeddingBacklogOptions; response: EmbeddingBacklogResponse };
  set_embeddings: { options: SetEmbeddingsOptions; response: SetEmbeddingsResponse };
}

/** The tool names the engine's `call` takes. */
export type OperationName = keyof Operations;

/** What the package needs to know of an operation. */
export interface Operation {
  /** Its tool name. */
  readonly tool: OperationName;
  /** The memory's method for it, or null when only the package's own code calls it. */
  readonly method: string | null;
  /** Whether it writes (a call that does not is safe to send again). */
  readonly writes: boolean;
  /** The isolation axes its options carry: all three, `agent_id` only, or none. */
  readonly scope: 'axes' | 'agent' | 'owner';
  /** The field `embed` fills when absent, from the text in `from` (of each of `items`, with `items`). */
  readonly embedding: { readonly into: 'embedding' | 'query_embedding'; readonly from: 'content' | 'query'; readonly items: boolean } | null;
}

/** Every operation, in the engine's order. */
export const OPERATIONS: readonly Operation[] = [
  { tool: 'store', method: 'store', writes: true, scope: 'axes', embedding: { into: 'embedding', from: 'content', items: false } },
  { tool: 'store_many', method: 'storeMany', writes: true, scope: 'axes', embedding: { into: 'embedding', from: 'content', items: true } },
  { tool: 'archive_episode', method: 'archiveEpisode', writes: true, scope: 'axes', embedding: null },
  { tool: 'declare_associations', method: 'declareAssociations', writes: true, scope: 'axes', embedding: null },
  { tool: 'recall', method: 'recall', writes: false, scope: 'axes', embedding: { into: 'query_embedding', from: 'query', items: false } },
  { tool: 'reconstruct', method: 'reconstruct', writes: false, scope: 'axes', embedding: { into: 'query_embedding', from: 'query', items: false } },
  { tool: 'traverse', method: 'traverse', writes: false, scope: 'axes', embedding: null },
  { tool: 'get_contents', method: 'getContents', writes: false, scope: 'agent', embedding: null },
  { tool: 'delete_memory', method: 'deleteMemory', writes: true, scope: 'agent', embedding: null },
  { tool: 'delete_episode', method: 'deleteEpisode', writes: true, scope: 'agent', embedding: null },
  { tool: 'delete_entity', method: 'deleteEntity', writes: true, scope: 'agent', embedding: null },
  { tool: 'list_entities', method: 'listEntities', writes: false, scope: 'axes', embedding: null },
  { tool: 'history', method: 'history', writes: false, scope: 'axes', embedding: null },
  { tool: 'list_agents', method: 'listAgents', writes: false, scope: 'owner', embedding: null },
  { tool: 'list_memories', method: 'listMemories', writes: false, scope: 'axes', embedding: null },
  { tool: 'update_memory', method: 'updateMemory', writes: true, scope: 'agent', embedding: { into: 'embedding', from: 'content', items: false } },
  { tool: 'delete_agent_data', method: 'deleteAgentData', writes: true, scope: 'agent', embedding: null },
  { tool: 'export_memories', method: 'exportMemories', writes: false, scope: 'agent', embedding: null },
  { tool: 'import_memories', method: 'importMemories', writes: true, scope: 'owner', embedding: null },
  { tool: 'embedding_backlog', method: null, writes: false, scope: 'owner', embedding: null },
  { tool: 'set_embeddings', method: null, writes: true, scope: 'owner', embedding: null },
];

/** The memory's method of each operation that has one: its options, its response. */
export interface OperationMethods {
  /**
   * Stores a piece of text as a memory (its ref is `mem:<id>`), optionally declaring the
   * entities it mentions and the relations it asserts, which traverse and reconstruct then
   * follow. The memory is stored even when its associations are malformed: what was
   * dropped is listed in the response.
   */
  store(options: StoreOptions): Promise<StoreResponse>;

  /**
   * Stores many memories at once, in one transaction: all of them or, when an item is
   * malformed, none (the error names the item, `items[37].content`). Each item is what
   * `store` takes but the agent and scope, which are the batch's; malformed associations
   * never reject an item, they are dropped and listed per item, as `store` does.
   */
  storeMany(options: StoreManyOptions): Promise<StoreManyResponse>;

  /**
   * Archives an episode: a summarized conversation (its ref is `ep:<id>`), found by
   * recall and reconstruct through its summary and keywords.
   */
  archiveEpisode(options: EpisodeOptions): Promise<EpisodeResponse>;

  /**
   * Declares entities, aliases and relations (optionally as evidenced by one record), or
   * retracts relations and mentions declared earlier. Malformed items are listed in
   * `dropped` and skipped; the rest is applied.
   */
  declareAssociations(options: DeclareOptions): Promise<DeclareResponse>;

  /**
   * Searches the memory for the records that answer a query: lexical matching, and
   * vector similarity when a query embedding is given, fused into one order. Returns
   * messages with their ref, text, source, time and why each matched. Declared
   * associations never change what recall returns.
   */
  recall(options: RecallOptions): Promise<RecallResponse>;

  /**
   * Gathers the evidence for a query: the records that bear on it, grouped into items,
   * each with its head record's text, the claims behind it (newest first, with why each
   * is there, including records reached over declared relations) and excerpts, within a
   * character budget. A bound past its cap is lowered to the cap and `bounds.lowered`
   * names it.
   */
  reconstruct(options: ReconstructOptions): Promise<ReconstructResponse>;

  /**
   * Looks an entity up by any of its names (compared after Unicode normalization and case
   * folding) and returns its neighbourhood: the entities reached through declared
   * relations followed from either end up to `max_hops`, those relations, and the refs of
   * the records that mention each entity.
   */
  traverse(options: TraverseOptions): Promise<TraverseResponse>;

  /**
   * Fetches the full text of records by ref (`"mem:<id>"` or `"ep:<id>"`), as recall,
   * reconstruct and traverse return them. A ref that names no record of this agent comes
   * back in `missing`.
   */
  getContents(options: GetContentsOptions): Promise<GetContentsResponse>;

  /**
   * Forgets one memory, with every mention and relation that rests on it.
   */
  deleteMemory(options: DeleteMemoryOptions): Promise<DeleteResponse>;

  /**
   * Forgets one episode, with every mention and relation that rests on it.
   */
  deleteEpisode(options: DeleteEpisodeOptions): Promise<DeleteResponse>;

  /**
   * Deletes one entity, with its aliases, mentions and relations.
   */
  deleteEntity(options: DeleteEntityOptions): Promise<DeleteResponse>;

  /**
   * A page of the agent's entities with alias, mention and relation counts, by normalized
   * name then id.
   */
  listEntities(options: ListEntitiesOptions): Promise<ListEntitiesResponse>;

  /**
   * An entity's timeline: every relation between it and another entity, whether it holds
   * now or was closed (with who closed it, when and why), in time order — by when it began
   * to hold, or was declared when that is not known — then by id. Paged.
   */
  history(options: HistoryOptions): Promise<HistoryResponse>;

  /**
   * A page of the agents that hold anything in the memory (a record, an entity or a
   * relation), by `agent_id` in byte order, each with how many of each it holds. Every
   * agent is listed: it is the memory owner's call, not a tool offered to a model.
   */
  listAgents(options?: ListAgentsOptions): Promise<ListAgentsResponse>;

  /**
   * A page of the agent's memories, newest first (by timestamp, then id), with their
   * content, source and metadata: what this agent knows, a page at a time.
   */
  listMemories(options: ListMemoriesOptions): Promise<ListMemoriesResponse>;

  /**
   * Corrects one memory of the agent: its content, metadata or timestamp (at least one).
   * Its id stays, and so do the mentions and relations declared on it; lexical search
   * follows the new content at once. A new content drops a stored embedding unless a new
   * one is given, since the old vector described the old text.
   */
  updateMemory(options: UpdateMemoryOptions): Promise<UpdateMemoryResponse>;

  /**
   * Deletes every memory, episode, entity (with its aliases and mentions) and relation of
   * one agent, in every project and channel. Other agents' data is untouched.
   */
  deleteAgentData(options: DeleteAgentDataOptions): Promise<DeleteAgentDataResponse>;

  /**
   * Exports every memory, episode, entity (with its aliases), mention and relation of one
   * agent, in every project and channel, as JSONL in the reference implementation's export
   * format (`cpersona-export/1.1`): a header line, then one JSON object per record. The
   * reference's `import_memories` reads it, and so does `import_memories` here.
   */
  exportMemories(options: ExportMemoriesOptions): Promise<ExportMemoriesResponse>;

  /**
   * Imports an export of `export_memories` (or of the reference implementation's
   * `export_memories`, format `cpersona-export/1.x`): its memories, episodes, entities with
   * their aliases, mentions and relations, under new ids, in one transaction. A malformed
   * record stops the import and names its line (`lines[12].content`); nothing is written
   * then. A declaration that cannot be applied (a mention of a record the file does not
   * hold, say) is dropped and listed, as `store` drops malformed associations.
   */
  importMemories(options: ImportMemoriesOptions): Promise<ImportMemoriesResponse>;
}

/** A scoped handle's method of each operation an agent makes, without what the handle fills in. */
export interface HandleMethods {
  /**
   * Stores a piece of text as a memory (its ref is `mem:<id>`), optionally declaring the
   * entities it mentions and the relations it asserts, which traverse and reconstruct then
   * follow. The memory is stored even when its associations are malformed: what was
   * dropped is listed in the response.
   */
  store(options: Scoped<StoreOptions>): Promise<StoreResponse>;

  /**
   * Stores many memories at once, in one transaction: all of them or, when an item is
   * malformed, none (the error names the item, `items[37].content`). Each item is what
   * `store` takes but the agent and scope, which are the batch's; malformed associations
   * never reject an item, they are dropped and listed per item, as `store` does.
   */
  storeMany(options: Scoped<StoreManyOptions>): Promise<StoreManyResponse>;

  /**
   * Archives an episode: a summarized conversation (its ref is `ep:<id>`), found by
   * recall and reconstruct through its summary and keywords.
   */
  archiveEpisode(options: Scoped<EpisodeOptions>): Promise<EpisodeResponse>;

  /**
   * Declares entities, aliases and relations (optionally as evidenced by one record), or
   * retracts relations and mentions declared earlier. Malformed items are listed in
   * `dropped` and skipped; the rest is applied.
   */
  declareAssociations(options?: Scoped<DeclareOptions>): Promise<DeclareResponse>;

  /**
   * Searches the memory for the records that answer a query: lexical matching, and
   * vector similarity when a query embedding is given, fused into one order. Returns
   * messages with their ref, text, source, time and why each matched. Declared
   * associations never change what recall returns.
   */
  recall(options: Scoped<RecallOptions>): Promise<RecallResponse>;

  /**
   * Gathers the evidence for a query: the records that bear on it, grouped into items,
   * each with its head record's text, the claims behind it (newest first, with why each
   * is there, including records reached over declared relations) and excerpts, within a
   * character budget. A bound past its cap is lowered to the cap and `bounds.lowered`
   * names it.
   */
  reconstruct(options: Scoped<ReconstructOptions>): Promise<ReconstructResponse>;

  /**
   * Looks an entity up by any of its names (compared after Unicode normalization and case
   * folding) and returns its neighbourhood: the entities reached through declared
   * relations followed from either end up to `max_hops`, those relations, and the refs of
   * the records that mention each entity.
   */
  traverse(options: Scoped<TraverseOptions>): Promise<TraverseResponse>;

  /**
   * Fetches the full text of records by ref (`"mem:<id>"` or `"ep:<id>"`), as recall,
   * reconstruct and traverse return them. A ref that names no record of this agent comes
   * back in `missing`.
   */
  getContents(options: Agented<GetContentsOptions>): Promise<GetContentsResponse>;

  /**
   * Forgets one memory, with every mention and relation that rests on it.
   */
  deleteMemory(options: Agented<DeleteMemoryOptions>): Promise<DeleteResponse>;

  /**
   * Forgets one episode, with every mention and relation that rests on it.
   */
  deleteEpisode(options: Agented<DeleteEpisodeOptions>): Promise<DeleteResponse>;

  /**
   * Deletes one entity, with its aliases, mentions and relations.
   */
  deleteEntity(options: Agented<DeleteEntityOptions>): Promise<DeleteResponse>;

  /**
   * A page of the agent's entities with alias, mention and relation counts, by normalized
   * name then id.
   */
  listEntities(options?: Scoped<ListEntitiesOptions>): Promise<ListEntitiesResponse>;

  /**
   * An entity's timeline: every relation between it and another entity, whether it holds
   * now or was closed (with who closed it, when and why), in time order — by when it began
   * to hold, or was declared when that is not known — then by id. Paged.
   */
  history(options: Scoped<HistoryOptions>): Promise<HistoryResponse>;

  /**
   * A page of the agent's memories, newest first (by timestamp, then id), with their
   * content, source and metadata: what this agent knows, a page at a time.
   */
  listMemories(options?: Scoped<ListMemoriesOptions>): Promise<ListMemoriesResponse>;

  /**
   * Corrects one memory of the agent: its content, metadata or timestamp (at least one).
   * Its id stays, and so do the mentions and relations declared on it; lexical search
   * follows the new content at once. A new content drops a stored embedding unless a new
   * one is given, since the old vector described the old text.
   */
  updateMemory(options: Agented<UpdateMemoryOptions>): Promise<UpdateMemoryResponse>;

  /**
   * Deletes every memory, episode, entity (with its aliases and mentions) and relation of
   * one agent, in every project and channel. Other agents' data is untouched.
   */
  deleteAgentData(options?: Agented<DeleteAgentDataOptions>): Promise<DeleteAgentDataResponse>;

  /**
   * Exports every memory, episode, entity (with its aliases), mention and relation of one
   * agent, in every project and channel, as JSONL in the reference implementation's export
   * format (`cpersona-export/1.1`): a header line, then one JSON object per record. The
   * reference's `import_memories` reads it, and so does `import_memories` here.
   */
  exportMemories(options?: Agented<ExportMemoriesOptions>): Promise<ExportMemoriesResponse>;
}

/** The engine's bounds on one call that the package's own batching keeps within. */
export const LIMITS = {
  /** Memories one `storeMany` takes at most. */
  batch: 10000,
  /** Characters of every item's `content` together in one `storeMany`. */
  batchContent: 16777216,
} as const;
