// The dedicated Worker behind `openMemory({ storage: 'opfs' })`: it takes the Web Lock
// named for the memory, installs the OPFS SyncAccessHandle pool VFS, holds the database
// and answers the main thread's requests (rpc.ts). It is started by backend.ts; a page
// never talks to it directly.

import initWasm, { Memory } from './associative_memory.js';
import { memoryError } from './errors.js';
import { lockName, serve } from './rpc.js';

let memory: Memory | null = null;
let releaseLock: (() => void) | null = null;
/** The main thread's clock reading sent with each call, when it has a clock. */
let now: number | undefined;
const clock = () => now ?? Date.now();

function opened(): Memory {
  if (!memory) throw memoryError('closed', 'this memory is closed');
  return memory;
}

/** Holds the lock `name` until close, or fails at once if anyone else holds it. */
function lock(name: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    navigator.locks.request(name, { ifAvailable: true }, (held) => {
      if (!held) return resolve(false);
      resolve(true);
      return new Promise<void>((release) => { releaseLock = release; });
    }).catch(reject);
  });
}

export const handlers = {
  async open(name: string, time?: number): Promise<void> {
    now = time;
    if (!navigator.locks) throw memoryError('opfs_unavailable', 'OPFS storage needs the Web Locks API, which this browser lacks');
    if (!(await lock(lockName(name)))) {
      throw memoryError('already_open', `the memory ${JSON.stringify(name)} is open in another tab or worker; close it there first`, 'name');
    }
    try {
      await initWasm();
      memory = await Memory.openOpfs(name, clock);
    } catch (e) {
      releaseLock?.();
      throw e;
    }
  },
  call(tool: string, options: object, time?: number): unknown {
    now = time;
    return opened().call(tool, options);
  },
  export(): Uint8Array {
    return opened().export();
  },
  import(bytes: Uint8Array, time?: number): void {
    now = time;
    opened().import(bytes);
  },
  close(): void {
    memory?.free();
    memory = null;
    releaseLock?.();
    releaseLock = null;
  },
};
export type WorkerApi = typeof handlers;

serve(self as unknown as Parameters<typeof serve>[0], handlers);
