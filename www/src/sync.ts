// The package's sync client: a memory on this thread (storage 'memory' or 'file') kept in step
// with the other devices of its memory through a `MemoryRelay` (relay.ts), over one WebSocket
// speaking the relay protocol (relay-protocol.ts; www/README.md, "Sync"). The engine keeps the
// state that matters in the database: the device number, the last log position applied and
// the changes the log has not taken yet (so they survive a reload with storage 'file'). This
// client only moves sealed bytes (seal.ts) between the engine and the relay:
//
// - hello with the device number (or null: the welcome's number is then `syncStart`ed) and
//   the applied position; push every pending change past the welcome's `seq`, in order;
// - log entries (catch-up, broadcasts, and the acks of this device's own pushes, which say at
//   which position its change is) are buffered by position and applied in contiguous runs;
// - a snapshot (this device is behind the relay's floor) replaces the memory (`syncJoin`);
// - after every local write (syncWrites, the one place writes pass), the new pending changes
//   are pushed; a dropped socket is reconnected with backoff;
// - with nothing pending and `snapshotEvery` entries applied past the floor, a sealed
//   snapshot is uploaded, after which the relay compacts its log.
//
// Everything that touches the engine or the socket's state runs in one pump, a step at a
// time, so frames, pushes and writes' hooks never interleave.

import type { Backend, LogEntry, SyncBackend } from './backend.js';
import { engine } from './engine.js';
import { AssociativeMemoryError, memoryError, type ErrorCode } from './errors.js';
import { MAX_FRAME, fromBase64, toBase64, type ClientFrame, type RelayFrame } from './relay-protocol.js';
import type { Key } from './rpc.js';
import { changePlace, deriveKeys, seal, snapshotPlace, unseal, type SyncKeys } from './seal.js';

/**
 * The engine's schema version (the module's `Memory.schemaVersion()`), which a device says in
 * its hello: a relay holding another one refuses it (`schema`).
 */
export function syncSchema(): number {
  return engine().Memory.schemaVersion();
}

/** The connection a `WebSocket` constructor makes, as sync uses it (the global one's, and the `ws` package's). */
export interface SyncSocket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: any) => void): void;
}

/** Options of `openMemory`'s `sync`. */
export interface SyncOptions {
  /**
   * The relay's WebSocket URL for this memory (`ws:`/`wss:`; `http:`/`https:` are taken as
   * them): with the edge example, `wss://<host>/r/<memory>/ws`.
   */
  url: string | URL;
  /**
   * The memory's sync id, the same on every device (with the edge example, the `<memory>` of
   * the URL): the keys are derived from it and the memory's `key`, and every sealed entry
   * names it. 1–256 characters.
   */
  memory: string;
  /**
   * Upload a sealed snapshot once this many log entries were applied past the relay's last one
   * and nothing is pending (the relay then compacts its log): an integer ≥ 1, default 1000.
   */
  snapshotEvery?: number;
  /**
   * The WebSocket constructor; default the global `WebSocket` (browsers, workerd, Deno, Bun,
   * Node ≥ 22). In Node 20, pass the `ws` package's.
   */
  WebSocket?: new (url: string) => SyncSocket;
}

/**
 * `'offline'`: no welcomed connection to the relay (connecting, or waiting to reconnect);
 * `'pending'`: connected, with changes of this device's the log has not taken or entries not
 * yet applied; `'synced'`: connected, nothing pending, every entry the relay holds applied.
 */
export type SyncStatus = 'synced' | 'pending' | 'offline';

/** An `error` event of `memory.sync`: `error` is an `AssociativeMemoryError`. */
export class SyncErrorEvent extends Event {
  constructor(readonly error: AssociativeMemoryError) {
    super('error');
  }
}

/** The codes after which sync stops: the relay refused this memory, or its log cannot be read or written. */
const FATAL = new Set<ErrorCode>(['unauthorized', 'forbidden', 'schema', 'wrong_key', 'body_too_large', 'engine_crashed', 'closed']);

/** Reconnecting waits 250 ms, then twice as long each time, up to 30 s. */
const FIRST_WAIT = 250;
const LAST_WAIT = 30_000;
/** The pump's cue to say hello on a socket that opened, with the position applied by then. */
interface Hello { type: 'hello' }

/** Entries applied per engine call at most. */
const RUN = 500;

/** @internal `sync`'s options checked, or a typed error naming the one at fault (`sync.url`, …). */
export function checkSyncOptions(sync: unknown): Required<Omit<SyncOptions, 'url'>> & { url: string } {
  if (typeof sync !== 'object' || sync === null) throw memoryError('invalid_value', 'sync must be { url, memory, snapshotEvery?, WebSocket? }', 'sync');
  const o = sync as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!['url', 'memory', 'snapshotEvery', 'WebSocket'].includes(k)) throw memoryError('unknown_option', `sync has no option ${JSON.stringify(k)}; it takes url, memory, snapshotEvery, WebSocket`, `sync.${k}`);
  }
  if (o.url === undefined) throw memoryError('missing_field', "sync needs url, the relay's WebSocket URL", 'sync.url');
  let url: URL;
  try {
    url = new URL(String(o.url));
  } catch {
    throw memoryError('invalid_value', `sync.url must be an absolute URL, got ${JSON.stringify(String(o.url))}`, 'sync.url');
  }
  if (typeof o.url !== 'string' && !(o.url instanceof URL)) throw memoryError('wrong_type', 'sync.url must be a string or a URL', 'sync.url');
  const scheme = { 'ws:': 'ws:', 'wss:': 'wss:', 'http:': 'ws:', 'https:': 'wss:' }[url.protocol];
  if (!scheme) throw memoryError('invalid_value', `sync.url must be a ws:, wss:, http: or https: URL, got ${url.protocol}`, 'sync.url');
  url.protocol = scheme;
  if (o.memory === undefined) throw memoryError('missing_field', "sync needs memory, the memory's sync id (the same on every device)", 'sync.memory');
  if (typeof o.memory !== 'string' || o.memory.length === 0 || o.memory.length > 256) throw memoryError('invalid_value', 'sync.memory must be a string of 1–256 characters', 'sync.memory');
  const every = o.snapshotEvery ?? 1000;
  if (!Number.isSafeInteger(every) || (every as number) < 1) throw memoryError('out_of_range', `sync.snapshotEvery must be an integer ≥ 1, got ${JSON.stringify(every)}`, 'sync.snapshotEvery');
  const Socket = o.WebSocket ?? (globalThis as { WebSocket?: unknown }).WebSocket;
  if (typeof Socket !== 'function') {
    throw memoryError(o.WebSocket === undefined ? 'missing_field' : 'invalid_value', "sync needs a WebSocket constructor: this runtime has no global WebSocket (Node 20), so pass the ws package's as sync.WebSocket", 'sync.WebSocket');
  }
  return { url: url.href, memory: o.memory, snapshotEvery: every as number, WebSocket: Socket as SyncOptions['WebSocket'] & object };
}

/**
 * A memory's sync (`memory.sync`): its `status`, `status` and `error` events, `now()`, and
 * `close()` (which the memory's `close()` calls).
 */
export class MemorySync extends EventTarget {
  readonly #backend: SyncBackend;
  readonly #keys: SyncKeys;
  readonly #url: string;
  readonly #every: number;
  readonly #Socket: new (url: string) => SyncSocket;

  #status: SyncStatus = 'offline';
  #fatal: AssociativeMemoryError | null = null;
  #closed = false;
  /** The socket, and its generation: frames of an older socket are dropped. */
  #socket: SyncSocket | null = null;
  #generation = 0;
  #welcomed = false;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;

  /** The engine's state as last read. */
  #device: number | null;
  #applied: number;
  #pending: number;
  /** What the relay holds, as far as this device knows: its last position, its snapshot's. */
  #head = 0;
  #floor = 0;
  /** The highest seq pushed on this socket, and the changes pushed, by seq, until their ack. */
  #pushedUpTo = 0;
  #pushed = new Map<number, Uint8Array>();
  /** The last of this device's seqs the relay had logged when it welcomed this socket. */
  #logged = 0;
  /** Entries received, by position, until they are applied. */
  #buffer = new Map<number, LogEntry>();
  /** The position of the snapshot uploaded and not yet answered (0: none). */
  #uploading = 0;
  /** A snapshot too large for a frame was made at this applied position: not tried again before `snapshotEvery` more. */
  #snapshotSkipped = -Infinity;

  /** The pump: frames received, and whether a write asked for a push. */
  #inbox: { generation: number; frame: RelayFrame | Hello }[] = [];
  #wrote = false;
  #pumping: Promise<void> | null = null;

  /** `now()`'s and the write gate's waiters. */
  #waiting: { resolve: () => void; reject: (e: unknown) => void; until: 'synced' | 'started' }[] = [];

  private constructor(backend: SyncBackend, keys: SyncKeys, options: ReturnType<typeof checkSyncOptions>, state: { device: number; applied: number; pending: number } | undefined) {
    super();
    this.#backend = backend;
    this.#keys = keys;
    this.#url = options.url;
    this.#every = options.snapshotEvery;
    this.#Socket = options.WebSocket;
    this.#device = state?.device ?? null;
    this.#applied = state?.applied ?? 0;
    this.#pending = state?.pending ?? 0;
  }

  /**
   * @internal The sync of the memory `backend` holds, connecting. A memory that never synced
   * must be empty (its rows would be in no device's log): else `invalid_value`, field `sync`.
   */
  static async open(backend: SyncBackend, key: Key, options: ReturnType<typeof checkSyncOptions>): Promise<MemorySync> {
    const state = await backend.syncStatus();
    if (state === undefined) {
      const agents = (await backend.call('list_agents', { limit: 1 })) as { total: number };
      if (agents.total > 0) {
        throw memoryError('invalid_value', "this memory holds data but never synced: its rows would reach no other device. Sync a new memory (it starts from the relay's log), or export this one's memories and import them into a synced one", 'sync');
      }
    }
    const keys = await deriveKeys(key, options.memory);
    const sync = new MemorySync(backend, keys, options, state);
    sync.#connect();
    return sync;
  }

  /** Where sync stands: `'synced'`, `'pending'` or `'offline'` (a `status` event says when it changes). */
  get status(): SyncStatus {
    return this.#status;
  }

  /** The last position of the relay's log applied here (0: none). */
  get position(): number {
    return this.#applied;
  }

  /** This device's number, once the relay gave it one. */
  get device(): number | null {
    return this.#device;
  }

  /**
   * Resolves when this device is synced (connected, nothing pending, every entry the relay
   * holds applied); rejects with the error that stopped sync: `unauthorized` (the relay
   * belongs to another key or memory id), `schema` (another schema version), `wrong_key` (an
   * entry that does not unseal), or `closed`.
   */
  now(): Promise<void> {
    return this.#wait('synced');
  }

  /** @internal Resolves once this memory has its device number (its writes wait for it). */
  started(): Promise<void> {
    return this.#wait('started');
  }

  #wait(until: 'synced' | 'started'): Promise<void> {
    // a memory with its device number writes whatever became of its sync
    if (until === 'started' && this.#device !== null && !this.#closed) return Promise.resolve();
    if (this.#fatal) return Promise.reject(this.#fatal);
    if (this.#closed) return Promise.reject(memoryError('closed', 'this memory is closed'));
    if (until === 'synced' ? this.#status === 'synced' : this.#device !== null) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject, until }));
  }

  /** @internal After a local write: its changes are pushed. */
  wrote(): void {
    this.#wrote = true;
    if (this.#status === 'synced') this.#setStatus('pending');
    this.#pump();
  }

  /** Stops syncing (the memory's `close()` calls it): the socket is closed, waiters reject with `closed`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#generation++;
    const socket = this.#socket;
    this.#socket = null;
    try {
      socket?.close(1000, 'closed');
    } catch {
      // closing already
    }
    this.#settle(memoryError('closed', 'this memory is closed'));
    await this.#pumping;
  }

  // ---- the connection ----------------------------------------------------------------------

  #connect(): void {
    this.#timer = null;
    if (this.#closed || this.#fatal) return;
    const generation = ++this.#generation;
    let socket: SyncSocket;
    try {
      socket = new this.#Socket(this.#url);
    } catch (e) {
      this.#error(memoryError('invalid_value', `cannot open a WebSocket to ${this.#url}: ${(e as Error).message}`, 'sync.url'));
      this.#dropped(generation);
      return;
    }
    this.#socket = socket;
    socket.addEventListener('open', () => {
      if (generation !== this.#generation) return;
      // said from the pump, with the position it has applied by then
      this.#inbox.push({ generation, frame: { type: 'hello' } });
      this.#pump();
    });
    socket.addEventListener('message', (event: { data: unknown }) => {
      if (generation !== this.#generation) return;
      let frame: RelayFrame;
      try {
        frame = JSON.parse(String(event.data)) as RelayFrame;
      } catch {
        this.#error(memoryError('invalid_value', 'the relay sent a frame that is not JSON', 'sync.url'));
        return;
      }
      this.#inbox.push({ generation, frame });
      this.#pump();
    });
    socket.addEventListener('close', () => this.#dropped(generation));
    // an error is followed by a close
    socket.addEventListener('error', () => {});
  }

  /** The socket of `generation` is gone: offline, and a reconnection after the backoff. */
  #dropped(generation: number): void {
    if (generation !== this.#generation) return;
    this.#generation++;
    this.#socket = null;
    this.#welcomed = false;
    this.#pushed.clear();
    this.#pushedUpTo = 0;
    this.#buffer.clear();
    this.#uploading = 0;
    this.#setStatus('offline');
    if (this.#closed || this.#fatal) return;
    const wait = Math.min(LAST_WAIT, FIRST_WAIT * 2 ** this.#attempt++);
    this.#timer = setTimeout(() => this.#connect(), wait);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #send(frame: ClientFrame | string): void {
    try {
      this.#socket?.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
    } catch {
      // closing: its close reconnects, and what was not acknowledged is pushed again
    }
  }

  // ---- the pump --------------------------------------------------------------------------------

  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = (async () => {
      try {
        while (!this.#closed && !this.#fatal && (this.#inbox.length > 0 || this.#wrote)) {
          const frames = this.#inbox.splice(0);
          this.#wrote = false;
          for (const { generation, frame } of frames) {
            if (generation === this.#generation) await this.#frame(frame);
          }
          await this.#apply();
          await this.#push();
          await this.#refresh();
          await this.#snapshot();
        }
      } catch (e) {
        this.#failed(e);
      } finally {
        this.#pumping = null;
      }
      // what arrived while it was finishing
      if (!this.#closed && !this.#fatal && (this.#inbox.length > 0 || this.#wrote)) this.#pump();
    })();
  }

  /** An error of the pump: one that stops sync, or one after which the connection starts again. */
  #failed(e: unknown): void {
    const error = e instanceof AssociativeMemoryError ? e : memoryError('internal', `sync failed: ${(e as Error)?.message ?? String(e)}`);
    if (FATAL.has(error.code)) {
      this.#stop(error);
      return;
    }
    this.#error(error);
    const socket = this.#socket;
    this.#dropped(this.#generation);
    try {
      socket?.close(1011, 'sync error');
    } catch {
      // gone already
    }
  }

  async #frame(frame: RelayFrame | Hello): Promise<void> {
    switch (frame.type) {
      case 'hello':
        this.#send({ type: 'hello', token: this.#keys.token, schema: syncSchema(), device: this.#device, after: this.#applied });
        return;
      case 'welcome': {
        if (this.#device === null) {
          await this.#backend.syncStart(frame.device);
          this.#device = frame.device;
        } else if (frame.device !== this.#device) {
          throw memoryError('internal', `the relay welcomed device ${frame.device}; this memory is device ${this.#device}`);
        }
        this.#welcomed = true;
        this.#attempt = 0;
        this.#head = frame.head;
        this.#floor = frame.floor;
        this.#pushedUpTo = frame.seq;
        this.#logged = frame.seq;
        this.#settle();
        return;
      }
      case 'snapshot': {
        const bytes = unseal(this.#keys, snapshotPlace(this.#keys.memory, frame.position), fromBase64(frame.sealed));
        // the changes the relay had logged at the welcome are in the snapshot or after it (not
        // those pushed since: one in flight when the socket drops is still to be pushed)
        await this.#backend.syncJoin(bytes, frame.position, this.#device!, this.#logged);
        this.#applied = frame.position;
        this.#floor = Math.max(this.#floor, frame.position);
        this.#head = Math.max(this.#head, frame.position);
        return;
      }
      case 'entry': {
        this.#head = Math.max(this.#head, frame.position);
        if (frame.position <= this.#applied) return;
        const change = unseal(this.#keys, changePlace(this.#keys.memory, frame.device, frame.seq), fromBase64(frame.sealed));
        this.#buffer.set(frame.position, { position: frame.position, device: frame.device, seq: frame.seq, change });
        return;
      }
      case 'ack': {
        const change = this.#pushed.get(frame.seq);
        this.#pushed.delete(frame.seq);
        // null: compacted into the snapshot, which this device then joins from
        if (frame.position === null || change === undefined) return;
        this.#head = Math.max(this.#head, frame.position);
        if (frame.position > this.#applied) this.#buffer.set(frame.position, { position: frame.position, device: this.#device!, seq: frame.seq, change });
        return;
      }
      case 'stored':
        this.#floor = Math.max(this.#floor, frame.position);
        this.#uploading = 0;
        return;
      case 'error': {
        const error = memoryError(frame.code, `the relay refused: ${frame.message}`, frame.field);
        if (frame.code === 'out_of_range' && frame.field === 'position') {
          // another device's snapshot is as new: the floor is at least there ('stored' went to it)
          this.#floor = Math.max(this.#floor, this.#uploading);
          this.#uploading = 0;
          return;
        }
        throw error;
      }
      default:
        throw memoryError('invalid_value', `the relay sent a frame of unknown type ${JSON.stringify((frame as { type?: unknown }).type)}`, 'sync.url');
    }
  }

  /** The buffered entries that follow the applied position, in runs. */
  async #apply(): Promise<void> {
    for (const position of this.#buffer.keys()) if (position <= this.#applied) this.#buffer.delete(position);
    for (;;) {
      const run: LogEntry[] = [];
      for (let p = this.#applied + 1; run.length < RUN && this.#buffer.has(p); p++) run.push(this.#buffer.get(p)!);
      if (run.length === 0) return;
      await this.#backend.syncApply(run);
      for (const entry of run) this.#buffer.delete(entry.position);
      this.#applied = run.at(-1)!.position;
    }
  }

  /** The pending changes not pushed on this socket yet, sealed, in order. */
  async #push(): Promise<void> {
    if (!this.#welcomed || this.#device === null) return;
    // only those not pushed on this socket yet: pushing n changes reads each once
    for (const { seq, change } of await this.#backend.syncPending(this.#pushedUpTo)) {
      const frame = JSON.stringify({ type: 'push', seq, sealed: toBase64(seal(this.#keys, changePlace(this.#keys.memory, this.#device, seq), change)) } satisfies ClientFrame);
      if (frame.length > MAX_FRAME) {
        throw memoryError('body_too_large', `change ${seq} of this device seals to ${frame.length} bytes, more than a relay frame holds (${MAX_FRAME}); sync stops here. Write in smaller batches (storeMany with fewer items)`);
      }
      this.#send(frame);
      this.#pushed.set(seq, change);
      this.#pushedUpTo = seq;
    }
  }

  /** The engine's state read again, and the status that follows. */
  async #refresh(): Promise<void> {
    const state = await this.#backend.syncStatus();
    if (state) {
      this.#applied = state.applied;
      this.#pending = state.pending;
    }
    if (!this.#welcomed) this.#setStatus('offline');
    else this.#setStatus(this.#pending > 0 || this.#applied < this.#head || this.#wrote ? 'pending' : 'synced');
  }

  /** With nothing pending and `snapshotEvery` entries past the floor: a sealed snapshot, uploaded. */
  async #snapshot(): Promise<void> {
    if (!this.#welcomed || this.#uploading > 0 || this.#pending > 0 || this.#wrote) return;
    if (this.#applied - this.#floor < this.#every || this.#applied - this.#snapshotSkipped < this.#every) return;
    const { position, bytes } = await this.#backend.syncSnapshot();
    if (position <= this.#floor) return;
    const frame = JSON.stringify({ type: 'snapshot', position, sealed: toBase64(seal(this.#keys, snapshotPlace(this.#keys.memory, position), bytes)) } satisfies ClientFrame);
    if (frame.length > MAX_FRAME) {
      // the relay cannot take it; its log stays uncompacted
      this.#snapshotSkipped = position;
      return;
    }
    this.#uploading = position;
    this.#send(frame);
  }

  // ---- status and errors -------------------------------------------------------------------

  #setStatus(status: SyncStatus): void {
    if (status !== this.#status) {
      this.#status = status;
      this.dispatchEvent(new Event('status'));
    }
    if (status === 'synced') this.#settle();
  }

  /** Resolves the waiters whose condition holds, or rejects every one with `error`. */
  #settle(error?: unknown): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const w of waiting) {
      if (error !== undefined) w.reject(error);
      else if (w.until === 'synced' ? this.#status === 'synced' : this.#device !== null) w.resolve();
      else this.#waiting.push(w);
    }
  }

  #error(error: AssociativeMemoryError): void {
    this.dispatchEvent(new SyncErrorEvent(error));
  }

  /** Sync stops for good: `error` to every waiter and every later `now()`. */
  #stop(error: AssociativeMemoryError): void {
    if (this.#fatal) return;
    this.#fatal = error;
    this.#error(error);
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const socket = this.#socket;
    this.#generation++;
    this.#socket = null;
    this.#welcomed = false;
    try {
      socket?.close(1000, error.code);
    } catch {
      // gone already
    }
    this.#setStatus('offline');
    this.#settle(error);
  }
}

/**
 * @internal `backend` with its writes kept in step: a write waits until the memory has its device
 * number (a memory that never synced gets it from its first welcome), and after it the new
 * pending changes are pushed. The one place every write of `AssociativeMemory` passes.
 */
export function syncWrites(backend: Backend, sync: MemorySync, writes: ReadonlySet<string>): Backend {
  const after = async <T>(write: () => Promise<T>): Promise<T> => {
    await sync.started();
    try {
      return await write();
    } finally {
      sync.wrote();
    }
  };
  return {
    ...backend,
    call: (tool, options) => (writes.has(tool) ? after(() => backend.call(tool, options)) : backend.call(tool, options)),
    storeMany: (options, onProgress) => after(() => backend.storeMany(options, onProgress)),
    importBytes: (bytes, key, decrypt) => after(() => backend.importBytes(bytes, key, decrypt)),
    rekey: async () => {
      throw memoryError('invalid_value', "a memory that syncs keeps its key: the relay's token and the seal key are derived from it, the same on every device", 'key');
    },
    close: async () => {
      await sync.close();
      await backend.close();
    },
  };
}
