/** Where a memory came from. Defaults to `{type: "Agent", id: <agent_id>, name: ""}`. */
export interface Source { type?: string; id?: string; name?: string }
/** The three isolation axes of a write: exactly one bucket. */
export interface WriteScopeOptions { agent_id: string; project_id?: string; channel?: string }
/** The isolation axes of a read: project omitted reads every project, '' the global pool only. */
export interface ReadScopeOptions { agent_id: string; project_id?: string; channel?: string }
/** An entity to register (if new): its canonical name and other names. */
export interface EntityDeclaration { name: string; aliases?: string[] }
/** subject and object are entity names (registered if new) or record refs 'mem:<id>' / 'ep:<id>'. */
export interface RelationDeclaration { subject: string; predicate: string; object: string }
/** Declarations. Malformed items are reported in `dropped`, never fatal. */
export interface Associations { entities?: EntityDeclaration[]; relations?: RelationDeclaration[] }
export interface StoreOptions extends WriteScopeOptions {
  content: string;
  /** ISO-8601; defaults to the clock's now. */
  timestamp?: string;
  source?: Source;
  metadata?: Record<string, unknown>;
  embedding?: number[];
  associations?: Associations;
}
export interface EpisodeOptions extends WriteScopeOptions {
  summary: string;
  keywords?: string;
  history?: { role: string; content: string; timestamp?: string }[];
  embedding?: number[];
}
export interface DeclareOptions extends WriteScopeOptions {
  associations?: Associations;
  /** The record that evidences the declaration: 'mem:<id>' or 'ep:<id>'. */
  anchor_ref?: string;
  retract?: { relations?: number[]; mentions?: { entity: number; ref: string }[] };
  declared_by?: "agent" | "operator";
}
export interface TraverseOptions extends ReadScopeOptions {
  /** A declared entity name or alias, compared after normalization. */
  entity: string;
  /** 0–5, default 1. */
  max_hops?: number;
  /** 1–100, default 20: entities returned and refs listed per entity. */
  limit?: number;
  source_id?: string;
}
export interface GetContentsOptions { agent_id: string; refs: string[] }
export interface DeleteMemoryOptions { agent_id: string; memory_id: number }
export interface DeleteEpisodeOptions { agent_id: string; episode_id: number }
export interface DeleteEntityOptions { agent_id: string; entity_id: number }
export interface RecallOptions extends ReadScopeOptions {
  /** What to look for; an empty query returns recent memories. */
  query: string;
  /** The query's embedding, for vector retrieval (the wrapper fills it from `embed`). */
  query_embedding?: number[];
  /** 0–100, default 10: candidates taken from each retriever. */
  limit?: number;
  /** Admit weaker matches. */
  deep?: boolean;
}
export interface ReconstructOptions extends ReadScopeOptions {
  query: string;
  query_embedding?: number[];
  /** Most items returned, default 10. */
  count?: number;
  /** Candidates handed to bundling, default 20. */
  top_k?: number;
  /** Relation hops of the walk, default 2, at most 5. */
  max_hops?: number;
  /** Rows kept per item, default 40, at most 100. */
  max_evidence?: number;
  /** Characters of quoted text in the response, default 6000. */
  budget?: number;
  deep?: boolean;
  /** Add candidate refs, clusters and cues to the response. */
  trace?: boolean;
}
export interface ListEntitiesOptions extends ReadScopeOptions { query?: string; offset?: number; limit?: number }

export interface Dropped { item: string; reason: string }
export interface DeclareReport {
  entities: { id: number; name: string; created: boolean }[];
  mentions: number;
  relations: number[];
  dropped: Dropped[];
}
export interface StoreResponse { ok: true; result: "stored"; id: number; associations?: DeclareReport }
export interface EpisodeResponse { ok: true; episode_id: number }
export interface DeclareResponse extends DeclareReport {
  ok: true;
  result: "declared";
  retracted?: { relations: number; mentions: number };
}
export interface TraverseEntity {
  id: number; name: string; hops: number;
  aliases?: string[]; mentions?: string[]; mentions_omitted?: number;
}
export interface TraverseRelation {
  id: number; subject: number; predicate: string; object: number;
  declared_by: "agent" | "operator"; declared_at: string; anchor_ref?: string;
}
export interface TraverseResponse {
  entity: string; max_hops: number; limit: number;
  entities: TraverseEntity[]; relations: TraverseRelation[];
  entities_omitted?: number;
  bounds?: { omitted: ("max_hops" | "limit")[] };
  reason?: "no_such_entity";
}
export interface ContentItem { ref: string; content: string; source: Source; timestamp: string; metadata?: Record<string, unknown> }
export interface GetContentsResponse { items: ContentItem[]; missing: string[]; count: number }
export interface DeleteResponse { ok: true; deleted_id: number }
export interface ListedEntity {
  id: number; name: string; aliases: string[]; mentions: number; relations: number;
  declared_by: "agent" | "operator"; created_at: string; project_id: string; channel: string;
}
export interface ListEntitiesResponse { entities: ListedEntity[]; total: number; next_offset?: number }
export interface RecalledMessage {
  ref: string; content: string; source: Source; timestamp: string;
  match_reason: { signal: string; score?: number; [detail: string]: unknown };
}
export interface RecallResponse { messages: RecalledMessage[] }
export interface Claim {
  ref: string; as_of: string;
  /** Absent means `seed`; `relation:<predicate>` names the last relation the walk followed to it. */
  why?: string;
  /** Relations the walk followed to reach it. */
  hops?: number;
  /** Their ids, from the item's own entity outward (`hops` long): the exact edges to highlight. */
  path?: number[];
  /** The entity at the end of `path`: its mention of this record brought the record in. */
  via_entity?: number;
  roles?: { ref: string; role: string }[];
}
export interface ReconstructedItem {
  content: string; head_ref: string;
  /** Newest first. */
  claims: Claim[];
  claims_omitted?: number;
  /** Character ranges of `content` quoted from the head record. */
  ranges: [number, number][];
  excerpts?: { ref: string; content: string }[];
  /** Absent means `singleton`. */
  independence_reason?: string;
}
export interface ReconstructResponse {
  items: ReconstructedItem[];
  effective_count: number;
  returned_count: number;
  shortfall_reason?: string;
  bounds?: { omitted?: string[]; [applied: string]: unknown };
  /** With `trace: true`: candidate refs, clusters and the cues the alias expansion used. */
  trace?: Record<string, unknown>;
}
/** What every thrown error carries besides its message. */
export interface AssociativeMemoryError extends Error {
  name: "AssociativeMemoryError";
  code: "missing_field" | "wrong_type" | "out_of_range" | "bad_ref" | "unknown_option" | "invalid_value"
      | "not_found" | "unknown_tool" | "unsupported" | "newer_schema" | "not_a_memory" | "sqlite"
      /** OPFS cannot be used in this realm (no dedicated worker, no secure context, old browser). */
      | "opfs_unavailable"
      /** The OPFS pool could not be opened. */
      | "opfs"
      /** Another page or worker holds this OPFS memory open. */
      | "already_open"
      /** The memory was closed, or its worker ended. */
      | "closed" | "worker_crashed";
  field?: string;
}
