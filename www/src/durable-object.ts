// `associative-memory/durable-object`: a Cloudflare Durable Object that hosts one memory. Its
// database is kept in the object's own SQLite storage, a row per 4096-byte chunk (`pages`),
// under the engine's own SQLite: the edge's SQL refuses what the engine runs (custom
// functions, savepoints, `user_version`), so the engine runs unchanged over a VFS whose file
// is that table (src/storage/pages.rs). Each call runs in one `transactionSync`: the chunks it
// writes are kept together, or none of them.

import { DurableObject } from 'cloudflare:workers';
import type { PageStore } from './associative_memory.js';
import { pagesBackend } from './backend.js';
import { memoryError, type ErrorCode } from './errors.js';
import { AssociativeMemory, init } from './workerd.js';
import type { Key, Progress } from './rpc.js';
import type { StoreManyOptions, StoreManyResponse } from './types.js';

/** What `MemoryObject` reads of its Worker's environment. */
export interface MemoryObjectEnv {
  /**
   * The memory's key (a Worker secret): 64 hex digits (32 bytes) or a passphrase. With it
   * every chunk in the object's storage is ciphertext; without, the chunks are plain SQLite.
   */
  MEMORY_KEY?: string;
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
  const status = code === 'unknown_tool' || code === 'not_found' ? 404
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

/**
 * A Durable Object holding one memory: export it from your Worker and bind a namespace to it
 * with SQLite storage (`new_sqlite_classes` in wrangler's migrations). One object is one
 * memory; route to it with `idFromName`.
 *
 * - RPC: `call(tool, options)`, `storeMany(options, onProgress?)`, `export()`, `import(bytes)`,
 *   `check()`.
 * - HTTP: `POST /call` with `{ "tool", "options" }`, answered with the operation's response
 *   as JSON, or `{ "error": { "code", "message", "field" } }` with a status (400 bad input,
 *   404 unknown tool, 413 a body over `MAX_BODY`, 500 the engine or storage); `GET /export`
 *   (the database's bytes), `POST /import` (bytes), `GET /check` (`{ ok, problems }`).
 */
export class MemoryObject extends DurableObject<MemoryObjectEnv> {
  #memory: Promise<AssociativeMemory> | undefined;

  /** The memory, opened on first use, and again after an open that failed or a trap. */
  #open(): Promise<AssociativeMemory> {
    if (this.#memory) return this.#memory;
    const opening = (async () => {
      await init();
      const store = sqlPages(this.ctx.storage.sql);
      const transact = <T>(f: () => T): T => this.ctx.storage.transactionSync(f);
      const backend = pagesBackend(this.ctx.id.toString(), store, transact, undefined, keyOf(this.env.MEMORY_KEY));
      return new AssociativeMemory(backend, 'durable-object', this.ctx.id.toString());
    })();
    this.#memory = opening;
    opening.catch(() => {
      if (this.#memory === opening) this.#memory = undefined;
    });
    return opening;
  }

  /** Runs `f` on the memory; after a trap the next call reopens it from storage. */
  async #with<T>(f: (m: AssociativeMemory) => Promise<T>): Promise<T> {
    const memory = await this.#open();
    try {
      return await f(memory);
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

  /** The HTTP face (see the class). */
  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname.replace(/\/+$/, '');
    try {
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
        return Response.json(await this.#call(parsed.tool, (parsed.options ?? {}) as object));
      }
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
      return failure(memoryError('not_found', `no route ${request.method} ${path}; POST /call, GET /export, POST /import, GET /check`));
    } catch (e) {
      return failure(e);
    }
  }
}
