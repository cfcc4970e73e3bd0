// The package's `MemoryRelay` (associative-memory/durable-object), the blind relay of sync, in
// workerd from npm behind the deployable example's router (`/r/<memory>/ws`), its SQLite
// storage on disk: devices speak the relay protocol (relay-protocol.ts) over WebSockets (the
// `ws` client). Claiming and refusing, device numbers, one ordered log with broadcasts, retries
// appended once, gaps refused, catching up from a position, snapshots and compaction on the
// alarm, a kill -9, and malformed frames. What the relay stores is read through its `stats()`
// (RPC, the tests' `/r/<memory>/stats` route) and from its files on disk.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { hosting } from './harness.mjs';

/** Every file under `dir`, recursively. */
function files(dir) {
  return readdirSync(dir).flatMap((f) => statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]);
}

const TOKEN = 'relay-token-derived-from-the-memory-key';
const SCHEMA = 3;
/** Sealed bytes as a device sends them: `n` random bytes (ciphertext looks so), base64. */
const sealed = (n = 300) => randomBytes(n).toString('base64');

/**
 * A device's socket to the relay of `memory`: `send(frame)`, `next()` the next frame the relay
 * sent (in order; rejects after 5 s), `take(n)` the next `n`, `hello(fields)` says hello
 * (this memory's token and schema, a new device, from nothing; `fields` replace) and answers
 * the welcome or the error, `closed` the close code.
 */
async function connect(server, memory) {
  const ws = new WebSocket(new URL(`r/${memory}/ws`, server.url.replace(/^http/, 'ws')));
  const frames = [];
  const waiting = [];
  ws.on('message', (data, binary) => {
    const frame = binary ? { binary: true } : JSON.parse(data.toString());
    const w = waiting.shift();
    if (w) w(frame); else frames.push(frame);
  });
  const closed = new Promise((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  const peer = {
    ws,
    closed,
    send: (frame) => ws.send(typeof frame === 'string' || frame instanceof Uint8Array ? frame : JSON.stringify(frame)),
    next: () => frames.length > 0 ? Promise.resolve(frames.shift()) : new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no frame from the relay within 5 s\n${server.log().slice(-2000)}`)), 5000);
      waiting.push((f) => { clearTimeout(timer); resolve(f); });
    }),
    /** The next `n` frames. */
    take: async (n) => { const out = []; for (let i = 0; i < n; i++) out.push(await peer.next()); return out; },
    hello: async (fields = {}) => {
      peer.send({ type: 'hello', token: TOKEN, schema: SCHEMA, device: null, after: 0, ...fields });
      return peer.next();
    },
    close: () => ws.close(),
  };
  return peer;
}

const stats = async (server, memory) => (await fetch(new URL(`r/${memory}/stats`, server.url))).json();

/** Waits (up to 5 s) until `check()` is true. */
async function until(check, what) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`${what}: not within 5 s`);
}

describe('the sync relay in a Durable Object (workerd, storage on disk)', () => {
  let server;
  before(async () => { server = await hosting({}); });
  after(() => server?.stop());

  it('is claimed by its first hello, and refuses another token, another schema and unallocated devices, storing nothing', async () => {
    // a hello naming a device on an empty relay is refused, and claims nothing
    const early = await connect(server, 'claim');
    assert.deepEqual(await early.hello({ token: 'another memory key', device: 4 }), {
      type: 'error', code: 'forbidden', field: 'device', message: 'device 4 was never allocated by this relay: say hello with device null to get a number' });
    assert.equal(await early.closed, 4403);
    const empty = await stats(server, 'claim');
    assert.deepEqual([empty.head, empty.entries, empty.devices], [0, 0, 0]);

    const owner = await connect(server, 'claim');
    assert.deepEqual(await owner.hello(), { type: 'welcome', device: 1, head: 0, floor: 0, seq: 0 });
    owner.send({ type: 'push', seq: 1, sealed: sealed() });
    assert.deepEqual(await owner.next(), { type: 'ack', seq: 1, position: 1 });

    const stranger = await connect(server, 'claim');
    const refused = await stranger.hello({ token: 'another memory key' });
    assert.deepEqual([refused.type, refused.code], ['error', 'unauthorized'], JSON.stringify(refused));
    assert.equal(await stranger.closed, 4401);

    const newer = await connect(server, 'claim');
    assert.deepEqual(await newer.hello({ schema: SCHEMA + 1 }), {
      type: 'error', code: 'schema', relay: SCHEMA, message: `this relay holds schema version ${SCHEMA}; the device speaks ${SCHEMA + 1}` });
    assert.equal(await newer.closed, 4409);

    // a push before any hello is refused; the socket stays open for its hello
    const eager = await connect(server, 'claim');
    eager.send({ type: 'push', seq: 1, sealed: sealed() });
    assert.deepEqual((({ type, code }) => ({ type, code }))(await eager.next()), { type: 'error', code: 'unauthorized' });
    assert.equal((await eager.hello({ device: 1, after: 1 })).type, 'welcome');

    // none of the refused allocated a device or logged an entry
    const after = await stats(server, 'claim');
    assert.deepEqual([after.head, after.entries, after.devices], [1, 1, 1]);
    // the relay keeps the token's hash, never the token
    for (const f of files(server.storage)) assert.ok(!readFileSync(f).includes(TOKEN), `${f} holds the token`);
    for (const p of [owner, eager]) p.close();
  });

  it('allocates device numbers 1, 2, 3 and welcomes only the numbers it allocated', async () => {
    const numbers = [];
    for (let i = 0; i < 3; i++) {
      const p = await connect(server, 'devices');
      numbers.push((await p.hello()).device);
      p.close();
    }
    assert.deepEqual(numbers, [1, 2, 3]);
    const again = await connect(server, 'devices');
    assert.deepEqual(await again.hello({ device: 2 }), { type: 'welcome', device: 2, head: 0, floor: 0, seq: 0 });
    const unknown = await connect(server, 'devices');
    assert.equal((await unknown.hello({ device: 4 })).code, 'forbidden');
    assert.equal(await unknown.closed, 4403);
    assert.equal((await stats(server, 'devices')).devices, 3);
    again.close();
  });

  it('orders two devices\' pushes into one log, broadcasts each to the other, appends a retry once and refuses a gap', async () => {
    const a = await connect(server, 'log');
    const b = await connect(server, 'log');
    assert.equal((await a.hello()).device, 1);
    assert.equal((await b.hello()).device, 2);
    const pushed = [];
    const order = [[a, 1, 1], [b, 2, 1], [a, 1, 2], [b, 2, 2], [a, 1, 3]];
    for (const [peer, device, seq] of order) {
      const bytes = sealed();
      peer.send({ type: 'push', seq, sealed: bytes });
      const position = pushed.length + 1;
      assert.deepEqual(await peer.next(), { type: 'ack', seq, position });
      const other = peer === a ? b : a;
      assert.deepEqual(await other.next(), { type: 'entry', position, device, seq, sealed: bytes });
      pushed.push({ type: 'entry', position, device, seq, sealed: bytes });
    }
    // the same push again: the same ack, nothing appended, nothing broadcast
    a.send({ type: 'push', seq: 3, sealed: pushed[4].sealed });
    assert.deepEqual(await a.next(), { type: 'ack', seq: 3, position: 5 });
    a.send({ type: 'push', seq: 1, sealed: pushed[0].sealed });
    assert.deepEqual(await a.next(), { type: 'ack', seq: 1, position: 1 });
    // a gap: refused, nothing appended
    a.send({ type: 'push', seq: 5, sealed: sealed() });
    assert.deepEqual(await a.next(), { type: 'error', code: 'out_of_order', field: 'seq', expected: 4, message: 'device 1 pushed seq 5; the next is 4' });
    const s = await stats(server, 'log');
    assert.deepEqual([s.head, s.entries], [5, 5]);
    // b heard of none of them: the socket keeps order, so its next frame is the ack of its own next push
    b.send({ type: 'push', seq: 3, sealed: sealed() });
    assert.deepEqual(await b.next(), { type: 'ack', seq: 3, position: 6 });
    assert.equal((await a.next()).position, 6);

    // b reconnects holding positions up to 2: exactly 3..6 follow its welcome
    b.close();
    const back = await connect(server, 'log');
    assert.deepEqual(await back.hello({ device: 2, after: 2 }), { type: 'welcome', device: 2, head: 6, floor: 0, seq: 3 });
    const caught = await back.take(4);
    assert.deepEqual(caught.slice(0, 3), pushed.slice(2));
    assert.deepEqual([caught[3].position, caught[3].device, caught[3].seq], [6, 2, 3]);
    // and a device from nothing gets all six, in order
    const fresh = await connect(server, 'log');
    assert.deepEqual(await fresh.hello(), { type: 'welcome', device: 3, head: 6, floor: 0, seq: 0 });
    assert.deepEqual((await fresh.take(6)).map((f) => [f.type, f.position]), [1, 2, 3, 4, 5, 6].map((p) => ['entry', p]));
    for (const p of [a, back, fresh]) p.close();
  });

  it('stores a snapshot, compacts the entries it covers on the alarm, and starts new devices from it', async () => {
    const a = await connect(server, 'snap');
    await a.hello();
    const bodies = [];
    for (let seq = 1; seq <= 10; seq++) {
      bodies.push(sealed());
      a.send({ type: 'push', seq, sealed: bodies.at(-1) });
      assert.equal((await a.next()).position, seq);
    }
    const snapshot = sealed(2000);
    for (const position of [0, 11]) {
      a.send({ type: 'snapshot', position, sealed: snapshot });
      const refused = await a.next();
      assert.deepEqual([refused.code, refused.field], [position === 0 ? 'invalid_value' : 'out_of_range', 'position'], JSON.stringify(refused));
    }
    assert.equal((await stats(server, 'snap')).floor, 0);
    a.send({ type: 'snapshot', position: 6, sealed: snapshot });
    assert.deepEqual(await a.next(), { type: 'stored', position: 6 });
    // compaction: entries 1..6 leave the storage
    await until(async () => (await stats(server, 'snap')).entries === 4, 'the alarm compacted the log');
    const s = await stats(server, 'snap');
    assert.deepEqual([s.head, s.floor, s.entries, s.sealedBytes], [10, 6, 4, 4 * 300 + 2000]);
    // a new device: the welcome, the snapshot, then 7..10
    const b = await connect(server, 'snap');
    assert.deepEqual(await b.hello(), { type: 'welcome', device: 2, head: 10, floor: 6, seq: 0 });
    assert.deepEqual(await b.next(), { type: 'snapshot', position: 6, sealed: snapshot });
    assert.deepEqual(await b.take(4), [7, 8, 9, 10].map((position) => ({ type: 'entry', position, device: 1, seq: position, sealed: bodies[position - 1] })));
    // one holding up to 8 needs no snapshot
    const c = await connect(server, 'snap');
    assert.equal((await c.hello({ device: 2, after: 8 })).floor, 6);
    assert.deepEqual((await c.take(2)).map((f) => [f.type, f.position]), [['entry', 9], ['entry', 10]]);
    // a snapshot at or below the floor is refused; a retried push now compacted is acked without its position
    a.send({ type: 'snapshot', position: 6, sealed: snapshot });
    assert.equal((await a.next()).code, 'out_of_range');
    a.send({ type: 'push', seq: 2, sealed: bodies[1] });
    assert.deepEqual(await a.next(), { type: 'ack', seq: 2, position: null });
    a.send({ type: 'push', seq: 11, sealed: sealed() });
    assert.deepEqual(await a.next(), { type: 'ack', seq: 11, position: 11 });
    for (const p of [a, b, c]) p.close();
  });

  it('keeps its log through a kill -9 of workerd', async () => {
    const a = await connect(server, 'crash');
    await a.hello();
    const bodies = [];
    for (let seq = 1; seq <= 20; seq++) {
      bodies.push(sealed());
      a.send({ type: 'push', seq, sealed: bodies.at(-1) });
      assert.equal((await a.next()).position, seq);
    }
    await server.restart('SIGKILL');
    assert.equal(await a.closed, 1006);
    const back = await connect(server, 'crash');
    assert.deepEqual(await back.hello({ device: 1 }), { type: 'welcome', device: 1, head: 20, floor: 0, seq: 20 });
    assert.deepEqual((await back.take(20)).map((f) => f.sealed), bodies);
    back.send({ type: 'push', seq: 20, sealed: bodies[19] });
    assert.deepEqual(await back.next(), { type: 'ack', seq: 20, position: 20 });
    back.send({ type: 'push', seq: 21, sealed: sealed() });
    assert.deepEqual(await back.next(), { type: 'ack', seq: 21, position: 21 });
    back.close();
  });

  it('answers a frame over 1 MiB and malformed frames with typed errors, and stores nothing of them', async () => {
    const a = await connect(server, 'frames');
    await a.hello();
    const before = await stats(server, 'frames');
    const cases = [
      [JSON.stringify({ type: 'push', seq: 1, sealed: 'A'.repeat(1024 * 1024) }), 'body_too_large', undefined],
      ['{"type": "push", ', 'invalid_value', 'frame'],
      ['[1, 2]', 'invalid_value', 'frame'],
      [new Uint8Array([1, 2, 3]), 'invalid_value', 'frame'],
      [{ type: 'pull' }, 'invalid_value', 'type'],
      [{ seq: 1, sealed: 'AAAA' }, 'invalid_value', 'type'],
      [{ type: 'push', sealed: 'AAAA' }, 'invalid_value', 'seq'],
      [{ type: 'push', seq: '1', sealed: 'AAAA' }, 'invalid_value', 'seq'],
      [{ type: 'push', seq: 1.5, sealed: 'AAAA' }, 'invalid_value', 'seq'],
      [{ type: 'push', seq: 1, sealed: 'not base64!' }, 'invalid_value', 'sealed'],
      [{ type: 'push', seq: 1, sealed: '' }, 'invalid_value', 'sealed'],
      [{ type: 'push', seq: 1, sealed: 42 }, 'invalid_value', 'sealed'],
      [{ type: 'snapshot', position: 1 }, 'invalid_value', 'sealed'],
      [{ type: 'hello', token: TOKEN, schema: SCHEMA, device: null }, 'invalid_value', 'after'],
      [{ type: 'hello', token: TOKEN, schema: SCHEMA, device: 1.5, after: 0 }, 'invalid_value', 'device'],
      [{ type: 'hello', token: '', schema: SCHEMA, device: null, after: 0 }, 'invalid_value', 'token'],
      // a second hello on a welcomed socket: refused, no second device allocated
      [{ type: 'hello', token: TOKEN, schema: SCHEMA, device: null, after: 0 }, 'invalid_value', 'type'],
    ];
    for (const [frame, code, field] of cases) {
      a.send(frame);
      const answer = await a.next();
      assert.deepEqual([answer.type, answer.code, answer.field], ['error', code, field], `${String(frame).slice(0, 60)}: ${JSON.stringify(answer)}`);
    }
    // a frame of exactly 1 MiB is read (and this one is well-formed, so it is logged)
    const body = 'A'.repeat(1024 * 1024 - 40);
    const exact = JSON.stringify({ type: 'push', seq: 1, sealed: body }).padEnd(1024 * 1024, ' ');
    assert.equal(Buffer.byteLength(exact), 1024 * 1024);
    a.send(exact);
    assert.deepEqual(await a.next(), { type: 'ack', seq: 1, position: 1 });
    const after = await stats(server, 'frames');
    assert.deepEqual([before.head, before.entries, after.head, after.entries, after.devices], [0, 0, 1, 1, 1]);
    a.close();
  });
});
