// Where a memory's engine runs: on this thread ('memory'), or in the dedicated Worker of
// the tab holding an OPFS database ('opfs'). Both answer the same seven requests.

import type { Memory } from './associative_memory.js';
import { engine } from './engine.js';
import { memoryError } from './errors.js';
import type { Progress } from './rpc.js';
import { SharedOpfs } from './share.js';

/** An encrypted memory's key: 32 bytes, or a passphrase. */
export type Key = Uint8Array | string;

export interface Backend {
  call(tool: string, options: object): Promise<unknown>;
  storeMany(options: object, onProgress?: (p: Progress) => void): Promise<unknown>;
  exportBytes(decrypt: boolean): Promise<Uint8Array>;
  importBytes(bytes: Uint8Array, key?: Key): Promise<void>;
  rekey(key: Key | null): Promise<void>;
  /** `PRAGMA integrity_check`: [] when the database is sound, else the problems found. */
  check(): Promise<string[]>;
  close(): Promise<void>;
}

/** The engine on this thread, in an in-memory database. */
export function localBackend(clock?: () => number, key?: Key): Backend {
  let memory: Memory | null = engine().Memory.openInMemory(clock, key);
  const opened = () => memory ?? (() => { throw memoryError('closed', 'this memory is closed'); })();
  return {
    call: async (tool, options) => opened().call(tool, options),
    storeMany: async (options, onProgress) => opened().storeMany(options as never, onProgress),
    exportBytes: async (decrypt) => opened().export(decrypt),
    importBytes: async (bytes, key) => opened().import(bytes, key),
    rekey: async (key) => opened().rekey(key),
    check: async () => opened().integrityCheck(),
    close: async () => { memory?.free(); memory = null; },
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
    importBytes: (bytes, key) => shared.request('import', [bytes, now(), key]) as Promise<void>,
    rekey: (key) => shared.rekey(key),
    check: () => shared.request('check', []) as Promise<string[]>,
    close: () => shared.close(),
  };
}
