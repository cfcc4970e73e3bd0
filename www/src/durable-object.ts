// `associative-memory/durable-object`: a Cloudflare Durable Object that hosts one memory. Its
// database is kept in the object's own SQLite storage, a row per 4096-byte chunk (`pages`),
// under the engine's own SQLite: the edge's SQL refuses what the engine runs (custom
// functions, savepoints, `user_version`), so the engine runs unchanged over a VFS whose file
// is that table (src/storage/pages.rs). Each call runs in one `transactionSync`: the chunks it
// writes are kept together, or none of them.

import { DurableObject } from 'cloudflare:workers';
import type { PageStore } from './associative_memory.js';
import { pagesBackend, type Backend } from './backend.js';
import { OPERATIONS, type Operation } from './operations.js';
import { memoryError, type ErrorCode } from './errors.js';
import { AssociativeMemory, init, type AgentMemory } from './workerd.js';
import type { Key, Progress } from './rpc.js';
import type { StoreManyOptions, StoreManyResponse } from './types.js';

// the blind relay of sync, beside the host: same Worker, its own namespace
export { MemoryRelay, parseClientFrame, type RelayStats } from './relay.js';
export * from './relay-protocol.js';

/** What `MemoryObject` reads of its Worker's environment. */
export interface MemoryObjectEnv {
  /**
   * The memory's key (a Worker secret): 64 hex digits (32 bytes) or a passphrase. With it
   * every chunk in the object's storage is ciphertext; without, the chunks are plain SQLite.
   */
  MEMORY_KEY?: string;
  /**
   * The owner's secret (a Worker secret): as a bearer token it makes every call and mints
   * and revokes the agents' tokens. Without it no HTTP call is authorized.
   */
  ADMIN_SECRET?: string;
}

/** The largest body `fetch` takes: a call's JSON or a database's bytes. */
export const MAX_BODY = 32 * 1024 * 1024;

/** The object's chunks in its SQLite storage: one row each, by index. */
export function sqlPages(sql: SqlStorage): PageStore {
  sql.exec('CREATE TABLE IF NOT EXISTS pages (chunk INTEGER PRIMARY KEY, data BLOB NOT NULL)');
  return {
    read(index) {
      const rows = sql.exec<{ data: ArrayBuffer }>('SELECT data FROM pages WHERE chunk = ?', index).toArray();
      return rows.length === 0 ? undefined : new Uint8Array(rows[0].data);
    },
    write(index, bytes) {
      sql.exec('INSERT OR REPLACE INTO pages (chunk, data) VALUES (?, ?)', index, bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    },
    truncate(count) {
      sql.exec('DELETE FROM pages WHERE chunk >= ?', count);
    },
    count() {
      return sql.exec<{ n: number }>('SELECT coalesce(max(chunk) + 1, 0) AS n FROM pages').one().n;
    },
  };
}

/** A key from the environment: 64 hex digits are its 32 bytes, anything else a passphrase. */
function keyOf(secret: string | undefined): Key | undefined {
  if (!secret) return undefined;
  if (/^[0-9a-fA-F]{64}$/.test(secret)) return Uint8Array.from(secret.match(/../g)!, (h) => parseInt(h, 16));
  return secret;
}

/** An error as JSON, with the HTTP status it answers with. */
function failure(err: unknown): Response {
  const { code = 'internal', message = String(err), field } = err as { code?: string; message?: string; field?: string };
  const status = code === 'unauthorized' ? 401
    : code === 'forbidden' ? 403
    : code === 'unknown_tool' || code === 'not_found' ? 404
    : code === 'body_too_large' ? 413
    : ['sqlite', 'storage', 'engine_crashed', 'internal'].includes(code) ? 500
    : 400;
  return Response.json({ error: { code, message, field: field ?? null } }, { status });
}

/**
 * An error as it crosses Workers RPC, which keeps only an error's message: the code and the
 * field ride in it, `AssociativeMemoryError [code field] message`, for `fromRpcError`.
 */
function forRpc(err: unknown): Error {
  const { code = 'internal', message = String(err), field } = err as { code?: string; message?: string; field?: string };
  return new Error(`AssociativeMemoryError [${code}${field ? ` ${field}` : ''}] ${message}`);
}

/**
 * The typed error (`code`, `field`) a `MemoryObject` threw over RPC, from what RPC delivered;
 * any other error as it is. `try { await stub.call(…) } catch (e) { throw fromRpcError(e) }`.
 */
export function fromRpcError(err: unknown): unknown {
  const parsed = err instanceof Error ? /^AssociativeMemoryError \[(\w+)(?: ([^\]]+))?\] ([\s\S]*)$/.exec(err.message) : null;
  return parsed ? memoryError(parsed[1] as ErrorCode, parsed[3], parsed[2]) : err;
}

/** Rejects, over RPC, with what `fromRpcError` reads back. */
function overRpc<T>(pending: Promise<T>): Promise<T> {
  return pending.catch((e) => { throw forRpc(e); });
}

/** The body of `request` within `MAX_BODY`, or `body_too_large`. */
async function body(request: Request): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY) throw memoryError('body_too_large', `the body is ${declared} bytes; at most ${MAX_BODY}`);
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > MAX_BODY) throw memoryError('body_too_large', `the body is ${bytes.byteLength} bytes; at most ${MAX_BODY}`);
  return bytes;
}

/** Who a request is: the memory's owner (the admin secret), or an agent by its token. */
type Caller = { owner: true } | { owner: false; id: string; agent_id: string; project_id: string | null };

/** How long a write's idempotency key is remembered: a retry within it gets the first answer. */
const IDEMPOTENCY_MS = 24 * 60 * 60 * 1000;

/** SHA-256 of `text`, in hex. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A new token: 32 random bytes, base64url, after `am_`. */
function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `am_${btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

const BY_TOOL = new Map<string, Operation>(OPERATIONS.map((op) => [op.tool, op]));

/**
 * `options` as an agent's token may send them, scoped to its agent (and project): an
 * `agent_id` (or `project_id`) that differs is `forbidden`, never rewritten; the owner's
 * operations (`import_memories`, `list_agents`, …) are the admin's.
 */
function scoped(caller: Caller, tool: string, options: Record<string, unknown>): Record<string, unknown> {
  const op = BY_TOOL.get(tool);
  if (caller.owner || !op) return options;
  if (op.scope === 'owner') throw memoryError('forbidden', `${tool} is the memory owner's call: an agent's token cannot make it`);
  if (caller.project_id !== null && op.scope !== 'axes') {
    throw memoryError('forbidden', `${tool} reads or writes every project of the agent: a token bound to project ${JSON.stringify(caller.project_id)} cannot make it`);
  }
  const fixed: Record<string, string> = { agent_id: caller.agent_id, ...(caller.project_id !== null ? { project_id: caller.project_id } : {}) };
  for (const [field, value] of Object.entries(fixed)) {
    if (options[field] !== undefined && options[field] !== value) {
      throw memoryError('forbidden', `this token is ${field} ${JSON.stringify(value)}; the call names ${JSON.stringify(options[field])}`, field);
    }
  }
  return { ...options, ...fixed };
}

/**
 * A Durable Object holding one memory: export it from your Worker and bind a namespace to it
 * with SQLite storage (`new_sqlite_classes` in wrangler's migrations). One object is one
 * memory; route to it with `idFromName`.
 *
 * - RPC, for the Worker's own code, which is trusted: `call(tool, options)`,
 *   `storeMany(options, onProgress?)`, `export()`, `import(bytes)`, `check()`.
 * - HTTP, for callers with a bearer token: `POST /call` with `{ "tool", "options" }`,
 *   answered with the operation's response as JSON, or `{ "error": { "code", "message",
 *   "field" } }` with a status (400 bad input, 401 no or an unknown token, 403 a token that
 *   may not, 404 unknown tool, 413 a body over `MAX_BODY`, 500 the engine or storage). A
 *   write with an `Idempotency-Key` header is run once: a retry with the key gets the first
 *   answer. An agent's token scopes every call to its agent (and project).
 * - MCP over Streamable HTTP at `/mcp`, with a bearer token (`McpMemoryObject`): an agent's
 *   token gets its agent's tools, which take no `agent_id`.
 * - HTTP, for the owner (the Worker's `ADMIN_SECRET` as the bearer token): every operation,
 *   `GET /export` (the database's bytes), `POST /import` (bytes), `GET /check`
 *   (`{ ok, problems }`), and tokens: `POST /tokens` with `{ "agent_id", "project_id"?,
 *   "label"? }` (the token is in the answer, and only its hash is kept), `GET /tokens`,
 *   `DELETE /tokens/<id>`.
 */
export class MemoryObject extends DurableObject<MemoryObjectEnv> {
  #memory: Promise<{ memory: AssociativeMemory; backend: Backend }> | undefined;
  /** The SHA-256 of the owner's secret, hashed on the first request that needs it. */
  #adminHash: string | undefined;
  /** Run inside the transaction of the call under way, with its answer (an idempotent write's record). */
  #inCall: ((answer: unknown) => void) | undefined;

  constructor(ctx: DurableObjectState, env: MemoryObjectEnv) {
    super(ctx, env);
    // beside the memory's pages: the agents' tokens (only hashes) and idempotent writes' answers
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS tokens (hash TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE, agent_id TEXT NOT NULL, project_id TEXT, label TEXT NOT NULL, created_at INTEGER NOT NULL, revoked_at INTEGER)');
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS idempotency (key TEXT PRIMARY KEY, answer TEXT NOT NULL, at INTEGER NOT NULL)');
  }

  /** The memory, opened on first use, and again after an open that failed or a trap. */
  #open(): Promise<{ memory: AssociativeMemory; backend: Backend }> {
    if (this.#memory) return this.#memory;
    const opening = (async () => {
      await init();
      const store = sqlPages(this.ctx.storage.sql);
      const transact = <T>(f: () => T): T => this.ctx.storage.transactionSync(() => {
        const answer = f();
        this.#inCall?.(answer);
        return answer;
      });
      const backend = pagesBackend(this.ctx.id.toString(), store, transact, undefined, keyOf(this.env.MEMORY_KEY));
      return { memory: new AssociativeMemory(backend, 'durable-object', this.ctx.id.toString()), backend };
    })();
    this.#memory = opening;
    opening.catch(() => {
      if (this.#memory === opening) this.#memory = undefined;
    });
    return opening;
  }

  /** Runs `f` on the memory; after a trap the next call reopens it from storage. */
  async #with<T>(f: (m: AssociativeMemory, backend: Backend) => Promise<T>): Promise<T> {
    const { memory, backend } = await this.#open();
    try {
      return await f(memory, backend);
    } catch (e) {
      if ((e as { code?: string }).code === 'engine_crashed') this.#memory = undefined;
      throw e;
    }
  }

  /**
   * Runs one operation by its tool name (`store`, `recall`, …) with snake_case options. Over
   * RPC an error's code and field ride in its message: `fromRpcError` gives them back.
   */
  async call(tool: string, options: object = {}): Promise<unknown> {
    return overRpc(this.#call(tool, options));
  }

  #call(tool: string, options: object): Promise<unknown> {
    return this.#with((m) => m.call(tool as never, options as never));
  }

  /**
   * `tool` for an HTTP caller: scoped to its token, and, for a write with an idempotency
   * key, run once: the answer is kept in the transaction that commits the write, and a
   * retry with the key gets it back.
   */
  async #httpCall(caller: Caller, tool: string, options: Record<string, unknown>, key: string | null): Promise<unknown> {
    const scopedOptions = scoped(caller, tool, options);
    if (key === null || !BY_TOOL.get(tool)?.writes) return this.#call(tool, scopedOptions);
    if (key.length === 0 || key.length > 256) throw memoryError('invalid_value', 'the Idempotency-Key header must be 1–256 characters', 'Idempotency-Key');
    const keyed = `${caller.owner ? 'owner' : caller.id}:${key}`;
    const sql = this.ctx.storage.sql;
    return this.#with(async (_, backend) => {
      const kept = sql.exec<{ answer: string }>('SELECT answer FROM idempotency WHERE key = ?', keyed).toArray();
      if (kept.length > 0) return JSON.parse(kept[0].answer);
      const now = Date.now();
      this.#inCall = (answer) => {
        sql.exec('DELETE FROM idempotency WHERE at < ?', now - IDEMPOTENCY_MS);
        sql.exec('INSERT INTO idempotency (key, answer, at) VALUES (?, ?, ?)', keyed, JSON.stringify(answer), now);
      };
      let pending: Promise<unknown>;
      try {
        // the backend runs the call (and `#inCall`, in its transaction) before it first awaits
        pending = backend.call(tool, scopedOptions);
      } finally {
        this.#inCall = undefined;
      }
      return pending;
    });
  }

  /**
   * `storeMany`, its progress reported to `onProgress`. Over RPC the callback is a stub,
   * whose calls are delivered while the batch runs: the result comes after all of them.
   */
  async storeMany(options: StoreManyOptions, onProgress?: (p: Progress) => unknown): Promise<StoreManyResponse> {
    const delivered: Promise<unknown>[] = [];
    const report = onProgress && ((p: Progress) => { delivered.push(Promise.resolve(onProgress(p)).catch(() => undefined)); });
    const stored = await overRpc(this.#with((m) => m.storeMany(options, { onProgress: report })));
    await Promise.all(delivered);
    return stored;
  }

  /** The database's bytes (encrypted when the object has a key). */
  async export(): Promise<Uint8Array> {
    return overRpc(this.#with((m) => m.export()));
  }

  /** Replaces the memory with `bytes` (checked first: bad bytes change nothing). */
  async import(bytes: Uint8Array): Promise<void> {
    return overRpc(this.#with((m) => m.import(bytes)));
  }

  /** `PRAGMA integrity_check`: `{ ok: true, problems: [] }` when the database is sound. */
  async check(): Promise<{ ok: boolean; problems: string[] }> {
    return overRpc(this.#with((m) => m.check()));
  }

  /** Who sent `request`: the owner, an agent's live token, or `unauthorized`. */
  async #caller(request: Request): Promise<Caller> {
    const bearer = /^Bearer +(.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
    if (!bearer) throw memoryError('unauthorized', 'send a token: Authorization: Bearer <token>');
    const hash = await sha256(bearer);
    const admin = this.env.ADMIN_SECRET;
    if (admin) this.#adminHash ??= await sha256(admin);
    if (admin && hash === this.#adminHash) return { owner: true };
    const rows = this.ctx.storage.sql.exec<{ id: string; agent_id: string; project_id: string | null; revoked_at: number | null }>(
      'SELECT id, agent_id, project_id, revoked_at FROM tokens WHERE hash = ?', hash).toArray();
    if (rows.length === 0 || rows[0].revoked_at !== null) {
      throw memoryError('unauthorized', rows.length === 0 ? 'this token does not open this memory' : 'this token was revoked');
    }
    return { owner: false, ...rows[0] };
  }

  /** The owner's token management. */
  async #tokens(request: Request, path: string): Promise<Response> {
    const sql = this.ctx.storage.sql;
    if (request.method === 'POST' && path.endsWith('/tokens')) {
      const asked = JSON.parse(new TextDecoder().decode(await body(request)) || '{}') as { agent_id?: unknown; project_id?: unknown; label?: unknown };
      for (const field of ['agent_id', 'project_id', 'label'] as const) {
        const v = asked[field];
        const required = field === 'agent_id';
        if ((required || v !== undefined) && (typeof v !== 'string' || v.length === 0 || v.length > 256)) {
          throw memoryError(required && v === undefined ? 'missing_field' : 'invalid_value', `${field} must be a string of 1–256 characters`, field);
        }
      }
      const token = newToken();
      const hash = await sha256(token);
      const id = hash.slice(0, 16);
      sql.exec('INSERT INTO tokens (hash, id, agent_id, project_id, label, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        hash, id, asked.agent_id, asked.project_id ?? null, asked.label ?? '', Date.now());
      return Response.json({ id, token, agent_id: asked.agent_id, project_id: asked.project_id ?? null }, { status: 201 });
    }
    if (request.method === 'GET' && path.endsWith('/tokens')) {
      const tokens = sql.exec('SELECT id, agent_id, project_id, label, created_at, revoked_at FROM tokens ORDER BY created_at, id').toArray();
      return Response.json({ tokens });
    }
    const revoke = /\/tokens\/([0-9a-f]{16})$/.exec(path);
    if (request.method === 'DELETE' && revoke) {
      const found = sql.exec('SELECT id FROM tokens WHERE id = ?', revoke[1]).toArray().length > 0;
      if (!found) throw memoryError('not_found', `no token ${revoke[1]}`, 'id');
      sql.exec('UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?', Date.now(), revoke[1]);
      return Response.json({ ok: true, revoked: revoke[1] });
    }
    throw memoryError('not_found', `no route ${request.method} ${path}`);
  }

  /**
   * The MCP face at `/mcp`, for `memory` as the caller's token sees it (an agent's handle:
   * its tools take no `agent_id`). Served by `McpMemoryObject`
   * (`associative-memory/durable-object-mcp`), which brings the MCP SDK; here, `not_found`.
   */
  protected async mcp(_request: Request, _memory: AssociativeMemory | AgentMemory): Promise<Response> {
    throw memoryError('not_found', "this object serves no MCP: export McpMemoryObject from 'associative-memory/durable-object-mcp' instead of MemoryObject");
  }

  /** The HTTP face (see the class). */
  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname.replace(/\/+$/, '');
    try {
      const caller = await this.#caller(request);
      if (request.method === 'POST' && path.endsWith('/call')) {
        let parsed: { tool?: unknown; options?: unknown };
        try {
          parsed = JSON.parse(new TextDecoder().decode(await body(request)));
        } catch (e) {
          if ((e as { code?: string }).code) throw e;
          throw memoryError('invalid_json', `the body is not JSON: ${(e as Error).message}`);
        }
        if (typeof parsed !== 'object' || parsed === null || typeof parsed.tool !== 'string') {
          throw memoryError('missing_field', 'the body must be { "tool": string, "options"?: object }', 'tool');
        }
        const options = parsed.options ?? {};
        if (typeof options !== 'object' || options === null || Array.isArray(options)) throw memoryError('wrong_type', 'options must be an object', 'options');
        return Response.json(await this.#httpCall(caller, parsed.tool, options as Record<string, unknown>, request.headers.get('idempotency-key')));
      }
      if (path.endsWith('/mcp')) {
        const { memory } = await this.#open();
        const scope = caller.owner || caller.project_id === null ? undefined : { project_id: caller.project_id };
        return await this.mcp(request, caller.owner ? memory : memory.agent(caller.agent_id, scope));
      }
      if (!caller.owner) throw memoryError('forbidden', `${request.method} ${path} is the memory owner's: an agent's token only calls operations`);
      if (request.method === 'GET' && path.endsWith('/export')) {
        return new Response((await this.#with((m) => m.export())) as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'application/vnd.sqlite3' } });
      }
      if (request.method === 'POST' && path.endsWith('/import')) {
        const bytes = await body(request);
        await this.#with((m) => m.import(bytes));
        return Response.json({ ok: true });
      }
      if (request.method === 'GET' && path.endsWith('/check')) {
        return Response.json(await this.#with((m) => m.check()));
      }
      return await this.#tokens(request, path);
    } catch (e) {
      return failure(e);
    }
  }
}
