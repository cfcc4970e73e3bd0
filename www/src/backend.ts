// Where a memory's engine runs: on this thread ('memory', or a Durable Object's pages), or
// in the dedicated Worker of the tab holding an OPFS database ('opfs'). All answer the same
// seven requests; the thread backends also sync (sync.ts).

import type { Memory, PageStore } from './associative_memory.js';
import { engine, engineCall, liveInstance } from './engine.js';
import { memoryError, type ErrorCode } from './errors.js';
import type { Key, Progress } from './rpc.js';
import { OPERATIONS } from './operations.js';
import { SharedOpfs } from './share.js';

export interface Backend {
  call(tool: string, options: object): Promise<unknown>;
  storeMany(options: object, onProgress?: (p: Progress) => void): Promise<unknown>;
  exportBytes(decrypt: boolean): Promise<Uint8Array>;
  importBytes(bytes: Uint8Array, key?: Key, decrypt?: boolean): Promise<void>;
  rekey(key: Key | null): Promise<void>;
  /** `PRAGMA integrity_check`: [] when the database is sound, else the problems found. */
  check(): Promise<string[]>;
  close(): Promise<void>;
  /** Sync's engine calls (the thread backends: storage 'memory' and 'file'; sync.ts). */
  syncStart?(device: number): Promise<void>;
  syncStatus?(): Promise<SyncState | undefined>;
  /** This device's pending changes after seq `after` (0: all), in order. */
  syncPending?(after: number): Promise<PendingChange[]>;
  syncApply?(entries: LogEntry[]): Promise<number>;
  syncSnapshot?(): Promise<{ position: number; bytes: Uint8Array }>;
  syncJoin?(bytes: Uint8Array, position: number, device: number, logged: number): Promise<void>;
}

/** A memory's sync in its database: its device number, the last log position applied, how many of its changes the log has not taken. */
export interface SyncState { device: number; applied: number; pending: number }
/** A change of this device's the log has not taken yet. */
export interface PendingChange { seq: number; change: Uint8Array }
/** An entry of the log, unsealed. */
export interface LogEntry { position: number; device: number; seq: number; change: Uint8Array }

/** A backend that syncs: every sync call defined. */
export type SyncBackend = Backend & Required<Pick<Backend, 'syncStart' | 'syncStatus' | 'syncPending' | 'syncApply' | 'syncSnapshot' | 'syncJoin'>>;

/**
 * The engine on this thread, in an in-memory database. Every call goes through
 * `engineCall`: once the realm's engine trapped, calls reject with `engine_crashed`.
 */
export function localBackend(clock?: () => number, key?: Key): SyncBackend {
  return threadBackend('openMemory', () => engine().Memory.openInMemory(clock, key));
}

/**
 * The engine on this thread, its database kept in `store` chunk by chunk (a Durable
 * Object's storage): each call runs inside `transact` (the object's `transactionSync`), so
 * the pages it writes are kept together, or none of them if it throws or traps.
 */
export function pagesBackend(name: string, store: PageStore, transact: <T>(f: () => T) => T, clock?: () => number, key?: Key): Backend {
  return threadBackend('openPages', () => engine().Memory.openPages(name, store, clock, key), transact);
}

/**
 * The engine on this thread over the memory `open` makes (a call named `opening`), each
 * call inside `transact`; with `checkpoint`, for a memory in a file (file.ts).
 */
export function threadBackend(opening: string, open: () => Memory, transact: <T>(f: () => T) => T = (f) => f()): SyncBackend & { checkpoint(): Promise<void> } {
  const instance = liveInstance();
  let memory: Memory | null = engineCall(instance, opening, () => transact(open));
  instance.open++;
  const run = <T>(during: string, f: (m: Memory) => T): T => {
    const m = memory ?? (() => { throw memoryError('closed', 'this memory is closed'); })();
    return engineCall(instance, during, () => transact(() => f(m)));
  };
  return {
    call: async (tool, options) => run(tool, (m) => m.call(tool, options)),
    storeMany: async (options, onProgress) => run('storeMany', (m) => m.storeMany(options as never, onProgress)),
    exportBytes: async (decrypt) => run('export', (m) => m.export(decrypt)),
    importBytes: async (bytes, key, decrypt) => run('import', (m) => m.import(bytes, key, decrypt)),
    rekey: async (key) => run('rekey', (m) => m.rekey(key)),
    check: async () => run('check', (m) => m.integrityCheck()),
    checkpoint: async () => run('checkpoint', (m) => m.checkpoint()),
    syncStart: async (device) => run('syncStart', (m) => m.syncStart(device)),
    syncStatus: async () => run('syncStatus', (m) => m.syncStatus()),
    syncPending: async (after) => run('syncPending', (m) => m.syncPending(after)),
    syncApply: async (entries) => run('syncApply', (m) => m.syncApply(entries)),
    syncSnapshot: async () => run('syncSnapshot', (m) => m.syncSnapshot()),
    syncJoin: async (bytes, position, device, logged) => run('syncJoin', (m) => m.syncJoin(bytes, position, device, logged)),
    close: async () => {
      // A crashed instance is never called again, not even to free.
      const m = memory;
      memory = null;
      if (m && !instance.crash) {
        engineCall(instance, 'close', () => m.free());
        instance.open--;
      }
    },
  };
}

/**
 * The OPFS database `name`, held by a dedicated Worker of whichever tab holds the memory
 * (this one, if no other does; share.ts).
 */
export async function opfsBackend(name: string, clock?: () => number, key?: Key): Promise<Backend> {
  if (typeof Worker !== 'function' || typeof navigator === 'undefined' || !navigator.storage?.getDirectory) {
    throw memoryError('opfs_unavailable', "storage 'opfs' needs a browser with the Origin Private File System and Workers; use storage 'memory' here");
  }
  if (!globalThis.isSecureContext) {
    throw memoryError('opfs_unavailable', "storage 'opfs' needs a secure context (https:, or http://localhost)");
  }
  if (!navigator.locks) throw memoryError('opfs_unavailable', 'OPFS storage needs the Web Locks API, which this browser lacks');
  const shared = await SharedOpfs.open(name, key);
  const now = () => clock?.();
  return {
    call: (tool, options) => shared.request('call', [tool, options, now()]),
    storeMany: (options, onProgress) => shared.request('storeMany', [options, now()], onProgress),
    exportBytes: (decrypt) => shared.request('export', [decrypt]) as Promise<Uint8Array>,
    importBytes: (bytes, key, decrypt) => shared.request('import', [bytes, now(), key, decrypt]) as Promise<void>,
    rekey: (key) => shared.rekey(key),
    check: () => shared.request('check', []) as Promise<string[]>,
    close: () => shared.close(),
  };
}

/** How often a request that met a network error is sent again, and the first wait (ms, tripled each time). */
const RETRIES = 3;
const FIRST_WAIT = 100;

/** The tools that write. */
export const WRITES = new Set<string>(OPERATIONS.filter((op) => op.writes).map((op) => op.tool));

/**
 * A memory hosted elsewhere (a `MemoryObject`, associative-memory/durable-object), reached
 * over HTTP at `url` with a bearer `token`. A request that meets a network error is sent
 * again, up to three times; a write carries an `Idempotency-Key`, so one sent again after its
 * answer was lost is run once. Errors are the host's typed errors, and `network` when it
 * cannot be reached.
 */
export function remoteBackend(url: string, token: string): Backend {
  const base = url.endsWith('/') ? url : `${url}/`;
  let closed = false;
  const send = async (path: string, init: RequestInit): Promise<Response> => {
    if (closed) throw memoryError('closed', 'this memory is closed');
    const headers = { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) };
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(new URL(path, base), { ...init, headers });
      } catch (e) {
        if (attempt >= RETRIES) throw memoryError('network', `cannot reach the memory at ${base}: ${(e as Error).message}`);
        await new Promise((r) => setTimeout(r, FIRST_WAIT * 3 ** attempt));
        continue;
      }
      if (res.ok) return res;
      const failed = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string; field?: string | null } } | null;
      const { code = 'network', message = `the memory at ${base} answered HTTP ${res.status}`, field } = failed?.error ?? {};
      throw memoryError(code as ErrorCode, message, field ?? undefined);
    }
  };
  const call = async (tool: string, options: object): Promise<unknown> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (WRITES.has(tool)) headers['idempotency-key'] = crypto.randomUUID();
    return (await send('call', { method: 'POST', headers, body: JSON.stringify({ tool, options }) })).json();
  };
  return {
    call,
    storeMany: async (options, onProgress) => {
      const stored = (await call('store_many', options)) as { items: unknown[] };
      onProgress?.({ done: stored.items.length, total: stored.items.length });
      return stored;
    },
    exportBytes: async () => new Uint8Array(await (await send('export', {})).arrayBuffer()),
    importBytes: async (bytes, key) => {
      if (key !== undefined) throw memoryError('invalid_value', "a hosted memory imports with its host's key (the Worker's MEMORY_KEY secret): import its own export without key", 'key');
      await send('import', { method: 'POST', body: bytes as Uint8Array<ArrayBuffer> });
    },
    rekey: async () => {
      throw memoryError('invalid_value', "a hosted memory's key is its host's (the Worker's MEMORY_KEY secret)", 'key');
    },
    check: async () => ((await (await send('check', {})).json()) as { problems: string[] }).problems,
    close: async () => {
      closed = true;
    },
  };
}
