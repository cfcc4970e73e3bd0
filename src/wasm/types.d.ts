// Generated from the Rust option and response types (src/api/) by `cargo test --lib generated`;
// do not edit. `UPDATE_GENERATED=1 cargo test --lib generated` rewrites it.

/**
 * Where a memory came from (`{type, id, name}`); a store without one records the storing
 * agent, `{type: "Agent", id: <agent_id>, name: ""}`.
 */
export type Source = {
  /**
   * The kind of source: `User`, `Agent`, `System`, a tool's name… At most 256 characters.
   */
  type?: string,
  /**
   * The source's id; recall, reconstruct and traverse can filter on it (`source_id`). At
   * most 256 characters.
   */
  id?: string,
  /**
   * A display name. At most 256 characters.
   */
  name?: string,
};

/**
 * Where a record came from, as responses give it: a memory's source as its store wrote it
 * (each of `type`, `id` and `name` defaulted to `""`, the storing agent when none was
 * given), an episode's `{type: "Episode", id: <its ref>, name: ""}`. The responses carry the
 * stored JSON as it is, so this type declares its shape for TypeScript only.
 */
export type RecordSource = {
  /**
   * The kind of source: `User`, `Agent`, `System`, `Episode`, a tool's name…
   */
  type: string,
  /**
   * The source's id (an episode's: its ref).
   */
  id: string,
  /**
   * A display name.
   */
  name: string,
};

/**
 * One declared entity.
 */
export type EntityDeclaration = {
  /**
   * Its canonical name, kept as written; at most 256 characters.
   */
  name: string,
  /**
   * Other names for it, in any script, each at most 256 characters. A name belongs to one
   * entity only. At most 32; more are dropped.
   */
  aliases?: Array<string>,
};

/**
 * One declared relation.
 */
export type RelationDeclaration = {
  /**
   * An entity name (registered if new) or a record ref `"mem:<id>"` / `"ep:<id>"`; at most
   * 256 characters.
   */
  subject: string,
  /**
   * What the subject is to the object (`maintains`, `supersedes`…), stored normalized; at
   * most 256 characters.
   */
  predicate: string,
  /**
   * An entity name (registered if new) or a record ref `"mem:<id>"` / `"ep:<id>"`; at most
   * 256 characters.
   */
  object: string,
  /**
   * When it began to hold, ISO-8601; omitted: since always. The same fact declared again
   * from another `valid_from` is another relation beside this one.
   */
  valid_from?: string,
  /**
   * When it stopped holding, ISO-8601, after `valid_from`; omitted: until further notice
   * (`invalidate` ends it later, with a reason).
   */
  valid_to?: string,
};

/**
 * Declarations: the entities a record mentions and the relations it asserts. The lists
 * are the shape a call must have; their items are read leniently (a malformed item, or one
 * past a bound, is reported in `dropped`, never a reason to refuse the call).
 */
export type Associations = {
  /**
   * Entities the text is about. Each is registered if new (names compare after Unicode
   * normalization and case folding) and marked as mentioned by the anchor record. At most
   * 64; more are dropped.
   */
  entities?: Array<EntityDeclaration>,
  /**
   * Facts as subject–predicate–object. At most 64; more are dropped.
   */
  relations?: Array<RelationDeclaration>,
};

/**
 * One mention to retract.
 */
export type MentionRef = {
  /**
   * The entity's id.
   */
  entity: number,
  /**
   * The record's ref, `"mem:<id>"` or `"ep:<id>"`.
   */
  ref: string,
};

/**
 * What to retract; items are read leniently, like declarations.
 */
export type Retract = {
  /**
   * Ids of relations to remove. At most 64; more are dropped.
   */
  relations?: Array<number>,
  /**
   * Mentions to remove. At most 64; more are dropped.
   */
  mentions?: Array<MentionRef>,
};

/**
 * A predicate's arity for the call's project and channel.
 */
export type PredicateDeclaration = {
  /**
   * The predicate, compared as relations store it (normalized); at most 256 characters.
   */
  name: string,
  /**
   * `true`: a subject holds one object at a time, and a second is a conflict;
   * `false`: any number (the default of every predicate).
   */
  single: boolean,
};

/**
 * One relation or record to invalidate: `{ relation_id, at?, reason }` or
 * `{ ref, at?, reason }`.
 */
export type Invalidation = RelationInvalidation | RecordInvalidation;

/**
 * A relation that stopped holding: its `valid_to` becomes `at`, and who closed it, when
 * and why are kept with it.
 */
export type RelationInvalidation = {
  /**
   * The relation's id, as declarations and reads return it.
   */
  relation_id: number,
  /**
   * When it stopped holding, ISO-8601, after its `valid_from` and before an end it
   * already has; omitted: now.
   */
  at?: string,
  /**
   * Why, 1–256 characters.
   */
  reason: string,
};

/**
 * A record that stopped being true: reads at or after `at` leave it out, `"all"` shows it
 * with its reason.
 */
export type RecordInvalidation = {
  /**
   * The record, `"mem:<id>"` or `"ep:<id>"`.
   */
  ref: string,
  /**
   * When it stopped being true, ISO-8601, before an invalidation it already has; omitted: now.
   */
  at?: string,
  /**
   * Why, 1–256 characters.
   */
  reason: string,
};

/**
 * Who made a declaration.
 */
export type DeclaredBy = "agent" | "operator";

/**
 * One turn of an episode's history.
 */
export type Turn = {
  /**
   * Who spoke (`user`, `assistant`…), at most 256 characters.
   */
  role: string,
  /**
   * What was said, at most 1048576 characters.
   */
  content: string,
  /**
   * When, ISO-8601; stored in UTC.
   */
  timestamp?: string,
};

/**
 * Stores a piece of text as a memory (its ref is `mem:<id>`), optionally declaring the
 * entities it mentions and the relations it asserts, which traverse and reconstruct then
 * follow. The memory is stored even when its associations are malformed: what was
 * dropped is listed in the response.
 */
export type StoreOptions = {
  /**
   * Whose memory this is. Agents never read each other's records. At most 256 characters.
   */
  agent_id: string,
  /**
   * The project to write into; omitted or `""` is the global pool. At most 256 characters.
   */
  project_id?: string,
  /**
   * The channel to write into (`"chat"`, say); omitted or `""` is channel-global. At most
   * 256 characters.
   */
  channel?: string,
  /**
   * The text to remember, at most 1048576 characters.
   */
  content: string,
  /**
   * When it happened, ISO-8601 (an offset or `Z`); stored in UTC. Defaults to now.
   */
  timestamp?: string,
  /**
   * When it stops being true, ISO-8601; stored in UTC. From then on reads leave it out
   * (an `as_of` before it still shows it) and `purge_expired` may delete it. Omitted: never.
   */
  expires_at?: string,
  /**
   * Who produced the text.
   */
  source?: Source,
  /**
   * Any JSON object, kept with the memory and returned by get_contents; at most 65536
   * characters written as JSON.
   */
  metadata?: Record<string, unknown>,
  /**
   * The text's embedding, for vector retrieval: 1–8192 finite numbers.
   */
  embedding?: Array<number> | Float32Array | Float64Array,
  /**
   * The model that made `embedding` (for example `all-MiniLM-L6-v2`), 1–256 characters,
   * stored with it: the vector arm compares vectors only with a query embedding of the
   * same model. Omitted: not named, compared only with query embeddings whose model is
   * not named either.
   */
  embedding_model?: string,
  /**
   * What the text mentions and asserts. Read leniently: a malformed item is listed in
   * `associations.dropped` and skipped; it never blocks the store.
   */
  associations?: Associations,
};

/**
 * One memory of `store_many`: what `store` takes but the agent and scope, which are the
 * batch's.
 */
export type StoreItem = {
  /**
   * The text to remember, at most 1048576 characters.
   */
  content: string,
  /**
   * When it happened, ISO-8601 (an offset or `Z`); stored in UTC. Defaults to now.
   */
  timestamp?: string,
  /**
   * When it stops being true, ISO-8601; stored in UTC. From then on reads leave it out
   * (an `as_of` before it still shows it) and `purge_expired` may delete it. Omitted: never.
   */
  expires_at?: string,
  /**
   * Who produced the text.
   */
  source?: Source,
  /**
   * Any JSON object, kept with the memory and returned by get_contents; at most 65536
   * characters written as JSON.
   */
  metadata?: Record<string, unknown>,
  /**
   * The text's embedding, for vector retrieval: 1–8192 finite numbers.
   */
  embedding?: Array<number> | Float32Array | Float64Array,
  /**
   * The model that made `embedding` (for example `all-MiniLM-L6-v2`), 1–256 characters,
   * stored with it: the vector arm compares vectors only with a query embedding of the
   * same model. Omitted: not named, compared only with query embeddings whose model is
   * not named either.
   */
  embedding_model?: string,
  /**
   * What the text mentions and asserts. Read leniently: a malformed item is listed in
   * `associations.dropped` and skipped; it never blocks the store.
   */
  associations?: Associations,
};

/**
 * Stores many memories at once, in one transaction: all of them or, when an item is
 * malformed, none (the error names the item, `items[37].content`). Each item is what
 * `store` takes but the agent and scope, which are the batch's; malformed associations
 * never reject an item, they are dropped and listed per item, as `store` does.
 */
export type StoreManyOptions = {
  /**
   * Whose memory this is. Agents never read each other's records. At most 256 characters.
   */
  agent_id: string,
  /**
   * The project to write into; omitted or `""` is the global pool. At most 256 characters.
   */
  project_id?: string,
  /**
   * The channel to write into (`"chat"`, say); omitted or `""` is channel-global. At most
   * 256 characters.
   */
  channel?: string,
  /**
   * The memories, 1–10000, stored in this order.
   */
  items: Array<StoreItem>,
};

/**
 * Archives an episode: a summarized conversation (its ref is `ep:<id>`), found by
 * recall and reconstruct through its summary and keywords.
 */
export type EpisodeOptions = {
  /**
   * Whose memory this is. Agents never read each other's records. At most 256 characters.
   */
  agent_id: string,
  /**
   * The project to write into; omitted or `""` is the global pool. At most 256 characters.
   */
  project_id?: string,
  /**
   * The channel to write into (`"chat"`, say); omitted or `""` is channel-global. At most
   * 256 characters.
   */
  channel?: string,
  /**
   * What the episode was about, at most 1048576 characters.
   */
  summary: string,
  /**
   * When it stops being true, ISO-8601; stored in UTC. From then on reads leave it out
   * (an `as_of` before it still shows it) and `purge_expired` may delete it. Omitted:
   * never.
   */
  expires_at?: string,
  /**
   * Search keywords, space-separated; at most 1048576 characters.
   */
  keywords?: string,
  /**
   * The conversation, oldest first; its timestamps give the episode's time span. At most
   * 10000 turns, of 8388608 characters of roles and contents in all.
   */
  history?: Array<Turn>,
  /**
   * The summary's embedding, for vector retrieval: 1–8192 finite numbers.
   */
  embedding?: Array<number> | Float32Array | Float64Array,
  /**
   * The model that made `embedding` (for example `all-MiniLM-L6-v2`), 1–256 characters,
   * stored with it: the vector arm compares vectors only with a query embedding of the
   * same model. Omitted: not named, compared only with query embeddings whose model is
   * not named either.
   */
  embedding_model?: string,
};

/**
 * Declares entities, aliases and relations (optionally as evidenced by one record, and
 * with when each began and stopped holding), invalidates relations and records that
 * stopped holding (kept as history, with the reason), declares predicates single-valued
 * (a second object for a subject is then returned as a conflict), or retracts relations
 * and mentions declared earlier (a declaration that was wrong). Malformed items are
 * listed in `dropped` and skipped; the rest is applied.
 */
export type DeclareOptions = {
  /**
   * Whose memory this is. Agents never read each other's records. At most 256 characters.
   */
  agent_id: string,
  /**
   * The project to write into; omitted or `""` is the global pool. At most 256 characters.
   */
  project_id?: string,
  /**
   * The channel to write into (`"chat"`, say); omitted or `""` is channel-global. At most
   * 256 characters.
   */
  channel?: string,
  /**
   * The entities and relations to declare.
   */
  associations?: Associations,
  /**
   * The record the declaration rests on, `"mem:<id>"` or `"ep:<id>"`: every entity
   * declared is marked as mentioned by it, and relations carry it as their evidence.
   * At most 64 characters.
   */
  anchor_ref?: string,
  /**
   * Declarations to take back.
   */
  retract?: Retract,
  /**
   * Relations that stopped holding, and records that stopped being true: each is
   * closed at `at` (default: now) with its reason and kept as history, never deleted.
   * At most 64; more are dropped.
   */
  invalidate?: Array<Invalidation>,
  /**
   * Predicates declared single-valued (`single: true`) or multi-valued again
   * (`single: false`) for the call's project and channel: declaring a relation whose
   * subject holds a current one with a single-valued predicate and another object
   * returns `conflicts`. At most 64; more are dropped.
   */
  predicates?: Array<PredicateDeclaration>,
  /**
   * Who declares: an agent through its tools (default) or a person curating the memory.
   */
  declared_by?: DeclaredBy,
};

/**
 * Looks an entity up by any of its names (compared after Unicode normalization and case
 * folding) and returns its neighbourhood: the entities reached through declared
 * relations followed from either end up to `max_hops`, those relations, and the refs of
 * the records that mention each entity.
 */
export type TraverseOptions = {
  /**
   * Whose memory this is. Agents never read each other's records. At most 256 characters.
   */
  agent_id: string,
  /**
   * Omitted: every project; `""`: the global pool only; `"X"`: project X and the global
   * pool. At most 256 characters.
   */
  project_id?: string,
  /**
   * Omitted or `""`: every channel; `"X"`: channel X and channel-global records. At most
   * 256 characters.
   */
  channel?: string,
  /**
   * A declared name or alias of the entity, at most 256 characters (the longest a
   * declaration accepts).
   */
  entity: string,
  /**
   * Relations to follow, 0–5 (default 1); 0 returns the entity alone.
   */
  max_hops?: number,
  /**
   * Entities returned, and refs listed per entity, 1–100 (default 20).
   */
  limit?: number,
  /**
   * Only records whose source id equals this are listed (episodes, which have no
   * source, are then left out); omitted or `""`: no filter. At most 256 characters.
   */
  source_id?: string,
  /**
   * The instant to read the memory at, ISO-8601: only relations whose validity holds
   * it and records not expired or invalidated by then. `"all"`: everything, each with
   * its interval. Omitted: the current state (what ended before now is left out).
   */
  as_of?: string,
};

/**
 * An entity's timeline: every relation between it and another entity, whether it holds
 * now or was closed (with who closed it, when and why), in time order — by when it began
 * to hold, or was declared when that is not known — then by id. Paged.
 */
export type HistoryOptions = {
  /**
   * Whose memory this is. Agents never read each other's records. At most 256 characters.
   */
  agent_id: string,
  /**
   * Omitted: every project; `""`: the global pool only; `"X"`: project X and the global
   * pool. At most 256 characters.
   */
  project_id?: string,
  /**
   * Omitted or `""`: every channel; `"X"`: channel X and channel-global records. At most
   * 256 characters.
   */
  channel?: string,
  /**
   * A declared name or alias of the entity, at most 256 characters.
   */
  entity: string,
  /**
   * Relations per page, 1–100 (default 50).
   */
  limit?: number,
  /**
   * Relations to skip.
   */
  offset?: number,
};

/**
 * Fetches the full text of records by ref (`"mem:<id>"` or `"ep:<id>"`), as recall,
 * reconstruct and traverse return them. A ref that names no record of this agent comes
 * back in `missing`.
 */
export type GetContentsOptions = {
  /**
   * Whose memory this is; another agent's refs come back in `missing`. At most 256
   * characters.
   */
  agent_id: string,
  /**
   * 1–20 refs, each at most 64 characters. A ref of another shape names no record and
   * comes back in `missing`.
   */
  refs: Array<string>,
  /**
   * The instant to read at, ISO-8601, as the other reads take it: a record expired or
   * invalidated by then comes back in `missing`. `"all"`: every record. Omitted: now.
   */
  as_of?: string,
};

/**
 * Forgets one memory, with every mention and relation that rests on it.
 */
export type DeleteMemoryOptions = {
  /**
   * Whose memory this is. At most 256 characters.
   */
  agent_id: string,
  /**
   * The memory's id, or its ref `mem:<id>` as recall, reconstruct and traverse return it.
   */
  memory_id: number | `mem:${number}`,
};

/**
 * Forgets one episode, with every mention and relation that rests on it.
 */
export type DeleteEpisodeOptions = {
  /**
   * Whose memory this is. At most 256 characters.
   */
  agent_id: string,
  /**
   * The episode's id, or its ref `ep:<id>` as recall, reconstruct and traverse return it.
   */
  episode_id: number | `ep:${number}`,
};

/**
 * Deletes one entity, with its aliases, mentions and relations.
 */
export type DeleteEntityOptions = {
  /**
   * Whose memory this is. At most 256 characters.
   */
  agent_id: string,
  /**
   * The entity's id.
   */
  entity_id: number,
};

/**
 * Deletes the agent's memories and episodes whose `expires_at` has passed (at or before
 * the clock's now), in every project and channel, with every mention and relation that
 * depends on them. Reads already leave expired records out; this takes them away. A record
 * invalidated (rather than expired) stays: it is history, read with `as_of`.
 */
export type PurgeExpiredOptions = {
  /**
   * The agent whose expired records are deleted.
   */
  agent_id: string,
};

/**
 * A reranker's score for one candidate of a query, on `recall` and `reconstruct`: the
 * candidates scored are ordered by score, highest first (a tie keeps retrieval's order),
 * ahead of those not scored, before the cut to `limit` (recall) or to the candidate depth
 * (reconstruct, whose items then follow the new order). A ref that is not a candidate
 * changes nothing. At most 100.
 */
export type RerankScore = {
  /**
   * The candidate, `mem:<id>` or `ep:<id>`, as recall returns it and reconstruct's
   * `trace` lists it.
   */
  ref: string,
  /**
   * Its score: higher ranks first. A finite number.
   */
  score: number,
};

/**
 * Searches the memory for the records that answer a query: lexical matching, and
 * vector similarity when a query embedding is given, fused into one order. Returns
 * messages with their ref, text, source, time and why each matched. Declared
 * associations never change what recall returns.
 */
export type RecallOptions = {
  /**
   * Whose memory this is. Agents never read each other's records. At most 256 characters.
   */
  agent_id: string,
  /**
   * Omitted: every project; `""`: the global pool only; `"X"`: project X and the global
   * pool. At most 256 characters.
   */
  project_id?: string,
  /**
   * Omitted or `""`: every channel; `"X"`: channel X and channel-global records. At most
   * 256 characters.
   */
  channel?: string,
  /**
   * What to look for (not empty), at most 4096 characters. Any text: punctuation and
   * search-syntax characters are read as text.
   */
  query: string,
  /**
   * The query's embedding; turns on vector retrieval over records stored with an
   * embedding of the same model and dimension. 1–8192 finite numbers.
   */
  query_embedding?: Array<number> | Float32Array | Float64Array,
  /**
   * The model that made `query_embedding`, as stores name it: records stored with a
   * vector of another model (or none named, when this is given) are skipped and counted.
   */
  query_embedding_model?: string,
  /**
   * Most messages returned, 1–100 (default 10).
   */
  limit?: number,
  /**
   * Admit weaker matches too (halves the admission threshold).
   */
  deep?: boolean,
  /**
   * Only memories whose source id equals this (episodes, which have no source, are
   * then not read); omitted or `""`: no filter. At most 256 characters.
   */
  source_id?: string,
  /**
   * Scores a reranker gave candidates of this query (the package's `rerank` hook
   * fills it): see `RerankScore`.
   */
  rerank?: Array<RerankScore>,
  /**
   * The instant to read the memory at, ISO-8601: only relations whose validity holds
   * it and records not expired or invalidated by then. `"all"`: everything, each with
   * its interval. Omitted: the current state (what ended before now is left out).
   */
  as_of?: string,
};

/**
 * Gathers the evidence for a query: the records that bear on it, grouped into items,
 * each with its head record's text, the claims behind it (newest first, with why each
 * is there, including records reached over declared relations) and excerpts, within a
 * character budget. A bound past its cap is lowered to the cap and `bounds.lowered`
 * names it.
 */
export type ReconstructOptions = {
  /**
   * Whose memory this is. Agents never read each other's records. At most 256 characters.
   */
  agent_id: string,
  /**
   * Omitted: every project; `""`: the global pool only; `"X"`: project X and the global
   * pool. At most 256 characters.
   */
  project_id?: string,
  /**
   * Omitted or `""`: every channel; `"X"`: channel X and channel-global records. At most
   * 256 characters.
   */
  channel?: string,
  /**
   * The question to gather evidence for (not empty), at most 4096 characters. Any text:
   * punctuation and search-syntax characters are read as text.
   */
  query: string,
  /**
   * The query's embedding; turns on vector retrieval. 1–8192 finite numbers.
   */
  query_embedding?: Array<number> | Float32Array | Float64Array,
  /**
   * The model that made `query_embedding`, as stores name it: records stored with a
   * vector of another model (or none named, when this is given) are skipped and counted.
   */
  query_embedding_model?: string,
  /**
   * Most items returned (default 10, at most 50).
   */
  count?: number,
  /**
   * Candidates each retrieval arm contributes before grouping (default 20, at most 100).
   */
  top_k?: number,
  /**
   * Declared relations the walk follows from each item's entities (default 2, at most 5).
   */
  max_hops?: number,
  /**
   * Most claims kept per item (default 40, at most 100).
   */
  max_evidence?: number,
  /**
   * Characters of quoted text, item heads first, then excerpts (default 6000, at most 200000).
   */
  budget?: number,
  /**
   * Admit weaker matches among the candidates (halves the admission threshold).
   */
  deep?: boolean,
  /**
   * Also return the candidate refs, the clusters and the name cues used.
   */
  trace?: boolean,
  /**
   * Only memories whose source id equals this (episodes are then not read); omitted or
   * `""`: no filter. At most 256 characters.
   */
  source_id?: string,
  /**
   * Scores a reranker gave candidates of this query (the package's `rerank` hook
   * fills it from `trace`'s candidates): see `RerankScore`.
   */
  rerank?: Array<RerankScore>,
  /**
   * The instant to read the memory at, ISO-8601: only relations whose validity holds
   * it and records not expired or invalidated by then. `"all"`: everything, each with
   * its interval. Omitted: the current state (what ended before now is left out).
   */
  as_of?: string,
};

/**
 * A page of the agent's entities with alias, mention and relation counts, by normalized
 * name then id.
 */
export type ListEntitiesOptions = {
  /**
   * Whose memory this is. Agents never read each other's records. At most 256 characters.
   */
  agent_id: string,
  /**
   * Omitted: every project; `""`: the global pool only; `"X"`: project X and the global
   * pool. At most 256 characters.
   */
  project_id?: string,
  /**
   * Omitted or `""`: every channel; `"X"`: channel X and channel-global records. At most
   * 256 characters.
   */
  channel?: string,
  /**
   * Only entities whose normalized name or an alias contains this, normalized; at most
   * 256 characters (the longest name a declaration accepts).
   */
  query?: string,
  /**
   * Entities to skip.
   */
  offset?: number,
  /**
   * Entities per page, 1–500 (default 100).
   */
  limit?: number,
  /**
   * The instant to read the memory at, ISO-8601: only relations whose validity holds
   * it and records not expired or invalidated by then. `"all"`: everything, each with
   * its interval. Omitted: the current state (what ended before now is left out).
   */
  as_of?: string,
};

/**
 * A page of the agent's memories, newest first (by timestamp, then id), with their
 * content, source and metadata: what this agent knows, a page at a time.
 */
export type ListMemoriesOptions = {
  /**
   * Whose memory this is. Agents never read each other's records. At most 256 characters.
   */
  agent_id: string,
  /**
   * Omitted: every project; `""`: the global pool only; `"X"`: project X and the global
   * pool. At most 256 characters.
   */
  project_id?: string,
  /**
   * Omitted or `""`: every channel; `"X"`: channel X and channel-global records. At most
   * 256 characters.
   */
  channel?: string,
  /**
   * Memories per page, 1–500 (default 100).
   */
  limit?: number,
  /**
   * Memories to skip (the `next_offset` of the previous page).
   */
  offset?: number,
  /**
   * Characters of each content to return; a longer one is cut and marked `truncated`
   * (get_contents reads it whole), 0 lists the metadata only. Omitted: all of it.
   */
  max_content?: number,
  /**
   * The instant to read the memory at, ISO-8601: only relations whose validity holds
   * it and records not expired or invalidated by then. `"all"`: everything, each with
   * its interval. Omitted: the current state (what ended before now is left out).
   */
  as_of?: string,
};

/**
 * A page of the agents that hold anything in the memory (a record, an entity or a
 * relation), by `agent_id` in byte order, each with how many of each it holds. Every
 * agent is listed: it is the memory owner's call, not a tool offered to a model.
 */
export type ListAgentsOptions = {
  /**
   * Agents to skip.
   */
  offset?: number,
  /**
   * Agents per page, 1–1000 (default 100).
   */
  limit?: number,
};

/**
 * Corrects one memory of the agent: its content, metadata, timestamp or expiry (at least one).
 * Its id stays, and so do the mentions and relations declared on it; lexical search
 * follows the new content at once. A new content drops a stored embedding unless a new
 * one is given, since the old vector described the old text.
 */
export type UpdateMemoryOptions = {
  /**
   * Whose memory this is.
   */
  agent_id: string,
  /**
   * The memory's id, or its ref `mem:<id>` as recall, reconstruct and traverse return it.
   */
  memory_id: number | `mem:${number}`,
  /**
   * The new text.
   */
  content?: string,
  /**
   * The new metadata, replacing the old (any JSON object).
   */
  metadata?: Record<string, unknown>,
  /**
   * The new time of the memory, ISO-8601; stored in UTC.
   */
  timestamp?: string,
  /**
   * When it stops being true, ISO-8601; stored in UTC. `""` clears it (never expires);
   * omitted leaves it as it is.
   */
  expires_at?: string,
  /**
   * The new text's embedding.
   */
  embedding?: Array<number> | Float32Array | Float64Array,
  /**
   * The model that made `embedding` (for example `all-MiniLM-L6-v2`), 1–256 characters,
   * stored with it: the vector arm compares vectors only with a query embedding of the
   * same model. Omitted: not named, compared only with query embeddings whose model is
   * not named either.
   */
  embedding_model?: string,
};

/**
 * Deletes every memory, episode, entity (with its aliases and mentions) and relation of
 * one agent, in every project and channel. Other agents' data is untouched.
 */
export type DeleteAgentDataOptions = {
  /**
   * The agent whose data is deleted.
   */
  agent_id: string,
};

/**
 * Exports every memory, episode, entity (with its aliases), mention and relation of one
 * agent, in every project and channel, as JSONL in the reference implementation's export
 * format (`cpersona-export/1.1`): a header line, then one JSON object per record. The
 * reference's `import_memories` reads it, and so does `import_memories` here.
 */
export type ExportMemoriesOptions = {
  /**
   * The agent whose memory is exported. At most 256 characters.
   */
  agent_id: string,
};

/**
 * Imports an export of `export_memories` (or of the reference implementation's
 * `export_memories`, format `cpersona-export/1.x`): its memories, episodes, entities with
 * their aliases, mentions and relations, under new ids, in one transaction. A malformed
 * record stops the import and names its line (`lines[12].content`); nothing is written
 * then. A declaration that cannot be applied (a mention of a record the file does not
 * hold, say) is dropped and listed, as `store` drops malformed associations.
 */
export type ImportMemoriesOptions = {
  /**
   * The export's text (JSONL), at most 268435456 characters.
   */
  jsonl: string,
  /**
   * Every record goes to this agent; omitted or `""`: each to the agent the file names.
   * At most 256 characters.
   */
  target_agent_id?: string,
  /**
   * Checks and counts without writing anything.
   */
  dry_run?: boolean,
};

/**
 * Lists the records not embedded with `model` — stored without a vector, or with a
 * vector of another model (or of none named) — with the text to embed (a memory's content,
 * an episode's summary): the first `limit`, memories before episodes, each by id, and how
 * many there are in all (on the first page). Every agent's records are read.
 */
export type EmbeddingBacklogOptions = {
  /**
   * The model the records should be embedded with, 1–256 characters; omitted: a vector
   * with no model named counts as embedded.
   */
  model?: string,
  /**
   * Only records after this one (`mem:<id>` or `ep:<id>`, in the order above): the last
   * ref of the previous page. Omitted: from the first.
   */
  after?: string,
  /**
   * Most records returned, 1–500 (default 64).
   */
  limit?: number,
};

/**
 * One record's new embedding.
 */
export type EmbeddingItem = {
  /**
   * `mem:<id>` or `ep:<id>`, at most 64 characters.
   */
  ref: string,
  /**
   * 1–8192 finite numbers.
   */
  embedding: Array<number>,
};

/**
 * Sets the embedding of records, and the model that made them, in one transaction,
 * keeping everything else (text, times, declarations): all items, or none when one is
 * malformed. A ref that names no record (deleted since it was listed) is skipped and
 * listed in `missing`.
 */
export type SetEmbeddingsOptions = {
  /**
   * The model that made the embeddings, 1–256 characters; omitted: not named.
   */
  model?: string,
  /**
   * 1–500 records and their new embeddings.
   */
  items: Array<EmbeddingItem>,
};

/**
 * A declaration item that was not applied, and why.
 */
export type Dropped = {
  /**
   * Where in the call: `entities[0].aliases[1]`, `relations[2].subject`, `anchor_ref`…
   */
  item: string,
  /**
   * Why it was dropped.
   */
  reason: string,
};

/**
 * An entity a declaration named.
 */
export type DeclaredEntity = {
  /**
   * Its id.
   */
  id: number,
  /**
   * The name as this declaration wrote it.
   */
  name: string,
  /**
   * Whether this declaration registered it.
   */
  created: boolean,
};

/**
 * What a declaration did.
 */
export type DeclareReport = {
  /**
   * The entities named, in declaration order.
   */
  entities: Array<DeclaredEntity>,
  /**
   * Mentions recorded (one per entity when there is an anchor).
   */
  mentions: number,
  /**
   * Ids of the relations declared (existing ones included), in declaration order.
   */
  relations: Array<number>,
  /**
   * Current relations a declared one may contradict: same subject and single-valued
   * predicate, another object. Both are kept; the agent decides which to invalidate.
   */
  conflicts?: Array<Conflict>,
  /**
   * Items not applied, and why: the first 100.
   */
  dropped: Array<Dropped>,
  /**
   * How many more items were not applied, past the 100 listed.
   */
  dropped_omitted?: number,
};

/**
 * Counts of what a retraction removed.
 */
export type Retracted = {
  /**
   * Relations removed.
   */
  relations: number,
  /**
   * Mentions removed.
   */
  mentions: number,
};

/**
 * A declared relation beside a current one with the same subject and single-valued
 * predicate and another object.
 */
export type Conflict = {
  /**
   * The relation declared.
   */
  relation_id: number,
  /**
   * The current relation it may contradict.
   */
  conflicts_with: number,
  /**
   * Their subject: an entity's name, or a record's ref.
   */
  subject: string,
  /**
   * Their predicate, normalized.
   */
  predicate: string,
  /**
   * The current relation's object: an entity's name, or a record's ref.
   */
  object: string,
};

/**
 * What an invalidation closed.
 */
export type Invalidated = {
  /**
   * Ids of the relations closed, in call order.
   */
  relations: Array<number>,
  /**
   * Refs of the records invalidated, in call order.
   */
  records: Array<string>,
};

/**
 * The response of `store`.
 */
export type StoreResponse = {
  /**
   * Always true; a failed store is an error.
   */
  ok: true,
  /**
   * `"stored"`.
   */
  result: "stored",
  /**
   * The new memory's id (`mem:<id>`).
   */
  id: number,
  /**
   * What the riding declaration did, when one was given.
   */
  associations?: DeclareReport,
};

/**
 * One stored memory of `store_many`.
 */
export type StoredItem = {
  /**
   * The new memory's id (`mem:<id>`).
   */
  id: number,
  /**
   * What its riding declaration did, when it had one.
   */
  associations?: DeclareReport,
};

/**
 * The response of `store_many`.
 */
export type StoreManyResponse = {
  /**
   * Always true; a failed batch is an error and stored nothing.
   */
  ok: true,
  /**
   * `"stored"`.
   */
  result: "stored",
  /**
   * Each item's memory, in the order given.
   */
  items: Array<StoredItem>,
};

/**
 * The response of `archive_episode`.
 */
export type EpisodeResponse = {
  /**
   * Always true.
   */
  ok: true,
  /**
   * The new episode's id (`ep:<id>`).
   */
  episode_id: number,
};

/**
 * The response of `declare_associations`.
 */
export type DeclareResponse = {
  /**
   * Always true.
   */
  ok: true,
  /**
   * `"declared"`.
   */
  result: "declared",
  /**
   * What was retracted, when `retract` was given.
   */
  retracted?: Retracted,
  /**
   * What was invalidated, when `invalidate` was given.
   */
  invalidated?: Invalidated,
  /**
   * The entities named, in declaration order.
   */
  entities: Array<DeclaredEntity>,
  /**
   * Mentions recorded (one per entity when there is an anchor).
   */
  mentions: number,
  /**
   * Ids of the relations declared (existing ones included), in declaration order.
   */
  relations: Array<number>,
  /**
   * Current relations a declared one may contradict: same subject and single-valued
   * predicate, another object. Both are kept; the agent decides which to invalidate.
   */
  conflicts?: Array<Conflict>,
  /**
   * Items not applied, and why: the first 100.
   */
  dropped: Array<Dropped>,
  /**
   * How many more items were not applied, past the 100 listed.
   */
  dropped_omitted?: number,
};

/**
 * One entity of a traverse neighbourhood.
 */
export type TraverseEntity = {
  /**
   * Its id.
   */
  id: number,
  /**
   * Its canonical name.
   */
  name: string,
  /**
   * Relations between it and the nearest start.
   */
  hops: number,
  /**
   * Its aliases as written, in normalized order.
   */
  aliases?: Array<string>,
  /**
   * Readable records that mention it, lowest id first, at most `limit`.
   */
  mentions?: Array<string>,
  /**
   * Readable mentioning records past `limit`.
   */
  mentions_omitted?: number,
};

/**
 * One relation of a traverse neighbourhood.
 */
export type TraverseRelation = {
  /**
   * Its id (what `retract` takes).
   */
  id: number,
  /**
   * The subject entity's id.
   */
  subject: number,
  /**
   * The predicate, normalized.
   */
  predicate: string,
  /**
   * The object entity's id.
   */
  object: number,
  /**
   * Who declared it.
   */
  declared_by: DeclaredBy,
  /**
   * When it was declared.
   */
  declared_at: string,
  /**
   * The record that evidences it, when there is one.
   */
  anchor_ref?: string,
  /**
   * When it began to hold (absent: since always).
   */
  valid_from?: string,
  /**
   * When it stopped holding (absent: it still holds).
   */
  valid_to?: string,
  /**
   * Who closed it by an invalidation.
   */
  closed_by?: DeclaredBy,
  /**
   * When it was closed.
   */
  closed_at?: string,
  /**
   * Why it was closed.
   */
  closed_reason?: string,
};

/**
 * What a bounded read cut.
 */
export type Bounds = {
  /**
   * The bounds that cut something: `max_hops`, `limit`.
   */
  omitted: ("max_hops" | "limit")[],
  /**
   * Relations around the neighbourhood left out because they did not hold at the read's
   * instant (`as_of`, or now).
   */
  not_holding?: number,
};

/**
 * Why a traverse returned no neighbourhood.
 */
export type TraverseReason = "no_such_entity";

/**
 * The response of `traverse`.
 */
export type TraverseResponse = {
  /**
   * The entity as the caller wrote it.
   */
  entity: string,
  /**
   * The hop bound applied.
   */
  max_hops: number,
  /**
   * The limit applied.
   */
  limit: number,
  /**
   * The neighbourhood, by hops, then most recently declared reaching relation, then id.
   */
  entities: Array<TraverseEntity>,
  /**
   * Relations whose both ends are returned, most recently declared first.
   */
  relations: Array<TraverseRelation>,
  /**
   * Entities within the hop bound that `limit` cut.
   */
  entities_omitted?: number,
  /**
   * Present when a bound cut something, or the read's instant left relations out.
   */
  bounds?: Bounds,
  /**
   * `no_such_entity` when the name resolves to nothing the call can read.
   */
  reason?: TraverseReason,
};

/**
 * The entity a timeline is of.
 */
export type HistoryEntity = {
  /**
   * Its id.
   */
  id: number,
  /**
   * Its canonical name.
   */
  name: string,
};

/**
 * One relation of a timeline: the relation as traverse returns it, and its ends' names.
 */
export type HistoryRelation = {
  /**
   * The subject entity's name.
   */
  subject_name: string,
  /**
   * The object entity's name.
   */
  object_name: string,
  /**
   * Its id (what `retract` takes).
   */
  id: number,
  /**
   * The subject entity's id.
   */
  subject: number,
  /**
   * The predicate, normalized.
   */
  predicate: string,
  /**
   * The object entity's id.
   */
  object: number,
  /**
   * Who declared it.
   */
  declared_by: DeclaredBy,
  /**
   * When it was declared.
   */
  declared_at: string,
  /**
   * The record that evidences it, when there is one.
   */
  anchor_ref?: string,
  /**
   * When it began to hold (absent: since always).
   */
  valid_from?: string,
  /**
   * When it stopped holding (absent: it still holds).
   */
  valid_to?: string,
  /**
   * Who closed it by an invalidation.
   */
  closed_by?: DeclaredBy,
  /**
   * When it was closed.
   */
  closed_at?: string,
  /**
   * Why it was closed.
   */
  closed_reason?: string,
};

/**
 * The response of `history`.
 */
export type HistoryResponse = {
  /**
   * The entity the name resolves to (the first, by id, when it names one in several
   * buckets the call reads: the timeline has the relations of each).
   */
  entity?: HistoryEntity,
  /**
   * One page of relations, by when each began to hold (or was declared), then id.
   */
  relations: Array<HistoryRelation>,
  /**
   * Relations on the entity in all.
   */
  total: number,
  /**
   * The `offset` of the next page, when there is one.
   */
  next_offset?: number,
  /**
   * `no_such_entity` when the name resolves to nothing the call can read.
   */
  reason?: TraverseReason,
};

/**
 * One record of `get_contents`.
 */
export type ContentItem = {
  /**
   * `mem:<id>` or `ep:<id>`.
   */
  ref: string,
  /**
   * The full text (an episode's summary).
   */
  content: string,
  /**
   * Where it came from (an episode: `{type: "Episode", id: <its ref>, name: ""}`).
   */
  source: RecordSource,
  /**
   * When it happened.
   */
  timestamp: string,
  /**
   * The caller's metadata, when the memory has some.
   */
  metadata?: Record<string, unknown>,
  /**
   * When it expires (UTC), when it does.
   */
  expires_at?: string,
  /**
   * When it was declared no longer true (UTC), when it was.
   */
  invalid_at?: string,
  /**
   * Why it was, when it was.
   */
  invalid_reason?: string,
};

/**
 * The response of `get_contents`.
 */
export type GetContentsResponse = {
  /**
   * The records found, in request order.
   */
  items: Array<ContentItem>,
  /**
   * Refs that name nothing this agent has, or a record that did not hold at `as_of`
   * (expired or invalidated by then), as given.
   */
  missing: Array<string>,
  /**
   * `items.len()`.
   */
  count: number,
};

/**
 * The response of the delete operations.
 */
export type DeleteResponse = {
  /**
   * Always true; deleting nothing is an error.
   */
  ok: true,
  /**
   * The id deleted.
   */
  deleted_id: number,
};

/**
 * One entity of `list_entities`.
 */
export type ListedEntity = {
  /**
   * Its id.
   */
  id: number,
  /**
   * Its canonical name.
   */
  name: string,
  /**
   * Its aliases as written, in normalized order.
   */
  aliases: Array<string>,
  /**
   * How many records mention it (readable or not).
   */
  mentions: number,
  /**
   * How many relations name it as subject or object and hold at the read's instant.
   */
  relations: number,
  /**
   * Who registered it.
   */
  declared_by: DeclaredBy,
  /**
   * When it was registered.
   */
  created_at: string,
  /**
   * Its project (`''`: global pool).
   */
  project_id: string,
  /**
   * Its channel (`''`: every channel).
   */
  channel: string,
};

/**
 * The response of `list_entities`.
 */
export type ListEntitiesResponse = {
  /**
   * One page, by normalized name then id.
   */
  entities: Array<ListedEntity>,
  /**
   * Entities matching in all.
   */
  total: number,
  /**
   * The `offset` of the next page, when there is one.
   */
  next_offset?: number,
  /**
   * What the page's `relations` counts left out, summed over its entities: relations that
   * did not hold at the read's instant (`as_of`, or now).
   */
  not_holding?: number,
};

/**
 * One memory of `list_memories`.
 */
export type ListedMemory = {
  /**
   * Its id (`mem:<id>`).
   */
  id: number,
  /**
   * Its text, or its first `max_content` characters.
   */
  content: string,
  /**
   * True when `content` is cut to `max_content`.
   */
  truncated?: boolean,
  /**
   * When it happened (UTC).
   */
  timestamp: string,
  /**
   * When it was stored (UTC).
   */
  created_at: string,
  /**
   * Where it came from (`{type, id, name}`).
   */
  source: RecordSource,
  /**
   * The caller's metadata, when it has some.
   */
  metadata?: Record<string, unknown>,
  /**
   * Its project (`''`: global pool).
   */
  project_id: string,
  /**
   * Its channel (`''`: every channel).
   */
  channel: string,
  /**
   * When it expires (UTC), when it does.
   */
  expires_at?: string,
  /**
   * When it was declared no longer true (UTC), when it was.
   */
  invalid_at?: string,
  /**
   * Why it was, when it was.
   */
  invalid_reason?: string,
};

/**
 * The response of `list_memories`.
 */
export type ListMemoriesResponse = {
  /**
   * One page, newest first.
   */
  memories: Array<ListedMemory>,
  /**
   * Memories on this page.
   */
  count: number,
  /**
   * Memories the call can read in all (that hold at its instant).
   */
  total: number,
  /**
   * The `offset` of the next page, when there is one.
   */
  next_offset?: number,
  /**
   * Memories of the scope the read's instant left out: expired or invalidated by then
   * (by now, without `as_of`); absent when none.
   */
  not_holding?: number,
};

/**
 * One agent of `list_agents`, its counts over every project and channel.
 */
export type ListedAgent = {
  /**
   * Its id.
   */
  agent_id: string,
  /**
   * Memories it holds.
   */
  memories: number,
  /**
   * Episodes it holds.
   */
  episodes: number,
  /**
   * Entities it registered.
   */
  entities: number,
  /**
   * Relations it declared.
   */
  relations: number,
};

/**
 * The response of `list_agents`.
 */
export type ListAgentsResponse = {
  /**
   * One page, by `agent_id`.
   */
  agents: Array<ListedAgent>,
  /**
   * Agents in all.
   */
  total: number,
  /**
   * The `offset` of the next page, when there is one.
   */
  next_offset?: number,
};

/**
 * The response of `update_memory`.
 */
export type UpdateMemoryResponse = {
  /**
   * Always true; updating nothing is an error.
   */
  ok: true,
  /**
   * The id updated.
   */
  updated_id: number,
};

/**
 * The response of `delete_agent_data`: how many rows of each kind went.
 */
export type DeleteAgentDataResponse = {
  /**
   * Always true; an agent without data deletes nothing and says so with zeros.
   */
  ok: true,
  /**
   * The agent.
   */
  agent_id: string,
  /**
   * Memories deleted.
   */
  deleted_memories: number,
  /**
   * Episodes deleted.
   */
  deleted_episodes: number,
  /**
   * Entities deleted (with their aliases and mentions).
   */
  deleted_entities: number,
  /**
   * Relations deleted.
   */
  deleted_relations: number,
};

/**
 * The response of `purge_expired`: how many rows of each kind went (zeros when nothing had
 * expired).
 */
export type PurgeExpiredResponse = {
  /**
   * Memories deleted.
   */
  memories: number,
  /**
   * Episodes deleted.
   */
  episodes: number,
  /**
   * Mentions of them deleted.
   */
  mentions: number,
  /**
   * Relations deleted: those anchored on them, or with one of them as an end.
   */
  relations: number,
};

/**
 * The response of `export_memories`.
 */
export type ExportMemoriesResponse = {
  /**
   * Always true.
   */
  ok: true,
  /**
   * The export: one JSON object per line, the header first.
   */
  jsonl: string,
  /**
   * Memories exported.
   */
  memories: number,
  /**
   * Episodes exported.
   */
  episodes: number,
  /**
   * Entities exported (with their aliases).
   */
  entities: number,
  /**
   * Mentions exported.
   */
  mentions: number,
  /**
   * Relations exported.
   */
  relations: number,
  /**
   * Predicates declared single-valued (or multi-valued again) exported, when there are.
   */
  predicates?: number,
};

/**
 * The response of `import_memories`: what was brought in (or, dry, would be).
 */
export type ImportMemoriesResponse = {
  /**
   * Always true; a refused import is an error and wrote nothing.
   */
  ok: true,
  /**
   * True when nothing was written (`dry_run`).
   */
  dry_run?: boolean,
  /**
   * The file's format, from its header (`cpersona-export/1.1`).
   */
  version: string,
  /**
   * Memories imported.
   */
  memories: number,
  /**
   * Episodes imported.
   */
  episodes: number,
  /**
   * Entities declared (with their aliases).
   */
  entities: number,
  /**
   * Mentions declared.
   */
  mentions: number,
  /**
   * Relations declared.
   */
  relations: number,
  /**
   * Predicates declared single-valued or multi-valued, when the file had some.
   */
  predicates?: number,
  /**
   * Items not applied, and why: the first 100.
   */
  dropped: Array<Dropped>,
  /**
   * How many more items were not applied, past the 100 listed.
   */
  dropped_omitted?: number,
};

/**
 * A record to embed.
 */
export type BacklogRecord = {
  /**
   * `mem:<id>` or `ep:<id>`.
   */
  ref: string,
  /**
   * The text to embed: a memory's content, an episode's summary.
   */
  text: string,
};

/**
 * The response of `embedding_backlog`.
 */
export type EmbeddingBacklogResponse = {
  /**
   * The first records of the backlog.
   */
  records: Array<BacklogRecord>,
  /**
   * Records in the backlog in all; counted only for a call without `after`.
   */
  total?: number,
};

/**
 * The response of `set_embeddings`.
 */
export type SetEmbeddingsResponse = {
  /**
   * Always true; a malformed call is an error.
   */
  ok: true,
  /**
   * Records updated.
   */
  updated: number,
  /**
   * Refs that named no record, as given.
   */
  missing: Array<string>,
};

/**
 * Why recall returned a row.
 */
export type MatchReason = {
  /**
   * `rrf`: the reciprocal-rank score of the lexical arms; `hybrid` (a query embedding
   * was given and the vector arm ranked rows): each lexical arm's score rescaled over its
   * rows (first 1, last 0) plus 0.16 times the row's cosine z-score over every record
   * compared (negative for a row farther from the query than average).
   */
  signal: string,
  /**
   * The fused score.
   */
  score: number,
  /**
   * The row's rank in each arm that ranked it (`lexical`, `episodes`, `vector`).
   */
  ranks: { lexical?: number; episodes?: number; vector?: number },
  /**
   * The reranker's score, when the call's `rerank` scored it (it then ranks by this).
   */
  rerank?: number,
};

/**
 * One row of `recall`.
 */
export type RecalledMessage = {
  /**
   * `mem:<id>` or `ep:<id>`.
   */
  ref: string,
  /**
   * The record's text (an episode's summary).
   */
  content: string,
  /**
   * Where it came from.
   */
  source: RecordSource,
  /**
   * When it happened.
   */
  timestamp: string,
  /**
   * Why it was returned.
   */
  match_reason: MatchReason,
  /**
   * When it expires (UTC), when it does.
   */
  expires_at?: string,
  /**
   * When it was declared no longer true (UTC), when it was.
   */
  invalid_at?: string,
  /**
   * Why it was, when it was.
   */
  invalid_reason?: string,
};

/**
 * The response of `recall`.
 */
export type RecallResponse = {
  /**
   * Most relevant first.
   */
  messages: Array<RecalledMessage>,
  /**
   * Rows retrieval found that the admission threshold left out (absent when none).
   */
  gated?: number,
  /**
   * Records the vector arm skipped for another dimension than the query's, their model
   * being the query's (absent when none).
   */
  dimension_skipped?: number,
  /**
   * Records the vector arm skipped for another model than `query_embedding_model` (absent
   * when none).
   */
  model_skipped?: number,
  /**
   * Records of the scope the read's instant left out: expired or invalidated by then
   * (by now, without `as_of`), whether or not they match the query (absent when none).
   */
  not_holding?: number,
};

/**
 * What a referenced row is to a claim (the ref is the subject).
 */
export type Role = {
  /**
   * The referenced row.
   */
  ref: string,
  /**
   * `supports`, `supersedes`, `corrects`, `qualifies`, `contradicts`, `temporal_predecessor`.
   */
  role: string,
};

/**
 * One record an item stands on.
 */
export type Claim = {
  /**
   * `mem:<id>` or `ep:<id>`.
   */
  ref: string,
  /**
   * When it holds (its timestamp).
   */
  as_of: string,
  /**
   * Why it is in the item: absent means `seed` (retrieval found it), `cluster:…` the key
   * that bundled it, `relation:<predicate>` the last relation the walk followed to it.
   */
  why?: string,
  /**
   * Relations the walk followed to reach it.
   */
  hops?: number,
  /**
   * Their relation ids, from the item's own entity outward (`hops` long): the exact
   * edges a graph view highlights. Absent for a record retrieval found.
   */
  path?: Array<number>,
  /**
   * The entity at the end of `path`: its mention of the record brought the record in.
   */
  via_entity?: number,
  /**
   * How other rows of the item relate to it.
   */
  roles?: Array<Role>,
  /**
   * When it expires (UTC), when it does.
   */
  expires_at?: string,
  /**
   * When it was declared no longer true (UTC), when it was.
   */
  invalid_at?: string,
  /**
   * Why it was, when it was.
   */
  invalid_reason?: string,
};

/**
 * The text of a non-head claim.
 */
export type Excerpt = {
  /**
   * The claim's ref.
   */
  ref: string,
  /**
   * Its text.
   */
  content: string,
};

/**
 * How much of its head record an item quotes.
 */
export type QuoteBasis = "whole" | "truncated";

/**
 * One reconstructed item: a head record quoted, and the claims it stands on.
 */
export type ReconstructedItem = {
  /**
   * The head record's text (cut to the budget when it had to be).
   */
  content: string,
  /**
   * The head record.
   */
  head_ref: string,
  /**
   * Every retained claim, newest first.
   */
  claims: Array<Claim>,
  /**
   * Claims past `max_evidence`.
   */
  claims_omitted?: number,
  /**
   * The cluster key that formed the item (`cluster:episode`, `cluster:adjacent`,
   * `cluster:relation`); absent means `singleton`.
   */
  independence_reason?: string,
  /**
   * `whole`, or `truncated` when the budget cut the head (with `trace` only).
   */
  quote_basis?: QuoteBasis,
  /**
   * Character ranges of the head record that `content` quotes.
   */
  ranges: Array<[number, number]>,
  /**
   * The other claims' texts, as far as the budget allowed.
   */
  excerpts?: Array<Excerpt>,
  /**
   * Excerpts the budget left out.
   */
  excerpts_omitted?: number,
};

/**
 * The bounds reconstruct applied, and what they cut.
 */
export type ReconstructBounds = {
  /**
   * Candidate depth applied.
   */
  top_k: number,
  /**
   * Hops applied.
   */
  max_hops: number,
  /**
   * Claims per item applied.
   */
  max_evidence: number,
  /**
   * Bounds that cut something: `max_hops`, `max_evidence`.
   */
  omitted?: ("max_hops" | "max_evidence")[],
  /**
   * Bounds that were met where what lay beyond is not known: `max_evidence`.
   */
  reached?: "max_evidence"[],
  /**
   * Options that were lowered to their cap.
   */
  lowered?: ("count" | "top_k" | "max_hops" | "max_evidence" | "budget")[],
  /**
   * Relations around the candidates and the walk left out because they did not hold at
   * the read's instant (`as_of`, or now).
   */
  not_holding?: number,
};

/**
 * Stage 1's cues: the entities the query named and the terms they added.
 */
export type Cues = {
  /**
   * Names of the entities whose name or alias the query contains.
   */
  entities: Array<string>,
  /**
   * Their other names, handed to the lexical arm.
   */
  terms: Array<string>,
};

/**
 * Why a reconstruction returned fewer items than its count.
 */
export type Shortfall = "no_relevant_evidence" | "budget_exhausted" | "exhausted_candidates";

/**
 * What reconstruct did, step by step (`trace: true`).
 */
export type Trace = {
  /**
   * Candidates retrieval admitted, most relevant first.
   */
  candidate_refs: Array<string>,
  /**
   * Clusters in item order.
   */
  clusters: Array<Array<string>>,
  /**
   * Stage 1's cues.
   */
  cues: Cues,
  /**
   * Rows the admission threshold left out (absent when none).
   */
  gated?: number,
};

/**
 * The response of `reconstruct`.
 */
export type ReconstructResponse = {
  /**
   * The items, most relevant first.
   */
  items: Array<ReconstructedItem>,
  /**
   * The item count applied.
   */
  effective_count: number,
  /**
   * `items.len()`.
   */
  returned_count: number,
  /**
   * Bounds applied, when one cut something, was lowered, the read's instant left relations
   * out, or `trace` asked.
   */
  bounds?: ReconstructBounds,
  /**
   * Why fewer items than `effective_count` came back.
   */
  shortfall_reason?: Shortfall,
  /**
   * The budget applied, when it cut something or `trace` asked.
   */
  effective_budget?: number,
  /**
   * Characters quoted, when the budget cut something or `trace` asked.
   */
  used_budget?: number,
  /**
   * Steps of the reconstruction, with `trace: true`.
   */
  trace?: Trace,
};
