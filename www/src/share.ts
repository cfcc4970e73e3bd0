// One OPFS memory, used from every tab (or worker) of an origin that opens it. The OPFS
// pool is exclusive to one worker, so one tab holds the memory: a Web Lock elects it, it
// starts the worker, and the others send their calls to that worker over a BroadcastChannel.
// When the holder goes (its tab closes, its memory is closed, its worker dies), the next
// tab in the lock's queue takes the lock, starts a worker and reopens the memory, and the
// others carry on with it.
//
// No call vanishes. A call the holder did not take before it went is sent again to the
// next holder. A call it took is answered, unless the holder died before answering: then a
// read is sent again, and a write rejects with `worker_crashed` (it may or may not have
// been committed; nothing tells which).
//
// When the engine in the holder's worker traps, the worker rejects the calls it was running
// with `engine_crashed` and says so (RpcCrashed, and `gone` to the other tabs); the holding
// tab keeps the holder lock, terminates that worker and starts a new one, which reopens the
// memory from its file (every acknowledged write is there), and every call the dead worker
// had not answered, this tab's and the other tabs', goes to the new one.

import { errorFromData, memoryError } from './errors.js';
import { OPERATIONS } from './operations.js';
import {
  channelName, holderClosingLockName, holderIdLockName, holderLockName, keyDigest, PROTOCOL, RpcClient, type Key, type Progress, type ShareMessage,
} from './rpc.js';
import type { WorkerApi } from './worker.js';

/**
 * How long a tab waits for the `gone` message of a holder that was closing when its lock came
 * free, before it treats the holder as died.
 */
const GONE_WAIT_MS = 5000;

/** Tools that only read: safe to send again to the next holder when one died holding them. */
const READS = new Set<string>(OPERATIONS.filter((op) => !op.writes).map((op) => op.tool));

interface Entry {
  id: number;
  method: 'call' | 'storeMany' | 'export' | 'import' | 'check' | 'verifyKey' | 'rekey';
  args: unknown[];
  /** Hears the progress the worker reports on it. */
  onProgress?: (p: Progress) => void;
  resolve(value: unknown): void;
  reject(error: Error): void;
  /** The holder it was sent to (this tab's own worker included), or null while unsent. */
  sentTo: string | null;
}

type Target =
  | { kind: 'local'; holder: string; rpc: RpcClient<WorkerApi>; watch: AbortController }
  | { kind: 'remote'; holder: string };

/** Calls into an OPFS memory through whichever tab holds it, this one included. */
export class SharedOpfs {
  readonly #name: string;
  /**
   * The key this tab opened the memory with: its worker opens the memory with it when this
   * tab holds it; a holder elsewhere checks it before this tab's first call.
   */
  #key: Key | undefined;
  readonly #client = crypto.randomUUID();
  /** Null where BroadcastChannel is missing: then a memory held elsewhere cannot be shared. */
  readonly #channel: BroadcastChannel | null;
  readonly #entries = new Map<number, Entry>();
  #next = 1;
  #target: Target | null = null;
  #dead: Error | null = null;
  #closing = false;
  /** Aborts this tab's place in the holder lock's queue. */
  readonly #election = new AbortController();
  /** Aborts the watches on other tabs' holders (their lock requests), when this tab stops. */
  readonly #watches = new AbortController();
  /** Lets go of the holder lock, while this tab holds it. */
  #release: (() => void) | null = null;
  /** Settles when this tab first can make calls (a holder answered, or its own worker opened). */
  readonly #ready: Promise<void>;
  #readyDone!: (error?: Error) => void;
  /** Every holder this tab has learnt is gone: their late messages are ignored. */
  readonly #gone = new Set<string>();
  /** Ends the wait for the `gone` message of a holder whose tab was closing it, by holder. */
  readonly #awaitingGone = new Map<string, () => void>();
  /** The holder id of this tab's own worker, once it starts one: its broadcasts are not for this tab. */
  #own: string | null = null;

  private constructor(name: string, key: Key | undefined) {
    this.#name = name;
    this.#key = key;
    this.#ready = new Promise<void>((resolve, reject) => {
      this.#readyDone = (error) => (error ? reject(error) : resolve());
    });
    this.#ready.catch(() => { /* handled by open() */ });
    this.#channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(channelName(name)) : null;
    if (this.#channel) this.#channel.onmessage = ({ data }: MessageEvent<ShareMessage>) => this.#fromChannel(data);
  }

  /**
   * Opens memory `name`: holds it if no tab does, else uses the holder's worker, once that
   * has checked `key` against its own (`wrong_key`, `encrypted`).
   * @throws the holder's open error when this tab holds it and opening fails.
   */
  static async open(name: string, key: Key | undefined): Promise<SharedOpfs> {
    const shared = new SharedOpfs(name, key);
    const held = await new Promise<boolean>((resolve, reject) => {
      navigator.locks.request(holderLockName(name), { ifAvailable: true }, (lock) => {
        resolve(lock !== null);
        return lock ? shared.#hold() : undefined;
      }).catch(reject);
    });
    if (!held && !shared.#channel) {
      shared.#shut();
      throw memoryError('already_open', `the memory ${JSON.stringify(name)} is open in another tab or worker, and this browser has no BroadcastChannel to share it; close it there first`, 'name');
    }
    if (!held) {
      // Another tab holds it: ask it to announce itself, and wait in line to take over.
      shared.#channel!.postMessage({ kind: 'hello', v: PROTOCOL } satisfies ShareMessage);
      navigator.locks.request(holderLockName(name), { signal: shared.#election.signal }, () => shared.#hold())
        .catch(() => { /* aborted by close() */ });
    }
    try {
      await shared.#ready;
      if (!shared.holding) await shared.request('verifyKey', [await keyDigest(key)]);
    } catch (e) {
      shared.#shut();
      throw e;
    }
    return shared;
  }

  /**
   * Re-encrypts the memory (or decrypts it, `null`) wherever it is held; this tab opens it
   * with the new key when it holds it next. Other tabs that opened it with the old key go
   * on through the holder, and fail with `wrong_key` if they come to hold it.
   */
  async rekey(key: Key | null): Promise<void> {
    await this.request('rekey', [key]);
    this.#key = key ?? undefined;
  }

  /** Whether this tab's own worker holds the memory now. */
  get holding(): boolean {
    return this.#target?.kind === 'local';
  }

  /** Runs worker method `method` wherever the memory is held. */
  request(method: Entry['method'], args: unknown[], onProgress?: (p: Progress) => void): Promise<unknown> {
    if (this.#dead) return Promise.reject(this.#dead);
    if (this.#closing) return Promise.reject(memoryError('closed', 'this memory is closed'));
    return new Promise((resolve, reject) => {
      const entry: Entry = { id: this.#next++, method, args, onProgress, resolve, reject, sentTo: null };
      this.#entries.set(entry.id, entry);
      this.#send(entry);
    });
  }

  /**
   * Closes this tab's use of the memory once its calls are answered. The holder closes its
   * worker, and the next tab in line takes over.
   */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#election.abort();
    const target = this.#target;
    if (target?.kind === 'local') {
      target.watch.abort();
      try {
        // Held from before the worker lets go of its locks until this tab ends: the other
        // tabs then tell this graceful close from a crash (`holderClosingLockName`).
        await new Promise<void>((granted, refused) => {
          navigator.locks.request(holderClosingLockName(this.#name, target.holder), () => {
            granted();
            return new Promise<never>(() => {});
          }).catch(refused);
        });
        // Queued after this tab's calls, which the worker answers first. A worker whose
        // engine trapped answers nothing more: the memory is closed all the same.
        await target.rpc.call('close', []).catch((e: { code?: string }) => { if (e.code !== 'engine_crashed') throw e; });
      } finally {
        target.rpc.fail(memoryError('closed', 'this memory is closed'));
        this.#target = null;
        this.#shut();
      }
      return;
    }
    // A calling tab: its sent calls are answered (or sent again and answered) first.
    this.#rejectUnsent(memoryError('closed', 'this memory was closed before a tab holding it could take the call'));
    await Promise.allSettled([...this.#entries.values()].map((e) => new Promise<void>((done) => {
      const { resolve, reject } = e;
      e.resolve = (v) => { resolve(v); done(); };
      e.reject = (err) => { reject(err); done(); };
    })));
    this.#shut();
  }

  /** Holds the memory: starts a worker, opens it there. Resolves when this tab lets go of it. */
  #hold(): Promise<void> {
    return new Promise<void>((release) => {
      this.#release = release;
      if (this.#closing || this.#dead) return release();
      this.#startWorker().catch((e: Error) => {
        this.#readyDone(e);
        this.#fail(e);
      });
    });
  }

  async #startWorker(): Promise<void> {
    const holder = crypto.randomUUID();
    this.#own = holder;
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: `associative-memory:${this.#name}` });
    const rpc = new RpcClient<WorkerApi>(worker, (trap) => { void this.#restart(holder, trap); });
    try {
      await rpc.call('open', [this.#name, undefined, holder, this.#key]);
    } catch (e) {
      rpc.fail(memoryError('closed', 'this memory failed to open'));
      throw e;
    }
    // A worker that ends without an `error` event (it closed itself, say) answers nothing
    // more; its lock coming free is the sign, and every pending call rejects then.
    const watch = new AbortController();
    navigator.locks.request(holderIdLockName(this.#name, holder), { signal: watch.signal }, () => {
      rpc.fail(memoryError('worker_crashed', "the memory's worker ended (it closed or was stopped)"));
      this.#fail(rpc.error!);
    }).catch(() => { /* aborted by close() */ });
    this.#target = { kind: 'local', holder, rpc, watch };
    this.#readyDone();
    this.#flush();
  }

  /**
   * The engine in this tab's worker (holder `holder`) trapped: it answered the calls it was
   * running with `engine_crashed` and runs nothing more. Its unanswered calls were not run;
   * they wait for a new worker on the same memory, which this tab starts, keeping the holder
   * lock. The other tabs resend theirs on the `gone` the worker posted, and wait for it
   * (`holderClosingLockName`) if its lock comes free first.
   */
  async #restart(holder: string, trap: Error): Promise<void> {
    const target = this.#target;
    if (target?.kind !== 'local' || target.holder !== holder) return;
    target.watch.abort();
    this.#gone.add(holder);
    this.#target = null;
    for (const entry of this.#entries.values()) if (entry.sentTo === holder) entry.sentTo = null;
    const stopped = memoryError('engine_crashed', `the engine of the OPFS memory ${JSON.stringify(this.#name)} stopped (${trap.message})`);
    if (this.#closing || this.#dead) {
      target.rpc.fail(stopped);
      this.#rejectUnsent(memoryError('closed', 'this memory was closed before a tab holding it could take the call'));
      return;
    }
    try {
      await new Promise<void>((granted, refused) => {
        navigator.locks.request(holderClosingLockName(this.#name, holder), () => {
          granted();
          return new Promise<never>(() => {});
        }).catch(refused);
      });
    } finally {
      target.rpc.fail(stopped);
    }
    if (this.#closing || this.#dead) {
      this.#rejectUnsent(memoryError('closed', 'this memory was closed before a tab holding it could take the call'));
      return;
    }
    await this.#startWorker().catch((e: Error) => this.#fail(e));
    const started = this.#target as Target | null; // set by #startWorker
    if (this.#closing && started?.kind === 'local') {
      // Closed while the new worker was opening: close it too.
      started.watch.abort();
      await started.rpc.call('close', []).catch(() => {});
      started.rpc.fail(memoryError('closed', 'this memory is closed'));
      this.#target = null;
    }
  }

  #send(entry: Entry): void {
    const target = this.#target;
    if (!target) return;
    entry.sentTo = target.holder;
    if (target.kind === 'local') {
      // Not settled by a worker the call was taken back from (#restart) to be sent again.
      const sent = target.holder;
      target.rpc.call(entry.method, entry.args as never, [], entry.onProgress).then(
        (value) => { if (entry.sentTo === sent) this.#settle(entry, { ok: true, value }); },
        (error: Error) => { if (entry.sentTo === sent) this.#settle(entry, { ok: false, error }); },
      );
    } else {
      this.#channel?.postMessage({
        kind: 'request', v: PROTOCOL, holder: target.holder, client: this.#client, id: entry.id, method: entry.method, args: entry.args,
      } satisfies ShareMessage);
    }
  }

  #settle(entry: Entry, outcome: { ok: true; value: unknown } | { ok: false; error: Error }): void {
    if (this.#entries.get(entry.id) !== entry) return;
    this.#entries.delete(entry.id);
    if (outcome.ok) entry.resolve(outcome.value);
    else entry.reject(outcome.error);
  }

  /** Sends every unsent call, in the order they were made. */
  #flush(): void {
    for (const entry of this.#entries.values()) if (entry.sentTo === null) this.#send(entry);
  }

  #fromChannel(message: ShareMessage): void {
    if (message.v !== PROTOCOL) {
      if ((message as { kind?: string }).kind === 'ready') {
        this.#readyDone(memoryError('already_open', `the memory ${JSON.stringify(this.#name)} is held by a tab running another version of associative-memory; close it there first`, 'name'));
      }
      return;
    }
    if (message.kind === 'hello' || message.kind === 'request') return;
    if (this.#gone.has(message.holder) || message.holder === this.#own) return;
    if (message.kind === 'ready') {
      if (this.#target?.holder === message.holder || this.#target?.kind === 'local') return;
      const { holder } = message;
      this.#target = { kind: 'remote', holder };
      // Granted once holder's worker is gone, however it went.
      navigator.locks.request(holderIdLockName(this.#name, holder), { mode: 'shared', signal: this.#watches.signal }, () => this.#holderEnded(holder))
        .catch(() => { /* no locks: nothing to watch */ });
      this.#readyDone();
      this.#flush();
    } else if (message.kind === 'reply') {
      if (message.client !== this.#client) return;
      const entry = this.#entries.get(message.id);
      if (!entry || entry.sentTo !== message.holder) return;
      this.#settle(entry, message.ok ? { ok: true, value: message.value } : { ok: false, error: errorFromData(message.error) });
    } else if (message.kind === 'progress') {
      if (message.client !== this.#client) return;
      const entry = this.#entries.get(message.id);
      if (entry?.sentTo === message.holder) entry.onProgress?.(message.progress);
    } else if (message.kind === 'gone') {
      this.#holderGone(message.holder, 'closed');
    }
  }

  /**
   * Holder `holder`'s worker let go of its lock. If its tab was closing it, its `gone` message
   * (posted after its last reply) says which calls it did not run: wait for it, up to
   * GONE_WAIT_MS. Otherwise it died.
   */
  async #holderEnded(holder: string): Promise<void> {
    const closing = holderClosingLockName(this.#name, holder);
    const { held = [] } = await navigator.locks.query();
    if (held.some((lock) => lock.name === closing) && !this.#gone.has(holder)) {
      await new Promise<void>((heard) => {
        const timer = setTimeout(heard, GONE_WAIT_MS);
        this.#awaitingGone.set(holder, () => { clearTimeout(timer); heard(); });
      });
      this.#awaitingGone.delete(holder);
    }
    if (!this.#gone.has(holder)) this.#holderGone(holder, 'died');
  }

  /**
   * Holder `holder` is gone. Closed: the calls it did not answer were not run, and are sent
   * again to the next holder. Died: reads are sent again, writes reject.
   */
  #holderGone(holder: string, how: 'closed' | 'died'): void {
    this.#gone.add(holder);
    this.#awaitingGone.get(holder)?.();
    if (this.#dead) return;
    if (this.#target?.holder === holder && this.#target.kind === 'remote') this.#target = null;
    for (const entry of this.#entries.values()) {
      if (entry.sentTo !== holder) continue;
      const read = ['check', 'export', 'verifyKey'].includes(entry.method) || (entry.method === 'call' && READS.has(entry.args[0] as string));
      if (how === 'closed' || read) {
        entry.sentTo = null;
      } else {
        this.#settle(entry, {
          ok: false,
          error: memoryError('worker_crashed', "the tab holding this memory closed or crashed before answering; the write may or may not have been committed"),
        });
      }
    }
    if (this.#closing) this.#rejectUnsent(memoryError('closed', 'this memory was closed before a tab holding it could take the call'));
    else if (this.#target) this.#flush();
    else this.#channel?.postMessage({ kind: 'hello', v: PROTOCOL } satisfies ShareMessage);
  }

  #rejectUnsent(error: Error): void {
    for (const entry of [...this.#entries.values()]) if (entry.sentTo === null) this.#settle(entry, { ok: false, error });
  }

  /** Stops for good: every call, pending or later, rejects with `error`. */
  #fail(error: Error): void {
    if (this.#dead) return;
    this.#dead = error;
    for (const entry of [...this.#entries.values()]) this.#settle(entry, { ok: false, error });
    this.#shut();
  }

  #shut(): void {
    this.#election.abort();
    this.#watches.abort();
    if (this.#target?.kind === 'local') this.#target.watch.abort();
    this.#release?.();
    this.#release = null;
    this.#channel?.close();
  }
}
