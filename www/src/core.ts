// The package's API on every runtime: `init`, `openMemory`, the memory object with one
// async method per operation, scoped agent handles, and the tool definitions. The entry
// points (index.ts, node.ts, workerd.ts) differ only in where the .wasm comes from, and
// node.ts in which of the package's two modules (engine.ts).

import type { GetContentsResponse, RecallResponse, ReconstructResponse, RerankScore, EmbeddingBacklogResponse, StoreItem, StoreManyOptions, StoreManyResponse, ExportMemoriesResponse, ImportMemoriesOptions, ImportMemoriesResponse, DeleteAgentDataResponse } from './types.js';
import { OPERATIONS, type Agented, type HandleMethods, type Operation, type OperationMethods, type OperationName, type Operations, type Scoped } from './operations.js';
import type { Key, Progress } from './rpc.js';
import { localBackend, opfsBackend, remoteBackend, WRITES, type Backend, type SyncBackend } from './backend.js';
import { engine, useGlue, type Glue } from './engine.js';
import { memoryError } from './errors.js';
import type { MemorySync, SyncOptions } from './sync.js';
import { checkToolCall, formatTools, toolDefinitions, type ToolDefinitions, type ToolFormat, type ToolName, type ToolSelection, type ToolsOptions } from './tools.js';

/** What `init` accepts: the module's bytes, a compiled module, a response or its URL. */
export type WasmSource = WebAssembly.Module | BufferSource | Response | Promise<Response> | URL | string;

/** Turns texts into embeddings (one vector per text), e.g. with a local model. */
export type Embed = (texts: string[]) => Promise<ArrayLike<number>[]> | ArrayLike<number>[];

/**
 * An embedder and the name of its model (for example `'all-MiniLM-L6-v2'`, 1–256
 * characters). The name is stored with every vector it makes and sent with every query
 * vector, and the engine compares a query only with vectors of its model: vectors of two
 * models of the same dimension are never mixed. After changing models, `reembed()`.
 */
export interface NamedEmbed {
  model: string;
  embed: Embed;
}

/** A candidate a reranker scores: a record's ref and its text. */
export interface RerankCandidate {
  ref: string;
  content: string;
}

/**
 * Scores `candidates` for `query`, one finite number each, higher ranking first: for
 * example a cross-encoder's relevance. The same scores give the same order.
 */
export type Rerank = (query: string, candidates: RerankCandidate[]) => Promise<ArrayLike<number>> | ArrayLike<number>;

/** Where a memory's database lives. */
export type Storage = 'memory' | 'opfs' | 'file' | 'remote' | 'durable-object';

/** Options of `openMemory`. */
export interface OpenOptions {
  /**
   * `'memory'` (default): an in-memory database on this thread; save it with `export()`.
   * `'opfs'`: a database in the Origin Private File System, held by a dedicated Worker;
   * browsers only, in a secure context. It never falls back to memory: where OPFS is
   * unavailable, open fails with code `opfs_unavailable`. If the engine ever traps (runs
   * out of memory), calls reject with `engine_crashed`: in memory, every later call of the
   * realm's memories too (their contents are lost; a memory opened after gets a new engine);
   * in OPFS, the worker is restarted on the file, which keeps every acknowledged write.
   * `'file'`: a database in the file at `path`, in Node (and Bun and Deno), on this thread;
   * an acknowledged write survives the process being killed, and, about a second later, a
   * power loss. One process opens a file at a time: another opener gets `already_open`.
   * `'remote'`: a memory hosted elsewhere (a `MemoryObject` of
   * `associative-memory/durable-object`), at `url` with `token`, in any runtime with `fetch`.
   */
  storage?: 'memory' | 'opfs' | 'file' | 'remote';
  /**
   * The OPFS memory's name (1–64 of `A–Z a–z 0–9 . _ -`), default `'default'`. Every tab
   * may open it: one holds it (its worker), the others' calls go to that worker, and
   * another takes over when it closes.
   */
  name?: string;
  /**
   * With storage `'file'`: the database file's path (a relative one from the working
   * directory). Its log (`-wal`, while it is open), a journal (`-journal`, briefly) and its
   * lock file (`-lock`) go beside it.
   */
  path?: string;
  /**
   * With storage `'remote'`: the hosted memory's URL, the prefix its routes hang from
   * (`https://example.com/m/team`, which answers `POST …/call`).
   */
  url?: string;
  /** With storage `'remote'`: the bearer token (an agent's, or the owner's `ADMIN_SECRET`). */
  token?: string;
  /** The time in epoch milliseconds, for every write's stamp; default `Date.now`. */
  clock?: () => number;
  /**
   * Called to fill `embedding` on store and `query_embedding` on recall / reconstruct when
   * absent: a function, or `{ model, embed }` to name its model (stored with each vector as
   * `embedding_model`, sent with queries as `query_embedding_model`).
   */
  embed?: Embed | NamedEmbed;
  /**
   * Called on every recall and reconstruct that carries no `rerank` of its own, with the
   * query and its first `rerankDepth` candidates (retrieval's order, with their texts): the
   * call then ranks the candidates it scored by its scores, ahead of the rest, before the
   * cut (recall's `limit`; reconstruct's items follow the new order). It costs one more
   * engine call (reconstruct: two, to read the candidates' texts), and the reranker's time.
   */
  rerank?: Rerank;
  /** Candidates `rerank` is given: 1–100, default 20 (reconstruct has `top_k` of them at most). */
  rerankDepth?: number;
  /**
   * Encrypts the memory at rest (SQLite3 Multiple Ciphers, ChaCha20-Poly1305): 32 raw
   * bytes, used as the key as they are (a passkey's PRF output, a key the app keeps), or
   * a passphrase, from which a key is derived on every open. With `'opfs'` every page in
   * OPFS is encrypted; with `'memory'` the database is in this page's memory and its
   * `export()` bytes are encrypted. The key stays in the engine (and the OPFS worker);
   * it is never in an error or a log. A memory opened with another key fails with
   * `wrong_key`, an encrypted one opened without a key with `encrypted`.
   */
  key?: Key;
  /**
   * Keeps this memory in step with the memory's other devices through a sync relay
   * (`MemoryRelay`, associative-memory/durable-object): `{ url, memory }`, the relay's
   * WebSocket URL and the memory's sync id. Storage `'memory'` and `'file'`; needs `key`,
   * from which (with `memory`) the seal key and the relay's token are derived: the relay only
   * ever holds ciphertext. `memory.sync` says where it stands (www/README.md, "Sync").
   */
  sync?: SyncOptions;
}

/** Options of `export`. */
export interface ExportOptions {
  /** An encrypted memory's bytes decrypted (plain SQLite bytes); ignored for a plain memory. */
  decrypt?: boolean;
}

/** Options of `import`. */
export interface ImportOptions {
  /**
   * The key encrypted bytes (an encrypted memory's `export()`) were encrypted with; by
   * default the memory's own.
   */
  key?: Key;
  /**
   * Into a memory without a key, encrypted bytes (with their `key`) are imported only with
   * `decrypt: true`, which keeps their plaintext (its exports are plain); without it they
   * are refused (`invalid_value`, field `decrypt`). A memory with a key keeps it either way.
   */
  decrypt?: boolean;
}

/** How far a `storeMany` has got: `done` of its `total` memories written. */
export type StoreManyProgress = Progress;

/** Options of `reembed`. */
export interface ReembedOptions {
  /** Called after each batch is written: `done` of `total` records re-embedded so far. */
  onProgress?: (progress: Progress) => void;
  /** Texts given to `embed` at once, and records written per transaction: 1–500, default 64. */
  batchSize?: number;
}

/** Options of `storeMany` besides the memories. */
export interface StoreManyCallOptions {
  /**
   * Called as memories are written: at least every 250 ms of a long batch (the engine
   * reports every 100 ms) and once with `done === total`. The batch is committed only when
   * the promise resolves.
   */
  onProgress?: (progress: StoreManyProgress) => void;
}

/** Texts `embed` is given at once when `storeMany` fills the embeddings it lacks. */
const EMBED_BATCH = 64;

/** The isolation axes a scoped handle fixes (SPEC §3). */
export interface Scope { project_id?: string; channel?: string }

let ready: Promise<void> | null = null;
/** How this entry opens storage 'file', and the path it opened (made absolute); none but in Node's entry. */
type OpenFile = (path: string, clock?: () => number, key?: Key) => { backend: Backend; path: string };
let openFile: OpenFile | null = null;
let defaultSource: () => Promise<WasmSource | undefined> = async () => undefined;

/**
 * @internal For the entry points: where `init()` without arguments gets the .wasm, and,
 * when the entry loads another module than the size-built one, that module's glue.
 */
export function setDefaultWasm(source: () => Promise<WasmSource | undefined>, glue?: Glue): void {
  defaultSource = source;
  if (glue !== undefined) useGlue(glue);
}

/** @internal For the Node entry: how storage 'file' is opened. */
export function useFiles(open: OpenFile): void {
  openFile = open;
}

/**
 * Loads the WebAssembly module; `openMemory` calls it for you. Call it yourself only to
 * pass the module where the default cannot find it: the bytes, a compiled
 * `WebAssembly.Module` (an edge worker's wasm import) or a URL. Calling it again is
 * harmless. In Node the package runs the module built for speed,
 * `associative_memory_node_bg.wasm`, which `associative-memory/associative_memory_bg.wasm`
 * resolves to there; given the other module, it rejects with code `wrong_module`.
 *
 * ```ts
 * import wasm from 'associative-memory/associative_memory_bg.wasm';
 * await init(wasm);
 * ```
 */
export function init(source?: WasmSource): Promise<void> {
  if (source !== undefined) ready = engine().default({ module_or_path: source }).then(() => undefined, (e) => { throw notLoadable(e); });
  // A compiled module from the entry (Node's, workerd's) is instantiated directly: the
  // glue's loader asks whether it was given a `Response` first, and in Node the first look at
  // the global `Response` loads its whole fetch implementation (undici, with http, tls and
  // http2: 10–20 ms of a cold start).
  ready ??= defaultSource().then((s) => (s instanceof WebAssembly.Module ? engine().initSync({ module: s }) : engine().default(s === undefined ? undefined : { module_or_path: s }))).then(() => undefined);
  ready.catch(() => { ready = null; });
  return ready;
}

/**
 * A module `init` was given that the entry's glue could not instantiate: each of the
 * package's two modules imports from its own glue, so the other one fails to link (a
 * `TypeError` or `LinkError` naming the import), which says nothing of the cause.
 */
function notLoadable(e: unknown): unknown {
  if (!(e instanceof TypeError || e instanceof WebAssembly.LinkError)) return e;
  return memoryError('wrong_module', `init could not load the module it was given (${e.message}): give it the package's .wasm for this runtime, 'associative-memory/associative_memory_bg.wasm' as the package's exports resolve it (in Node, associative_memory_node_bg.wasm)`);
}

/**
 * Opens a memory.
 *
 * ```ts
 * const memory = await openMemory({ storage: 'opfs', name: 'notes' });
 * const bot = memory.agent('pm-bot');
 * await bot.store({ content: 'Kaito maintains the ledger.' });
 * ```
 * @throws `AssociativeMemoryError` with code `opfs_unavailable` (no OPFS here),
 * `file_unavailable` (storage 'file' outside Node's entry), `already_open` (another tab
 * holds this OPFS memory and cannot share it: no BroadcastChannel here, or another version
 * of this package; another process, or this one, has this file open), `wrong_key` (`key`
 * does not open this memory), `encrypted` (it is encrypted and no `key` was given),
 * `missing_field` or `invalid_value` (naming the option).
 */
export async function openMemory(options: OpenOptions = {}): Promise<AssociativeMemory> {
  const { storage = 'memory', name = 'default', clock, embed, key, url, token, path } = options;
  for (const option of Object.keys(options)) {
    if (!['storage', 'name', 'clock', 'embed', 'rerank', 'rerankDepth', 'key', 'url', 'token', 'path', 'sync'].includes(option)) throw memoryError('unknown_option', `openMemory has no option ${JSON.stringify(option)}`, option);
  }
  checkKey(key, true);
  if (options.sync !== undefined) {
    if (storage !== 'memory' && storage !== 'file') {
      throw memoryError('invalid_value', `sync takes storage 'memory' or 'file' (the engine on this thread); storage ${JSON.stringify(storage)} does not sync`, 'sync');
    }
    if (key === undefined) throw memoryError('missing_field', "sync needs key: changes are sealed with keys derived from it, so the relay only ever holds ciphertext", 'key');
  }
  const embedder = { ...checkEmbed(embed), ...checkRerank(options.rerank, options.rerankDepth) };
  let backend: Backend;
  if (storage === 'remote') {
    for (const [field, value] of [['url', url], ['token', token]] as const) {
      if (typeof value !== 'string' || value.length === 0) throw memoryError(value === undefined ? 'missing_field' : 'invalid_value', `storage 'remote' needs ${field}, a string`, field);
    }
    for (const [field, value] of [['clock', clock], ['key', key]] as const) {
      if (value !== undefined) throw memoryError('invalid_value', `storage 'remote' takes no ${field}: the host's ${field === 'key' ? 'MEMORY_KEY' : 'clock'} is used`, field);
    }
    try {
      new URL(url!);
    } catch {
      throw memoryError('invalid_value', `url must be an absolute URL, got ${JSON.stringify(url)}`, 'url');
    }
    return new AssociativeMemory(remoteBackend(url!, token!), 'remote', url, embedder);
  }
  for (const [field, value] of [['url', url], ['token', token]] as const) {
    if (value !== undefined) throw memoryError('invalid_value', `${field} is for storage 'remote'`, field);
  }
  if (storage === 'file') {
    if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) {
      throw memoryError(path === undefined ? 'missing_field' : 'invalid_value', "storage 'file' needs path, the database file's path (a string without NUL)", 'path');
    }
    if (options.name !== undefined) throw memoryError('invalid_value', "storage 'file' is named by its path; name is for storage 'opfs'", 'name');
    if (openFile === null) throw memoryError('file_unavailable', "storage 'file' needs Node's file system (the package's Node entry; Bun and Deno use it too); use 'opfs' in browsers");
    await init();
    const opened = openFile(path, clock, key);
    return syncing(opened.backend, options, (b, sync) => new AssociativeMemory(b, 'file', opened.path, { ...embedder, sync }));
  }
  if (path !== undefined) throw memoryError('invalid_value', "path is for storage 'file'", 'path');
  if (storage === 'memory') {
    await init();
    return syncing(localBackend(clock, key), options, (b, sync) => new AssociativeMemory(b, 'memory', undefined, { ...embedder, sync }));
  } else if (storage === 'opfs') {
    backend = await opfsBackend(name, clock, key);
  } else {
    throw memoryError('invalid_value', `storage must be 'memory', 'opfs', 'file' or 'remote', got ${JSON.stringify(storage)}`, 'storage');
  }
  return new AssociativeMemory(backend, storage, storage === 'opfs' ? name : undefined, embedder);
}

/**
 * The memory `make` builds over `backend`, syncing when `options.sync` says so (sync.ts, loaded
 * only then): its writes then pass `syncWrites`. A sync that cannot start closes the backend.
 */
async function syncing(backend: Backend, options: OpenOptions, make: (backend: Backend, sync?: MemorySync) => AssociativeMemory): Promise<AssociativeMemory> {
  if (options.sync === undefined) return make(backend);
  try {
    const { MemorySync: Sync, checkSyncOptions, syncWrites } = await import('./sync.js');
    const sync = await Sync.open(backend as SyncBackend, options.key!, checkSyncOptions(options.sync));
    return make(syncWrites(backend, sync, WRITES), sync);
  } catch (e) {
    await backend.close();
    throw e;
  }
}

/**
 * `options` with a typed array (a `Float32Array` from an embedder) under `embedding` or
 * `query_embedding` made a plain array: options cross to the engine as JSON, where a typed
 * array would be an object.
 */
function arrays(options: Record<string, unknown>): Record<string, unknown> {
  for (const key of ['embedding', 'query_embedding']) {
    if (ArrayBuffer.isView(options[key])) options[key] = Array.from(options[key] as unknown as ArrayLike<number>);
  }
  return options;
}

/** `rerank` and its depth, or a typed error naming what is wrong. */
function checkRerank(rerank: unknown, depth: unknown): { rerank?: { rerank: Rerank; depth: number } } {
  if (rerank !== undefined && typeof rerank !== 'function') throw memoryError('invalid_value', 'rerank must be a function (query, candidates) => scores', 'rerank');
  if (depth !== undefined && (!Number.isInteger(depth) || (depth as number) < 1 || (depth as number) > 100)) {
    throw memoryError('out_of_range', `rerankDepth must be an integer of 1–100, got ${JSON.stringify(depth)}`, 'rerankDepth');
  }
  if (depth !== undefined && rerank === undefined) throw memoryError('invalid_value', 'rerankDepth is for rerank, which is not given', 'rerankDepth');
  return rerank === undefined ? {} : { rerank: { rerank: rerank as Rerank, depth: (depth as number | undefined) ?? 20 } };
}

/** `embed` as a function and its model's name, or a typed error naming what is wrong. */
function checkEmbed(embed: unknown): { embed: Embed; model?: string } | undefined {
  if (embed === undefined || typeof embed === 'function') return embed === undefined ? undefined : { embed: embed as Embed };
  const named = embed as Partial<NamedEmbed> | null;
  if (typeof named !== 'object' || named === null || typeof named.embed !== 'function') {
    throw memoryError('invalid_value', 'embed must be a function or { model, embed }', 'embed');
  }
  if (typeof named.model !== 'string' || named.model.length === 0 || named.model.length > 256) {
    throw memoryError('invalid_value', 'embed.model must be a model name of 1–256 characters', 'embed.model');
  }
  return { embed: named.embed, model: named.model };
}

/**
 * Refuses what cannot be a key before it crosses to a worker: the engine checks it again
 * (32 bytes, a passphrase it can use). The message never holds the key.
 */
function checkKey(key: unknown, optional: boolean): asserts key is Key | undefined | null {
  if (key instanceof Uint8Array || typeof key === 'string' || (optional && key === undefined) || (!optional && key === null)) return;
  throw memoryError('invalid_value', `key must be a Uint8Array of 32 bytes or a passphrase string${optional ? '' : ', or null to decrypt'}`, 'key');
}

export type { Agented, Scoped };

/** Each operation by its tool name (`www/src/operations.ts`, generated from the engine's table). */
const BY_TOOL = new Map<string, Operation>(OPERATIONS.map((op) => [op.tool, op]));

/**
 * Defines on `prototype` a method for each operation `run` accepts, unless the class
 * writes its own (`storeMany`, say): the methods come from the table of operations.
 */
function defineMethods(prototype: object, run: (op: Operation) => boolean, body: (op: Operation) => (this: never, options?: object) => Promise<unknown>): void {
  for (const op of OPERATIONS) {
    if (op.method === null || !run(op) || Object.hasOwn(prototype, op.method)) continue;
    Object.defineProperty(prototype, op.method, { value: body(op), writable: true, configurable: true });
  }
}

// One method per operation, typed here and defined from the table by the class's static block.
export interface AssociativeMemory extends Omit<OperationMethods, 'storeMany'> {}
/** An open memory. Every operation is an async method with snake_case options and responses. */
export class AssociativeMemory {
  static {
    defineMethods(AssociativeMemory.prototype, () => true, (op) => function (this: AssociativeMemory, options?: object) { return this.call(op.tool, options ?? {}); });
  }

  #backend: Backend;
  #closed = false;
  readonly #embed?: Embed;
  readonly #model?: string;
  readonly #rerank?: { rerank: Rerank; depth: number };
  /** Where the database lives: `'memory'`, `'opfs'`, `'file'`, `'remote'`, or a Durable Object's storage. */
  readonly storage: Storage;
  /** The OPFS memory's name, the file's absolute path, the remote memory's URL, or the Durable Object's id; undefined in memory. */
  readonly name?: string;
  /** The memory's sync, when it was opened with `sync`: `status`, events, `now()` (www/README.md, "Sync"). */
  readonly sync?: MemorySync;

  /** @internal Use `openMemory` (or, in a Durable Object, `MemoryObject`). */
  constructor(backend: Backend, storage: Storage, name: string | undefined, hooks?: { embed?: Embed; model?: string; rerank?: { rerank: Rerank; depth: number }; sync?: MemorySync }) {
    this.#backend = backend;
    this.storage = storage;
    this.name = name;
    if (hooks?.sync) this.sync = hooks.sync;
    this.#embed = hooks?.embed;
    this.#model = hooks?.model;
    this.#rerank = hooks?.rerank;
  }

  /** `vector` as the engine takes it, with the model's name in `field` when `embed` has one. */
  #embedded(into: Record<string, unknown>, field: string, vector: ArrayLike<number>): void {
    into[field] = Array.from(vector);
    if (this.#model !== undefined) into[`${field}_model`] = this.#model;
  }

  /**
   * Runs one operation by its snake_case tool name (`store`, `archive_episode`, …),
   * filling embeddings from `embed` first.
   */
  async call(tool: string, options: object): Promise<unknown> {
    if (this.#closed) throw memoryError('closed', 'this memory is closed');
    const args = arrays({ ...options } as Record<string, unknown>);
    const embedding = BY_TOOL.get(tool)?.embedding;
    const text = embedding ? args[embedding.from] : undefined;
    if (this.#embed && embedding && !embedding.items && args[embedding.into] === undefined && typeof text === 'string') {
      const [vector] = await this.#embed([text]);
      if (!vector) throw memoryError('invalid_value', 'embed returned no vector', 'embed');
      this.#embedded(args, embedding.into, vector);
    }
    if (this.#rerank && (tool === 'recall' || tool === 'reconstruct') && args.rerank === undefined && typeof args.query === 'string') {
      args.rerank = await this.#scores(tool, args, this.#rerank);
    }
    return this.#backend.call(tool, args);
  }

  /** The `rerank` hook's scores for the first candidates of a recall or reconstruct. */
  async #scores(tool: string, args: Record<string, unknown>, { rerank, depth }: { rerank: Rerank; depth: number }): Promise<RerankScore[]> {
    let candidates: RerankCandidate[];
    if (tool === 'recall') {
      const limit = Math.max(typeof args.limit === 'number' ? args.limit : 10, depth);
      const first = (await this.#backend.call(tool, { ...args, limit })) as RecallResponse;
      candidates = first.messages.slice(0, depth).map((m) => ({ ref: m.ref, content: m.content }));
    } else {
      const first = (await this.#backend.call(tool, { ...args, trace: true })) as ReconstructResponse;
      const refs = (first.trace?.candidate_refs ?? []).slice(0, depth);
      const texts = new Map<string, string>();
      for (let i = 0; i < refs.length; i += 20) {
        const read = { agent_id: args.agent_id, refs: refs.slice(i, i + 20), ...(args.as_of === undefined ? {} : { as_of: args.as_of }) };
        for (const item of ((await this.#backend.call('get_contents', read)) as GetContentsResponse).items) texts.set(item.ref, item.content);
      }
      candidates = refs.flatMap((ref) => (texts.has(ref) ? [{ ref, content: texts.get(ref)! }] : []));
    }
    if (candidates.length === 0) return [];
    const scores = Array.from(await rerank(args.query as string, candidates));
    if (scores.length !== candidates.length || scores.some((score) => typeof score !== 'number' || !Number.isFinite(score))) {
      throw memoryError('invalid_value', `rerank returned ${scores.length} scores for ${candidates.length} candidates; it must return one finite number each`, 'rerank');
    }
    return candidates.map((c, i) => ({ ref: c.ref, score: scores[i]! }));
  }

  /**
   * Stores many memories in one transaction: every one, or none when an item is malformed
   * (the error's `field` names it, `items[37].content`); malformed associations are
   * dropped item by item, as `store` drops them. At most 10,000 memories per call. With
   * `embed`, the items without an embedding are embedded first, 64 texts at a time.
   */
  async storeMany(options: StoreManyOptions, { onProgress }: StoreManyCallOptions = {}): Promise<StoreManyResponse> {
    if (this.#closed) throw memoryError('closed', 'this memory is closed');
    const items = Array.isArray(options.items) ? options.items.map((item) => (item && typeof item === 'object' ? (arrays({ ...item }) as StoreItem) : item)) : options.items;
    if (this.#embed && Array.isArray(items)) {
      const missing = items.flatMap((item, i) => (item && item.embedding === undefined && typeof item.content === 'string' ? [i] : []));
      for (let start = 0; start < missing.length; start += EMBED_BATCH) {
        const at = missing.slice(start, start + EMBED_BATCH);
        const vectors = await this.#embed(at.map((i) => items[i]!.content));
        at.forEach((i, k) => {
          const vector = vectors[k];
          if (!vector) throw memoryError('invalid_value', `embed returned no vector for items[${i}]`, 'embed');
          this.#embedded(items[i] as Record<string, unknown>, 'embedding', vector);
        });
      }
    }
    return this.#backend.storeMany({ ...options, items }, onProgress) as Promise<StoreManyResponse>;
  }

  /**
   * Re-embeds, with `embed` (and its model), every record of every agent not already
   * embedded with that model: stored without a vector, or with one of another model or of
   * none named. A batch of `batchSize` texts at a time is embedded and written in one
   * transaction, so what was written stays if it stops, and calling it again goes on from
   * there. Resolves with how many records were re-embedded.
   * @throws `AssociativeMemoryError` with code `missing_field` (field `embed`) when the
   * memory was opened without `embed`, `invalid_value` when `embed` returns no vector for
   * a text.
   */
  async reembed({ onProgress, batchSize = 64 }: ReembedOptions = {}): Promise<{ reembedded: number }> {
    if (this.#closed) throw memoryError('closed', 'this memory is closed');
    if (!this.#embed) throw memoryError('missing_field', 'reembed needs the memory opened with `embed`', 'embed');
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 500) {
      throw memoryError('out_of_range', `batchSize must be an integer of 1–500, got ${batchSize}`, 'batchSize');
    }
    const model = this.#model === undefined ? {} : { model: this.#model };
    let after: string | undefined;
    let done = 0;
    let total = 0;
    for (;;) {
      const page = (await this.#backend.call('embedding_backlog', { ...model, limit: batchSize, ...(after === undefined ? {} : { after }) })) as EmbeddingBacklogResponse;
      total = Math.max(page.total ?? total, done + page.records.length);
      if (page.records.length === 0) break;
      const vectors = await this.#embed(page.records.map((r) => r.text));
      const items = page.records.map((r, i) => {
        const vector = vectors[i];
        if (!vector) throw memoryError('invalid_value', `embed returned no vector for ${r.ref}`, 'embed');
        return { ref: r.ref, embedding: Array.from(vector) };
      });
      await this.#backend.call('set_embeddings', { ...model, items });
      done += items.length;
      after = page.records.at(-1)!.ref;
      onProgress?.({ done, total });
    }
    return { reembedded: done };
  }

  /**
   * The whole database as SQLite bytes, to keep anywhere and `import` later: encrypted
   * when the memory has a key (readable only with it), unless `decrypt` is true.
   */
  async export({ decrypt = false }: ExportOptions = {}): Promise<Uint8Array> {
    if (this.#closed) throw memoryError('closed', 'this memory is closed');
    return this.#backend.exportBytes(decrypt === true);
  }
  /**
   * Replaces this memory's content with bytes from `export`: encrypted ones with their
   * `key`, by default the memory's own; the memory keeps its own key. Bad bytes change
   * nothing (code `not_a_memory`), nor does a key that does not decrypt them (`wrong_key`).
   * A memory without a key takes encrypted bytes only with `decrypt: true` (else
   * `invalid_value`, field `decrypt`), so ciphertext never becomes a plain export unasked.
   */
  async import(bytes: Uint8Array, { key, decrypt }: ImportOptions = {}): Promise<void> {
    if (this.#closed) throw memoryError('closed', 'this memory is closed');
    checkKey(key, true);
    if (decrypt !== undefined && typeof decrypt !== 'boolean') throw memoryError('wrong_type', 'decrypt must be a boolean', 'decrypt');
    return this.#backend.importBytes(bytes, key, decrypt === true);
  }
  /**
   * Encrypts the memory under `key`, re-encrypts it under a new one, or decrypts it
   * (`null`). An OPFS memory is rewritten in place, in one transaction; in memory, the key
   * changes what `export()` encrypts with. Reopen it with the new key.
   */
  async rekey(key: Key | null): Promise<void> {
    if (this.#closed) throw memoryError('closed', 'this memory is closed');
    checkKey(key, false);
    return this.#backend.rekey(key);
  }

  /**
   * SQLite's `PRAGMA integrity_check` over the whole database (it reads every page):
   * `{ ok: true, problems: [] }` when it is sound. For checking a memory after a crash.
   */
  async check(): Promise<{ ok: boolean; problems: string[] }> {
    if (this.#closed) throw memoryError('closed', 'this memory is closed');
    const problems = await this.#backend.check();
    return { ok: problems.length === 0, problems };
  }

  /** A handle whose every call carries `agentId` and `scope`, so none can be forgotten. */
  agent(agentId: string, scope: Scope = {}): AgentMemory {
    return new AgentMemory(this, agentId, scope);
  }

  /**
   * JSON-Schema definitions of the tools (store, recall, reconstruct, traverse,
   * declare_associations, get_contents, delete_memory, list_memories, update_memory,
   * delete_agent_data, list_entities), for a function-calling model, in `format` (default
   * `'anthropic'`). Hand a model fewer with a selection: `{ readOnly: true }` (no tool that
   * writes), `{ only: [...] }`, `{ exclude: ['delete_memory', 'delete_agent_data'] }`; give
   * `callTool` the same selection so it runs no other. In the `'mcp'` format each tool says
   * whether it writes and whether it can take something away (`annotations`).
   * @throws `AssociativeMemoryError` `invalid_value` naming `only` or `exclude` when a name is no tool.
   */
  tools<F extends ToolFormat = 'anthropic'>(options: ToolsOptions<F> = {}): ToolDefinitions<F> {
    return formatTools(toolDefinitions([], options), options.format) as ToolDefinitions<F>;
  }

  /**
   * Runs one of the tools `tools()` describes; returns the response JSON, typed by the
   * tool's name when it is known (`callTool('recall', …)` is a `RecallResponse`). The engine
   * checks the arguments as it checks every call. With a `selection`, a tool outside it is
   * refused (`unknown_tool`, listing the selection's tools) and nothing runs: pass the
   * selection the model's tools came from, so a name it invents or was not given fails.
   * @throws `AssociativeMemoryError` naming the offending argument in `field`.
   */
  callTool<N extends ToolName>(name: N, args: unknown, selection?: ToolSelection): Promise<Operations[N]['response']>;
  /** A tool named at run time (a model's call): its response as the engine gives it. */
  callTool(name: string, args: unknown, selection?: ToolSelection): Promise<unknown>;
  async callTool(name: string, args: unknown, selection: ToolSelection = {}): Promise<unknown> {
    return this.call(name, checkToolCall(name, args, [], selection));
  }

  /** Closes the database (and ends the OPFS worker, releasing the memory for other tabs). Calling it again does nothing. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#backend.close();
  }
}

// One method per operation an agent makes, typed here and defined from the table by the class's static block.
export interface AgentMemory extends Omit<HandleMethods, 'storeMany' | 'exportMemories' | 'deleteAgentData'> {}
/** One agent's view of a memory: `agent_id`, `project_id` and `channel` are filled in. */
export class AgentMemory {
  static {
    defineMethods(AgentMemory.prototype, (op) => op.scope !== 'owner', (op) => function (this: AgentMemory, options?: object) { return this.#run(op.tool, options ?? {}); });
  }

  /** @internal Use `memory.agent(agentId, scope)`. */
  constructor(readonly memory: AssociativeMemory, readonly agentId: string, readonly scope: Scope) {}

  #with(tool: string, options: object): Record<string, unknown> {
    const fixed: Record<string, unknown> = { agent_id: this.agentId };
    if (BY_TOOL.get(tool)?.scope === 'axes') {
      if (this.scope.project_id !== undefined) fixed.project_id = this.scope.project_id;
      if (this.scope.channel !== undefined) fixed.channel = this.scope.channel;
    }
    return { ...options, ...fixed };
  }
  #run<T extends OperationName>(tool: T, options: object): Promise<Operations[T]['response']> {
    return this.memory.call(tool, this.#with(tool, options)).catch((e) => { throw this.#unbound(e, tool); }) as Promise<Operations[T]['response']>;
  }
  /**
   * An engine's `unknown_option` error for a call of this handle, its list of the options the
   * operation accepts without those the handle fills in (`fixed`: by default agent_id and
   * the scope's axes), which the handle refuses or overrides: the list says what may be given.
   */
  #unbound(e: unknown, tool: string, fixed: readonly string[] = Object.keys(this.#with(tool, {}))): unknown {
    const error = e as { code?: unknown; field?: unknown; message?: unknown };
    // Only an option of the call itself: an item's (`items[3].colour`) lists the item's.
    if (error?.code !== 'unknown_option' || typeof error.field !== 'string' || /[.[]/.test(error.field) || typeof error.message !== 'string') return e;
    const at = error.message.lastIndexOf('accepts: ');
    if (at < 0) return e;
    const accepted = error.message.slice(at + 'accepts: '.length).split(', ').filter((name) => !fixed.includes(name));
    (e as Error).message = `${error.message.slice(0, at)}accepts: ${accepted.join(', ')} (this handle fills in ${fixed.join(', ')})`;
    return e;
  }

  /** Many memories of this agent in one transaction (see `AssociativeMemory.storeMany`). */
  storeMany(items: StoreItem[], options: StoreManyCallOptions = {}): Promise<StoreManyResponse> {
    return this.memory.storeMany(this.#with('store_many', { items }) as StoreManyOptions, options).catch((e) => { throw this.#unbound(e, 'store_many'); });
  }
  /** This agent's whole memory as JSONL (see `AssociativeMemory.exportMemories`). */
  exportMemories(): Promise<ExportMemoriesResponse> { return this.memory.exportMemories({ agent_id: this.agentId }); }
  /** A JSONL export brought in as this agent's; its records keep the projects and channels the file gives them. */
  importMemories(jsonl: string, options: Omit<ImportMemoriesOptions, 'jsonl' | 'target_agent_id'> = {}): Promise<ImportMemoriesResponse> {
    return this.memory.importMemories({ ...options, jsonl, target_agent_id: this.agentId }).catch((e) => { throw this.#unbound(e, 'import_memories', ['jsonl', 'target_agent_id']); });
  }
  /** Deletes every record, entity and relation of this handle's agent. */
  deleteAgentData(): Promise<DeleteAgentDataResponse> { return this.#run('delete_agent_data', {}); }

  /** The tool definitions (of a selection, as `memory.tools` takes it) without the arguments this handle fills in (agent_id, and the scope's axes). */
  tools<F extends ToolFormat = 'anthropic'>(options: ToolsOptions<F> = {}): ToolDefinitions<F> {
    return formatTools(toolDefinitions(this.#bound(), options), options.format) as ToolDefinitions<F>;
  }
  /** Like `memory.callTool` (a tool outside `selection` is refused), with this handle's agent and scope filled in. */
  callTool<N extends ToolName>(name: N, args: unknown, selection?: ToolSelection): Promise<Operations[N]['response']>;
  /** A tool named at run time (a model's call): its response as the engine gives it. */
  callTool(name: string, args: unknown, selection?: ToolSelection): Promise<unknown>;
  async callTool(name: string, args: unknown, selection: ToolSelection = {}): Promise<unknown> {
    return this.memory.call(name, this.#with(name, checkToolCall(name, args, this.#bound(), selection))).catch((e) => { throw this.#unbound(e, name); });
  }
  #bound(): string[] {
    return ['agent_id', ...(['project_id', 'channel'] as const).filter((k) => this.scope[k] !== undefined)];
  }
}
