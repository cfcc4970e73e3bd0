// The dedicated Worker behind `openMemory({ storage: 'opfs' })` in the tab that holds the
// memory (share.ts elects it): it takes the Web Locks named for the memory, installs the
// OPFS SyncAccessHandle pool VFS, holds the database, and answers requests from its tab
// (postMessage, rpc.ts) and from the other tabs using the memory (the BroadcastChannel).
//
// Group commit: requests are queued, and the `call`s that queued up while the worker was
// busy run together in one transaction (`Memory.callGroup`), committed once; each is
// answered only after that commit. The database is in WAL mode with `synchronous = NORMAL`
// (see `Memory.openOpfs`), and a checkpoint runs about a second after writes, which makes
// them survive a power loss too (www/README.md, "Durability").
//
// A trap of the engine (`RuntimeError: unreachable`: an allocation failed, or Rust panicked)
// leaves this worker's instance unusable. The worker then never calls into it again: it
// rejects the calls it was running with `engine_crashed`, runs nothing more, tells the other
// tabs it is gone (they send what it did not answer to the next worker) and its own tab that
// it crashed, which terminates it and starts a new worker on the same memory (share.ts).

import initWasm, { Memory } from './associative_memory.js';
import { errorToData, isTrap, memoryError, trapName, type ErrorData } from './errors.js';
import { OPERATIONS } from './operations.js';
import {
  channelName, holderIdLockName, keyDigest, lockName, PROTOCOL, type Progress, type RpcCrashed, type RpcRequest, type ShareMessage,
} from './rpc.js';

/** Tools that write; after them a checkpoint is scheduled. */
const WRITES = new Set<string>(OPERATIONS.filter((op) => op.writes).map((op) => op.tool));
/** How long after a write its checkpoint (the flush that makes it survive a power loss) runs at most. */
const CHECKPOINT_AFTER_MS = 1000;
/** At most this many calls share one transaction, so one group's replies are not held back for long. */
const MAX_GROUP = 256;
/** What the other tabs may ask of this worker (opening and closing stay with its own tab). */
const SHARED_METHODS = new Set(['call', 'storeMany', 'export', 'import', 'check', 'verifyKey', 'rekey']);

let memory: Memory | null = null;
let memoryName = '';
/** Set once the engine trapped: nothing runs after that. */
let crashed = false;
let locks: (() => void)[] = [];
let channel: BroadcastChannel | null = null;
let holder = '';
/** Set once `close` is queued: later requests from other tabs are not taken (they resend them to the next holder). */
let closing = false;
let checkpointTimer: ReturnType<typeof setTimeout> | null = null;
/** The clock reading sent with the request being run, when its caller has a clock. */
let now: number | undefined;
const clock = () => now ?? Date.now();

type Outcome = { ok: true; value: unknown } | { ok: false; error: ErrorData };
interface Job { method: string; args: unknown[]; reply(outcome: Outcome, transfer?: Transferable[]): void; progress?(p: Progress): void }

/** The digest (`keyDigest`) of the key the memory was opened or last rekeyed with; null when it is not encrypted. */
let memoryKey: string | null = null;

function opened(): Memory {
  if (!memory) throw memoryError('closed', 'this memory is closed');
  return memory;
}

/** Takes lock `name`, waiting for it, and keeps it until `close` (or until this worker ends). */
function hold(name: string): Promise<void> {
  return new Promise((granted, reject) => {
    navigator.locks.request(name, () => {
      granted();
      return new Promise<void>((release) => { locks.push(release); });
    }).catch(reject);
  });
}

/**
 * Opens the pool, retrying while it is busy: when the previous holder's tab was closed, its
 * worker's Web Lock can come free a moment before its `SyncAccessHandle`s are let go.
 */
async function openPool(name: string, key: Uint8Array | string | undefined): Promise<Memory> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await Memory.openOpfs(name, clock, key);
    } catch (e) {
      if ((e as { code?: string }).code !== 'opfs' || attempt >= 12) throw e;
      await new Promise((r) => { setTimeout(r, Math.min(50 * 2 ** attempt, 1000)); });
    }
  }
}

function scheduleCheckpoint(): void {
  checkpointTimer ??= setTimeout(() => {
    checkpointTimer = null;
    enqueue({ method: 'checkpoint', args: [], reply: () => {} });
  }, CHECKPOINT_AFTER_MS);
}

export const handlers = {
  /** Waits for the memory's locks, opens it, then serves the other tabs as holder `id`. */
  async open(name: string, time: number | undefined, id: string, key?: Uint8Array | string): Promise<void> {
    now = time;
    if (!navigator.locks) throw memoryError('opfs_unavailable', 'OPFS storage needs the Web Locks API, which this browser lacks');
    // The previous holder's worker keeps this lock until its database is closed.
    await hold(lockName(name));
    await hold(holderIdLockName(name, id));
    try {
      await initWasm();
      memory = await openPool(name, key);
      memoryKey = await keyDigest(key);
    } catch (e) {
      for (const release of locks.splice(0)) release();
      throw e;
    }
    holder = id;
    memoryName = name;
    if (typeof BroadcastChannel === 'function') {
      channel = new BroadcastChannel(channelName(name));
      channel.onmessage = ({ data }: MessageEvent<ShareMessage>) => fromTab(data);
      announce();
    }
  },
  export(decrypt?: boolean): Uint8Array {
    return opened().export(decrypt === true);
  },
  import(bytes: Uint8Array, time?: number, key?: Uint8Array | string, decrypt?: boolean): void {
    now = time;
    opened().import(bytes, key, decrypt);
  },
  /**
   * Checks the key another tab opened the memory with (its `keyDigest`) against this
   * worker's: calls from a tab with another key (or none, for an encrypted memory) would
   * read what its key cannot.
   */
  verifyKey(digest: string | null): void {
    opened();
    if (memoryKey === digest) return;
    if (digest === null) throw memoryError('encrypted', 'the memory is encrypted: give its key');
    throw memoryError('wrong_key', 'the key does not open this memory (a wrong key, or a memory that is not encrypted)');
  },
  /** Re-encrypts the memory under `key`, or decrypts it (`null`); later checks use the new key. */
  async rekey(key: Uint8Array | string | null): Promise<void> {
    opened().rekey(key);
    memoryKey = await keyDigest(key);
  },
  /** Many memories in one transaction, reporting progress to the caller as it goes. */
  storeMany(options: object, time: number | undefined, progress: (p: Progress) => void): unknown {
    const out = opened().storeMany(options as never, progress, time);
    scheduleCheckpoint();
    return out;
  },
  /** `PRAGMA integrity_check`: [] when the database is sound. */
  check(): string[] {
    return opened().integrityCheck();
  },
  checkpoint(): void {
    memory?.checkpoint();
  },
  /** Closes the database (SQLite checkpoints and flushes it), tells the other tabs, lets go of the locks. */
  close(): void {
    if (checkpointTimer) clearTimeout(checkpointTimer);
    checkpointTimer = null;
    memory?.free();
    memory = null;
    memoryKey = null;
    channel?.postMessage({ kind: 'gone', v: PROTOCOL, holder } satisfies ShareMessage);
    channel?.close();
    channel = null;
    for (const release of locks.splice(0)) release();
  },
};
export type WorkerApi = typeof handlers & { call(tool: string, options: object, time?: number): unknown };

function announce(): void {
  channel?.postMessage({ kind: 'ready', v: PROTOCOL, holder } satisfies ShareMessage);
}

function fromTab(message: ShareMessage): void {
  if (message.v !== PROTOCOL || closing) return;
  if (message.kind === 'hello') announce();
  if (message.kind !== 'request' || message.holder !== holder || !SHARED_METHODS.has(message.method)) return;
  const { client, id } = message;
  enqueue({
    method: message.method,
    args: message.args,
    reply: (outcome) => channel?.postMessage({ kind: 'reply', v: PROTOCOL, holder, client, id, ...outcome } as ShareMessage),
    progress: (progress) => channel?.postMessage({ kind: 'progress', v: PROTOCOL, holder, client, id, progress } satisfies ShareMessage),
  });
}

// The queue. A job is run when the worker gets to it; a run of `call`s is one group.
const jobs: Job[] = [];
let running = false;
let ticking = false;
/**
 * Wakes the queue with a message to itself: it is delivered after the messages that arrived
 * while the worker was busy, so those are all queued, and grouped, by then.
 */
const tick = new MessageChannel();
tick.port1.onmessage = () => { ticking = false; void drain(); };

function enqueue(job: Job): void {
  if (crashed) return;
  jobs.push(job);
  if (!ticking && !running) {
    ticking = true;
    tick.port2.postMessage(null);
  }
}

async function drain(): Promise<void> {
  if (running) return;
  running = true;
  try {
    if (jobs[0]?.method === 'call') {
      let n = 1;
      while (n < jobs.length && n < MAX_GROUP && jobs[n].method === 'call') n++;
      runGroup(jobs.splice(0, n));
    } else if (jobs.length) {
      await runOne(jobs.shift()!);
    }
  } finally {
    running = false;
    if (jobs.length && !ticking) {
      ticking = true;
      tick.port2.postMessage(null);
    }
  }
}

function runGroup(group: Job[]): void {
  let outcomes: ({ value: unknown } | { error: unknown })[];
  try {
    outcomes = opened().callGroup(group.map(({ args: [tool, options, time] }) => [tool as string, options as object, time as number | undefined]));
  } catch (e) {
    if (isTrap(e)) return crash(e, group);
    for (const job of group) job.reply({ ok: false, error: errorToData(e) });
    return;
  }
  group.forEach((job, i) => {
    const outcome = outcomes[i];
    job.reply('error' in outcome ? { ok: false, error: errorToData(outcome.error) } : { ok: true, value: outcome.value });
  });
  if (group.some(({ args: [tool] }) => WRITES.has(tool as string))) scheduleCheckpoint();
}

async function runOne(job: Job): Promise<void> {
  try {
    const handler = (handlers as Record<string, (...a: unknown[]) => unknown>)[job.method];
    if (!handler) throw memoryError('unknown_tool', `the worker has no method ${JSON.stringify(job.method)}`);
    const value = await handler(...job.args, job.progress);
    job.reply({ ok: true, value }, value instanceof Uint8Array ? [value.buffer] : []);
  } catch (e) {
    if (isTrap(e)) return crash(e, [job]);
    job.reply({ ok: false, error: errorToData(e) });
  }
}

/**
 * The engine trapped running `running` (one request, or a group of calls in one
 * transaction): they reject with `engine_crashed`; the queued requests are dropped unrun
 * (this worker's tab sends its own again to the next worker, the other tabs theirs after
 * `gone`); the tab is told, and terminates this worker.
 */
function crash(e: unknown, running: Job[]): void {
  crashed = true;
  closing = true;
  memory = null; // never called again, not even to free
  if (checkpointTimer) clearTimeout(checkpointTimer);
  checkpointTimer = null;
  jobs.length = 0;
  const grouped = running.length > 1 ? ` (or one of the ${running.length - 1} calls run with it in one transaction)` : '';
  const error = errorToData(memoryError('engine_crashed', `the engine of the OPFS memory ${JSON.stringify(memoryName)} stopped during this call${grouped} (${trapName(e)}: it ran out of memory, or hit a bug), whose writes may or may not have been committed; every write acknowledged before it is on disk, and the memory's worker is restarted and reopens it for the calls after this one`));
  for (const job of running) job.reply({ ok: false, error });
  channel?.postMessage({ kind: 'gone', v: PROTOCOL, holder } satisfies ShareMessage);
  channel?.close();
  channel = null;
  self.postMessage({ crashed: errorToData(e) } satisfies RpcCrashed);
}

// Requests from the tab that started this worker.
self.addEventListener('message', ({ data: { id, method, args } }: MessageEvent<RpcRequest>) => {
  if (crashed) return;
  if (method === 'close') closing = true;
  enqueue({
    method,
    args,
    reply: (outcome, transfer = []) => self.postMessage({ id, ...outcome }, { transfer }),
    progress: (progress) => self.postMessage({ id, progress }),
  });
});
