// Where a memory's engine runs: on this thread ('memory'), or in a dedicated Worker
// holding an OPFS database ('opfs'). Both answer the same four requests.

import { Memory } from './associative_memory.js';
import { memoryError } from './errors.js';
import { lockName, RpcClient } from './rpc.js';
import type { WorkerApi } from './worker.js';

export interface Backend {
  call(tool: string, options: object): Promise<unknown>;
  exportBytes(): Promise<Uint8Array>;
  importBytes(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/** The engine on this thread, in an in-memory database. */
export function localBackend(clock?: () => number): Backend {
  let memory: Memory | null = Memory.openInMemory(clock);
  const opened = () => memory ?? (() => { throw memoryError('closed', 'this memory is closed'); })();
  return {
    call: async (tool, options) => opened().call(tool, options),
    exportBytes: async () => opened().export(),
    importBytes: async (bytes) => opened().import(bytes),
    close: async () => { memory?.free(); memory = null; },
  };
}

/** The engine in a new dedicated Worker, on the OPFS database `name`. */
export async function opfsBackend(name: string, clock?: () => number): Promise<Backend> {
  if (typeof Worker !== 'function' || typeof navigator === 'undefined' || !navigator.storage?.getDirectory) {
    throw memoryError('opfs_unavailable', "storage 'opfs' needs a browser with the Origin Private File System and Workers; use storage 'memory' here");
  }
  if (!globalThis.isSecureContext) {
    throw memoryError('opfs_unavailable', "storage 'opfs' needs a secure context (https:, or http://localhost)");
  }
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: `associative-memory:${name}` });
  const rpc = new RpcClient<WorkerApi>(worker);
  const now = () => clock?.();
  try {
    await rpc.call('open', [name, now()]);
  } catch (e) {
    rpc.fail(memoryError('closed', 'this memory failed to open'));
    throw e;
  }
  // A worker that ends without an `error` event (it closed itself, say) answers nothing
  // more; its lock coming free is the sign, and every pending call rejects then.
  const closing = new AbortController();
  navigator.locks.request(lockName(name), { signal: closing.signal }, () => {
    rpc.fail(memoryError('worker_crashed', "the memory's worker ended (it closed or was stopped)"));
  }).catch(() => { /* aborted by close(): the worker lets go of the lock then */ });
  return {
    call: (tool, options) => rpc.call('call', [tool, options, now()]),
    exportBytes: () => rpc.call('export', []),
    importBytes: (bytes) => rpc.call('import', [bytes, now()]),
    close: async () => {
      closing.abort();
      try {
        await rpc.call('close', []);
      } finally {
        rpc.fail(memoryError('closed', 'this memory is closed'));
      }
    },
  };
}
