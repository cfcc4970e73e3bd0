// `MemoryRelay` (exported from `associative-memory/durable-object`): the blind relay of sync, a
// Durable Object per memory that orders what the memory's devices push into one append-only
// log and hands it to every device, with a snapshot to start new ones from. It never parses,
// decrypts or holds a key for what it keeps: every payload is bytes sealed on a device. Its
// protocol is relay-protocol.ts (the frames) and www/README.md, "Relay protocol".
//
// Storage, the object's SQLite: `meta` (the claiming token's SHA-256 and the schema version),
// `devices` (each allocated number and the last seq logged from it), `log` (position →
// device, seq, sealed bytes; a unique (device, seq), so a retried push is found, never
// appended twice) and `snapshot` (at most one row: its position is the floor). Every frame is
// handled with no `await` between its reads and its writes, so two sockets' frames never
// interleave within one, and its writes commit together before its answer leaves (the
// object's output gate).

import { DurableObject } from 'cloudflare:workers';
import {
  BASE64, CLOSE, MAX_DEVICE, MAX_FRAME, MAX_TOKEN, fromBase64, toBase64,
  type ClientFrame, type ErrorFrame, type HelloFrame, type PushFrame, type RelayErrorCode, type RelayFrame, type SnapshotUploadFrame,
} from './relay-protocol.js';

/** What a socket's attachment holds once its hello was welcomed (it outlives hibernation). */
interface Welcomed { device: number }

/** A refused frame: the error frame it answers with, and the close code that follows, if any. */
class Refusal extends Error {
  constructor(readonly frame: ErrorFrame, readonly close?: number) {
    super(frame.message);
  }
}

function refuse(code: RelayErrorCode, message: string, extra: Omit<ErrorFrame, 'type' | 'code' | 'message'> = {}, close?: number): Refusal {
  return new Refusal({ type: 'error', code, message, ...extra }, close);
}

/** SHA-256 of `text`, in hex. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

const isCount = (v: unknown, min: number): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= min;

/** `frame[field]`, or `invalid_value` naming it unless `ok`. */
function field<T>(frame: Record<string, unknown>, name: string, ok: (v: unknown) => v is T, what: string): T {
  const v = frame[name];
  if (!ok(v)) throw refuse('invalid_value', `${name} must be ${what}`, { field: name });
  return v;
}

const isSealed = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && BASE64.test(v);
const SEALED = 'non-empty standard base64 (the sealed bytes)';

/** A device's frame, checked: `body_too_large` past `MAX_FRAME`, `invalid_value` naming the field at fault. */
export function parseClientFrame(message: string | ArrayBuffer): ClientFrame {
  const size = typeof message === 'string'
    ? (message.length * 3 <= MAX_FRAME ? message.length : new TextEncoder().encode(message).byteLength)
    : message.byteLength;
  if (size > MAX_FRAME) throw refuse('body_too_large', `the frame is ${size} bytes; at most ${MAX_FRAME}`);
  if (typeof message !== 'string') throw refuse('invalid_value', 'frames are JSON text, not binary', { field: 'frame' });
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch (e) {
    throw refuse('invalid_value', `the frame is not JSON: ${(e as Error).message}`, { field: 'frame' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refuse('invalid_value', 'the frame must be a JSON object', { field: 'frame' });
  const frame = parsed as Record<string, unknown>;
  switch (frame.type) {
    case 'hello':
      return {
        type: 'hello',
        token: field(frame, 'token', (v): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_TOKEN, `a string of 1–${MAX_TOKEN} characters`),
        schema: field(frame, 'schema', (v): v is number => isCount(v, 0), 'a schema version (an integer ≥ 0)'),
        device: field(frame, 'device', (v): v is number | null => v === null || (isCount(v, 1) && v < MAX_DEVICE), `null or a device number (1–${MAX_DEVICE - 1})`),
        after: field(frame, 'after', (v): v is number => isCount(v, 0), 'the last position the device holds (an integer ≥ 0)'),
      };
    case 'push':
      return {
        type: 'push',
        seq: field(frame, 'seq', (v): v is number => isCount(v, 1), 'an integer ≥ 1'),
        sealed: field(frame, 'sealed', isSealed, SEALED),
      };
    case 'snapshot':
      return {
        type: 'snapshot',
        position: field(frame, 'position', (v): v is number => isCount(v, 1), 'a log position (an integer ≥ 1)'),
        sealed: field(frame, 'sealed', isSealed, SEALED),
      };
    default:
      throw refuse('invalid_value', `type must be "hello", "push" or "snapshot"; got ${JSON.stringify(frame.type) ?? 'none'}`, { field: 'type' });
  }
}

/** What `stats()` answers: the log's extent and what the object's storage holds. */
export interface RelayStats {
  /** The last position (0: empty). */
  head: number;
  /** The stored snapshot's position (0: none). */
  floor: number;
  /** Entries kept in the log (those at or below `floor` go at the next compaction). */
  entries: number;
  /** Device numbers allocated. */
  devices: number;
  /** The sealed bytes kept: the log's entries and the snapshot. */
  sealedBytes: number;
  /** The object's SQLite database, in bytes (`sql.databaseSize`). */
  databaseBytes: number;
}

/**
 * The blind relay of one memory's sync: a Durable Object (bind it with SQLite storage,
 * `new_sqlite_classes`, and route to it with `idFromName(memory)`). `GET /ws` upgrades to a
 * hibernatable WebSocket speaking the relay protocol (relay-protocol.ts; the package README,
 * "Relay protocol"); `stats()`, over RPC, is for the Worker's own code.
 */
export class MemoryRelay extends DurableObject {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    sql.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value NOT NULL)');
    sql.exec('CREATE TABLE IF NOT EXISTS devices (device INTEGER PRIMARY KEY, seq INTEGER NOT NULL, created_at INTEGER NOT NULL)');
    sql.exec('CREATE TABLE IF NOT EXISTS log (position INTEGER PRIMARY KEY, device INTEGER NOT NULL, seq INTEGER NOT NULL, sealed BLOB NOT NULL, UNIQUE (device, seq))');
    sql.exec('CREATE TABLE IF NOT EXISTS snapshot (one INTEGER PRIMARY KEY CHECK (one = 1), position INTEGER NOT NULL, sealed BLOB NOT NULL)');
  }

  /** `GET /ws`: a WebSocket of the relay protocol. */
  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname.replace(/\/+$/, '');
    if (!path.endsWith('/ws')) {
      return Response.json({ error: { code: 'not_found', message: `no route ${request.method} ${path}: the relay serves GET /ws`, field: null } }, { status: 404 });
    }
    if (request.method !== 'GET' || request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
      return Response.json({ error: { code: 'invalid_value', message: '/ws takes a WebSocket upgrade (GET, Upgrade: websocket)', field: 'Upgrade' } }, { status: 426 });
    }
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /** The log's extent and the storage it takes (for the Worker's own code, over RPC). */
  async stats(): Promise<RelayStats> {
    const sql = this.ctx.storage.sql;
    const log = sql.exec<{ n: number; bytes: number }>('SELECT count(*) AS n, coalesce(sum(length(sealed)), 0) AS bytes FROM log').one();
    const snap = sql.exec<{ bytes: number }>('SELECT coalesce(sum(length(sealed)), 0) AS bytes FROM snapshot').one();
    return {
      head: this.#head(),
      floor: this.#floor(),
      entries: log.n,
      devices: sql.exec<{ n: number }>('SELECT count(*) AS n FROM devices').one().n,
      sealedBytes: log.bytes + snap.bytes,
      databaseBytes: sql.databaseSize,
    };
  }

  async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    try {
      const frame = parseClientFrame(message);
      if (frame.type === 'hello') await this.#hello(ws, frame);
      else if (frame.type === 'push') this.#push(ws, frame);
      else await this.#snapshot(ws, frame);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      send(ws, e.frame);
      if (e.close !== undefined) ws.close(e.close, e.frame.code);
    }
  }

  async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    try {
      ws.close(code, reason);
    } catch {
      // closed already, or a code that cannot be sent back (1005, 1006)
    }
  }

  /** Compaction: the entries the stored snapshot covers leave the log. */
  async alarm(): Promise<void> {
    const floor = this.#floor();
    if (floor > 0) this.ctx.storage.sql.exec('DELETE FROM log WHERE position <= ?', floor);
  }

  #floor(): number {
    return this.ctx.storage.sql.exec<{ p: number }>('SELECT coalesce(max(position), 0) AS p FROM snapshot').one().p;
  }

  /** The last position: the log's, or the snapshot's once compaction emptied it. */
  #head(): number {
    const last = this.ctx.storage.sql.exec<{ p: number }>('SELECT coalesce(max(position), 0) AS p FROM log').one().p;
    return Math.max(last, this.#floor());
  }

  #meta(key: string): string | number | undefined {
    return this.ctx.storage.sql.exec<{ value: string | number }>('SELECT value FROM meta WHERE key = ?', key).toArray()[0]?.value;
  }

  async #hello(ws: WebSocket, hello: HelloFrame): Promise<void> {
    if (welcomed(ws)) throw refuse('invalid_value', 'this socket said hello already', { field: 'type' });
    const hash = await sha256(hello.token);
    // from here on, no await: what is read and written is one consistent state
    const sql = this.ctx.storage.sql;
    const claimed = this.#meta('token');
    if (claimed !== undefined && claimed !== hash) throw refuse('unauthorized', 'this token does not open this relay: it belongs to another memory key', {}, CLOSE.unauthorized);
    const schema = this.#meta('schema');
    if (schema !== undefined && schema !== hello.schema) {
      throw refuse('schema', `this relay holds schema version ${schema}; the device speaks ${hello.schema}`, { relay: Number(schema) }, CLOSE.schema);
    }
    if (hello.device !== null && sql.exec('SELECT 1 FROM devices WHERE device = ?', hello.device).toArray().length === 0) {
      throw refuse('forbidden', `device ${hello.device} was never allocated by this relay: say hello with device null to get a number`, { field: 'device' }, CLOSE.forbidden);
    }
    const device = this.ctx.storage.transactionSync(() => {
      if (claimed === undefined) {
        sql.exec("INSERT INTO meta (key, value) VALUES ('token', ?), ('schema', ?)", hash, hello.schema);
      }
      if (hello.device !== null) return hello.device;
      const next = sql.exec<{ d: number }>('SELECT coalesce(max(device), 0) + 1 AS d FROM devices').one().d;
      if (next >= MAX_DEVICE) throw refuse('out_of_range', `this relay has allocated all ${MAX_DEVICE - 1} device numbers`, { field: 'device' });
      sql.exec('INSERT INTO devices (device, seq, created_at) VALUES (?, 0, ?)', next, Date.now());
      return next;
    });
    ws.serializeAttachment({ device } satisfies Welcomed);
    const head = this.#head();
    const floor = this.#floor();
    const seq = sql.exec<{ seq: number }>('SELECT seq FROM devices WHERE device = ?', device).one().seq;
    send(ws, { type: 'welcome', device, head, floor, seq });
    if (hello.after < floor) {
      const snap = sql.exec<{ position: number; sealed: ArrayBuffer }>('SELECT position, sealed FROM snapshot').one();
      send(ws, { type: 'snapshot', position: snap.position, sealed: toBase64(new Uint8Array(snap.sealed)) });
    }
    const rows = sql.exec<{ position: number; device: number; seq: number; sealed: ArrayBuffer }>(
      'SELECT position, device, seq, sealed FROM log WHERE position > ? ORDER BY position', Math.max(hello.after, floor));
    for (const row of rows) {
      send(ws, { type: 'entry', position: row.position, device: row.device, seq: row.seq, sealed: toBase64(new Uint8Array(row.sealed)) });
    }
  }

  #push(ws: WebSocket, push: PushFrame): void {
    const me = welcomed(ws);
    if (!me) throw refuse('unauthorized', 'say hello first: a push comes after the welcome');
    const sql = this.ctx.storage.sql;
    const last = sql.exec<{ seq: number }>('SELECT seq FROM devices WHERE device = ?', me.device).one().seq;
    if (push.seq <= last) {
      // sent again: the same answer, nothing appended
      const logged = sql.exec<{ position: number }>('SELECT position FROM log WHERE device = ? AND seq = ?', me.device, push.seq).toArray();
      send(ws, { type: 'ack', seq: push.seq, position: logged[0]?.position ?? null });
      return;
    }
    if (push.seq !== last + 1) {
      throw refuse('out_of_order', `device ${me.device} pushed seq ${push.seq}; the next is ${last + 1}`, { field: 'seq', expected: last + 1 });
    }
    const bytes = fromBase64(push.sealed);
    const position = this.#head() + 1;
    this.ctx.storage.transactionSync(() => {
      sql.exec('INSERT INTO log (position, device, seq, sealed) VALUES (?, ?, ?, ?)', position, me.device, push.seq, bytes.buffer);
      sql.exec('UPDATE devices SET seq = ? WHERE device = ?', push.seq, me.device);
    });
    send(ws, { type: 'ack', seq: push.seq, position });
    const entry = JSON.stringify({ type: 'entry', position, device: me.device, seq: push.seq, sealed: push.sealed } satisfies RelayFrame);
    for (const other of this.ctx.getWebSockets()) {
      if (other !== ws && welcomed(other)) sendText(other, entry);
    }
  }

  async #snapshot(ws: WebSocket, upload: SnapshotUploadFrame): Promise<void> {
    if (!welcomed(ws)) throw refuse('unauthorized', 'say hello first: a snapshot comes after the welcome');
    const floor = this.#floor();
    const head = this.#head();
    if (upload.position <= floor || upload.position > head) {
      throw refuse('out_of_range', `a snapshot's position must be above the stored one (${floor}) and at most the head (${head}); got ${upload.position}`, { field: 'position' });
    }
    this.ctx.storage.sql.exec('INSERT OR REPLACE INTO snapshot (one, position, sealed) VALUES (1, ?, ?)', upload.position, fromBase64(upload.sealed).buffer);
    await this.ctx.storage.setAlarm(Date.now());
    send(ws, { type: 'stored', position: upload.position });
  }
}

/** The socket's welcome (its device), or undefined before one. */
function welcomed(ws: WebSocket): Welcomed | undefined {
  return (ws.deserializeAttachment() ?? undefined) as Welcomed | undefined;
}

function send(ws: WebSocket, frame: RelayFrame): void {
  sendText(ws, JSON.stringify(frame));
}

/** Sends, unless the socket closed meanwhile (its device reconnects with `after`). */
function sendText(ws: WebSocket, text: string): void {
  try {
    ws.send(text);
  } catch {
    // closed: nothing is lost, the log has it
  }
}
