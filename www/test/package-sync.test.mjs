// The package's sync client (`openMemory({ key, sync: { url, memory } })`) against the real
// relay: workerd from npm serving the edge example's `MemoryRelay` with its storage on disk
// (harness.mjs), devices in this Node process with storage 'memory' and 'file', each reaching
// the relay through a TCP proxy of its own that the test cuts to take it offline. Devices
// that wrote apart converge to the same answers and the same rows; a device joins from
// nothing, and from the snapshot once the relay compacted; a 'file' device's pending changes
// outlive a close; writes go on through a kill -9 of the relay; a wrong key or another memory id is `unauthorized`, another schema
// `schema`, an entry that does not unseal `wrong_key`; the relay's files hold no plaintext.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { hkdfSync, pbkdf2Sync, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import { hosting } from './harness.mjs';
import { proxy } from './proxy.mjs';
import { CONSUMER, importPackage } from './pack.mjs';

const KEY = new Uint8Array(32).map((_, i) => i * 7 + 1);
const MARKER = 'QUOKKA-5e1d-SYNC-MARKER';

/** Every file under `dir`, recursively. */
function files(dir) {
  return readdirSync(dir).flatMap((f) => statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]);
}

/** Awaits `promise` and checks it rejects with an AssociativeMemoryError of `code` (and `field`). */
async function rejects(promise, code, field) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.name, 'AssociativeMemoryError', err.stack);
    assert.equal(err.code, code, err.message);
    if (field !== undefined) assert.equal(err.field, field, err.message);
    return true;
  });
}

/** Waits (up to `ms`) until `check()` is true. */
async function until(check, what, ms = 15000) {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`${what}: not within ${ms / 1000} s`);
}

/**
 * Everything a device answers about `agents`: their memories, entities and a recall, and the
 * rows of every table of its `export()` but sync's own (its device state) and FTS5's
 * (derived, stored in an order of their own): what two converged devices must share.
 */
async function dump(memory, agents = ['kaito', 'mika']) {
  const answers = {};
  for (const agent_id of agents) {
    answers[agent_id] = {
      memories: await memory.listMemories({ agent_id, limit: 500 }),
      entities: await memory.listEntities({ agent_id, limit: 500 }),
      recall: await memory.recall({ agent_id, query: 'ledger release notes', limit: 50 }),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'am-sync-dump-'));
  try {
    const file = join(dir, 'm.sqlite3');
    writeFileSync(file, await memory.export({ decrypt: true }));
    const sql = (q) => JSON.parse(execFileSync('sqlite3', ['-json', file, q], { encoding: 'utf8' }) || '[]');
    const virtual = sql("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%'").map((r) => r.name);
    const tables = sql("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'sync_%' ORDER BY name")
      .map((r) => r.name).filter((t) => !virtual.some((v) => t === v || t.startsWith(`${v}_`)));
    const rows = {};
    for (const t of tables) rows[t] = sql(`SELECT * FROM "${t}"`).map((r) => JSON.stringify(r)).sort();
    return { answers, rows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('sync: the package against the relay (workerd, storage on disk)', () => {
  let server;
  let pkg;
  let scratch;
  const proxies = [];
  const open = [];
  before(async () => {
    server = await hosting({});
    pkg = await importPackage();
    scratch = mkdtempSync(join(tmpdir(), 'am-sync-'));
  });
  after(async () => {
    for (const m of open) await m.close().catch(() => {});
    for (const p of proxies) p.close();
    server?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** A device of the memory `id`: storage 'memory' (or 'file' with `path`), through a proxy of its own. */
  async function device(id, { path, key = KEY, snapshotEvery, via, Socket = WebSocket } = {}) {
    const p = via ?? await proxy(Number(new URL(server.url).port));
    if (!via) proxies.push(p);
    const sync = { url: `ws://127.0.0.1:${p.port}/r/${id}/ws`, memory: id, WebSocket: Socket, ...(snapshotEvery ? { snapshotEvery } : {}) };
    const memory = await pkg.openMemory(path ? { storage: 'file', path, key, sync } : { key, sync });
    open.push(memory);
    return Object.assign(memory, { proxy: p });
  }

  /** Waits until every device is synced at the same position. */
  async function converged(...devices) {
    await until(async () => {
      // now() waits while a device is behind; the loop's deadline bounds it
      await Promise.race([Promise.all(devices.map((d) => d.sync.now())), new Promise((r) => setTimeout(r, 200))]);
      const positions = new Set(devices.map((d) => d.sync.position));
      return positions.size === 1 && devices.every((d) => d.sync.status === 'synced');
    }, 'the devices converge');
  }

  it('converges two devices (memory and file) that both wrote while one was offline', { timeout: 60_000 }, async () => {
    const a = await device('converge');
    const b = await device('converge', { path: join(scratch, 'b.sqlite3') });
    const kaitoA = a.agent('kaito');
    const kaitoB = b.agent('kaito');
    const first = await kaitoA.store({ content: `Kaito maintains the ledger. ${MARKER}`, associations: { entities: [{ name: 'Kaito Mori' }, { name: 'ledger' }] } });
    await converged(a, b);
    assert.equal(a.sync.status, 'synced');
    assert.notEqual(a.sync.device, b.sync.device);
    assert.equal((await kaitoB.getContents({ refs: [`mem:${first.id}`] })).items[0]?.content, `Kaito maintains the ledger. ${MARKER}`, 'b has what a stored');

    // a goes offline; both write
    const statuses = [];
    a.sync.addEventListener('status', () => statuses.push(a.sync.status));
    a.proxy.cut();
    await until(() => a.sync.status === 'offline', 'a sees it is offline');
    const offline = [];
    for (let i = 0; i < 5; i++) offline.push((await kaitoA.store({ content: `offline note ${i} about the release notes`, associations: { entities: [{ name: 'Kaito Mori' }, { name: `topic ${i}` }] } })).id);
    await kaitoA.updateMemory({ memory_id: first.id, content: 'Kaito maintains the ledger and the release notes.' });
    await a.agent('mika').store({ content: 'Mika reviews the ledger on Fridays.', associations: { entities: [{ name: 'Mika' }, { name: 'ledger' }] } });
    const online = [];
    for (let i = 0; i < 4; i++) online.push((await kaitoB.store({ content: `online note ${i} on the ledger`, associations: { entities: [{ name: 'Kaito Mori' }] } })).id);
    await kaitoB.deleteMemory({ memory_id: online[0] });
    await b.sync.now();
    assert.equal(a.sync.status, 'offline');
    assert.equal((await kaitoB.listMemories({ limit: 100 })).total, 4, 'b does not have a\'s offline writes yet');

    a.proxy.restore();
    await converged(a, b);
    assert.ok(statuses.includes('pending') || statuses.includes('synced'), JSON.stringify(statuses));
    const [da, db] = [await dump(a), await dump(b)];
    assert.deepEqual(da, db);
    // the rows compared are the memory's: 10 memories (one deleted), their mentions, the entities
    assert.equal(da.rows.memories.length, 10);
    assert.ok(da.rows.entity_mentions.length >= 10 && da.rows.entities.length >= 8, JSON.stringify(Object.fromEntries(Object.entries(da.rows).map(([t, r]) => [t, r.length]))));
    // both sides' writes are in it
    const contents = da.answers.kaito.memories.memories.map((m) => m.content).sort();
    assert.deepEqual(contents, [
      'Kaito maintains the ledger and the release notes.',
      ...[0, 1, 2, 3, 4].map((i) => `offline note ${i} about the release notes`),
      ...[1, 2, 3].map((i) => `online note ${i} on the ledger`),
    ].sort());
    assert.equal(da.answers.mika.memories.total, 1);
    assert.ok(da.answers.kaito.entities.entities.some((e) => e.name === 'topic 4'));

    // a third device joins later, from nothing, from the log
    const c = await device('converge');
    await converged(a, b, c);
    assert.deepEqual(await dump(c), da);
    assert.equal((await (await fetch(new URL('r/converge/stats', server.url))).json()).floor, 0, 'no snapshot: c read the log');
  });

  it('uploads a snapshot, the relay compacts, and a new device joins from the snapshot', { timeout: 60_000 }, async () => {
    const a = await device('compact', { snapshotEvery: 4 });
    const b = await device('compact', { snapshotEvery: 4 });
    for (let i = 0; i < 6; i++) {
      await a.agent('kaito').store({ content: `a's ledger entry ${i}`, associations: { entities: [{ name: 'Kaito Mori' }] } });
      await b.agent('mika').store({ content: `b's release notes ${i}` });
    }
    await converged(a, b);
    const stats = async () => (await fetch(new URL('r/compact/stats', server.url))).json();
    await until(async () => { const s = await stats(); return s.floor >= 4 && s.entries < s.head; }, 'a snapshot is stored and the log compacted');
    const s = await stats();
    assert.ok(s.head >= 12 && s.entries < s.head - 3, JSON.stringify(s));
    const c = await device('compact', { snapshotEvery: 4 });
    await converged(a, b, c);
    assert.deepEqual(await dump(c), await dump(a));
    // c writes on top of the snapshot, and the others get it
    await c.agent('kaito').store({ content: 'c joined from the snapshot and wrote on the ledger' });
    await converged(a, b, c);
    assert.deepEqual(await dump(a), await dump(c));
    assert.equal((await a.agent('kaito').listMemories()).total, 7);
  });

  it('uploads a snapshot once per snapshotEvery entries, though another device stored it first', { timeout: 60_000 }, async () => {
    const uploads = [];
    class Counting extends WebSocket {
      send(data) {
        const frame = JSON.parse(data);
        if (frame.type === 'snapshot') uploads.push(frame.position);
        super.send(data);
      }
    }
    const a = await device('uploads', { snapshotEvery: 1 });
    const b = await device('uploads', { snapshotEvery: 3, Socket: Counting });
    for (let i = 0; i < 15; i++) {
      await a.agent('kaito').store({ content: `entry ${i}` });
      await converged(a, b);
    }
    // b's uploads were refused or stored, and each taught it the floor: at most one per 3 entries
    assert.ok(uploads.length <= 5, JSON.stringify(uploads));
    assert.ok((await (await fetch(new URL('r/uploads/stats', server.url))).json()).floor >= 12);
  });

  it('a device whose ack was lost, behind a snapshot that holds its change, syncs', { timeout: 60_000 }, async () => {
    const p = await proxy(Number(new URL(server.url).port));
    proxies.push(p);
    let loseAcks = false;
    // drops the first ack it is sent, and the connection with it
    class Lossy extends WebSocket {
      addEventListener(type, listener) {
        if (type !== 'message') return super.addEventListener(type, listener);
        super.addEventListener('message', (event) => {
          if (loseAcks && JSON.parse(String(event.data)).type === 'ack') {
            loseAcks = false;
            p.cut();
            return;
          }
          listener(event);
        });
      }
    }
    const f = await device('lost-ack', { path: join(scratch, 'lost-ack.sqlite3'), via: p, Socket: Lossy, snapshotEvery: 3 });
    const g = await device('lost-ack', { snapshotEvery: 3 });
    await converged(f, g);
    loseAcks = true;
    await f.agent('kaito').store({ content: 'its ack was lost' });
    await until(() => f.sync.status === 'offline', 'f lost its connection');
    for (let i = 0; i < 6; i++) await g.agent('mika').store({ content: `meanwhile ${i}` });
    await g.sync.now();
    await until(async () => (await (await fetch(new URL('r/lost-ack/stats', server.url))).json()).floor >= 6, 'a snapshot past f');
    p.restore();
    await converged(f, g);
    assert.deepEqual(await dump(f), await dump(g));
    assert.equal((await g.agent('kaito').listMemories()).total, 1);
  });

  it("pushes a 'file' device's changes made offline after it is closed and reopened", { timeout: 60_000 }, async () => {
    const path = join(scratch, 'f.sqlite3');
    const p = await proxy(Number(new URL(server.url).port));
    proxies.push(p);
    const f = await device('reopen', { path, via: p });
    const g = await device('reopen');
    await converged(f, g);
    p.cut();
    await until(() => f.sync.status === 'offline', 'f is offline');
    await f.agent('kaito').store({ content: 'written offline, then the process closed' });
    await f.close();
    assert.equal((await g.agent('kaito').listMemories()).total, 0);
    p.restore();
    const again = await device('reopen', { path, via: p });
    await converged(again, g);
    assert.deepEqual((await g.agent('kaito').listMemories()).memories.map((m) => m.content), ['written offline, then the process closed']);
    assert.deepEqual(await dump(g), await dump(again));
  });

  it('rides out the relay killed (kill -9) and restarted while both devices write', { timeout: 60_000 }, async () => {
    const a = await device('restart');
    const b = await device('restart', { path: join(scratch, 'restart.sqlite3') });
    await a.agent('kaito').store({ content: 'before the crash' });
    await converged(a, b);
    const restarted = server.restart();
    const writes = [];
    for (let i = 0; i < 3; i++) {
      writes.push(a.agent('kaito').store({ content: `a during the crash ${i}` }));
      writes.push(b.agent('kaito').store({ content: `b during the crash ${i}` }));
    }
    await Promise.all(writes);
    await restarted;
    await converged(a, b);
    const da = await dump(a, ['kaito']);
    assert.deepEqual(da, await dump(b, ['kaito']));
    assert.equal(da.answers.kaito.memories.total, 7);
  });

  it('refuses a wrong key and another memory id (unauthorized), and stops', { timeout: 60_000 }, async () => {
    const owner = await device('guarded');
    await owner.agent('kaito').store({ content: 'the owner wrote this' });
    await owner.sync.now();
    const errors = [];
    const thief = await device('guarded', { key: new Uint8Array(32).fill(9) });
    thief.sync.addEventListener('error', (e) => errors.push(e.error.code));
    await rejects(thief.sync.now(), 'unauthorized');
    assert.deepEqual(errors, ['unauthorized']);
    assert.equal(thief.sync.status, 'offline');
    // its writes fail too: it never got a device number
    await rejects(thief.agent('kaito').store({ content: 'nope' }), 'unauthorized');
    // the same key under another memory id is another token
    const p = await proxy(Number(new URL(server.url).port));
    proxies.push(p);
    const other = await pkg.openMemory({ key: KEY, sync: { url: `ws://127.0.0.1:${p.port}/r/guarded/ws`, memory: 'not-guarded', WebSocket } });
    open.push(other);
    await rejects(other.sync.now(), 'unauthorized');
    // a passphrase derives its own keys: another token too
    const phrase = await device('guarded', { key: 'correct horse battery staple' });
    await rejects(phrase.sync.now(), 'unauthorized');
    assert.equal((await (await fetch(new URL('r/guarded/stats', server.url))).json()).devices, 1);
  });

  it('derives the token and the seal key as written (HKDF-SHA256, PBKDF2 for a passphrase), and refuses another schema', { timeout: 60_000 }, async () => {
    const seal = await import(pathToFileURL(join(CONSUMER, 'node_modules/associative-memory/seal.js')).href);
    const sync = await import(pathToFileURL(join(CONSUMER, 'node_modules/associative-memory/sync.js')).href);
    const salt = Buffer.from('associative-memory sync schema-test');
    const hkdf = (ikm, info) => Buffer.from(hkdfSync('sha256', ikm, salt, info, 32));
    const keys = await seal.deriveKeys(KEY, 'schema-test');
    assert.equal(keys.token, hkdf(KEY, 'token').toString('base64url'));
    assert.deepEqual(Buffer.from(keys.seal), hkdf(KEY, 'seal'));
    const ikm = pbkdf2Sync('a passphrase', salt, 600_000, 32, 'sha256');
    const phrase = await seal.deriveKeys('a passphrase', 'schema-test');
    assert.equal(phrase.token, hkdf(ikm, 'token').toString('base64url'));
    // sealed: 0x01, a nonce, the padded plaintext; bound to its place
    const sealed = seal.seal(keys, seal.changePlace('schema-test', 3, 9), new TextEncoder().encode(MARKER));
    assert.equal(sealed[0], 1);
    assert.equal(sealed.length, 1 + 24 + 512 + 16);
    assert.equal(new TextDecoder().decode(seal.unseal(keys, seal.changePlace('schema-test', 3, 9), sealed)), MARKER);
    for (const place of [seal.changePlace('schema-test', 3, 10), seal.changePlace('schema-test', 4, 9), seal.changePlace('other', 3, 9), seal.snapshotPlace('schema-test', 9)]) {
      assert.throws(() => seal.unseal(keys, place, sealed), (e) => e.code === 'wrong_key');
    }
    assert.throws(() => seal.unseal(phrase, seal.changePlace('schema-test', 3, 9), sealed), (e) => e.code === 'wrong_key');

    // the schema said in the hello is the engine's (a memory's user_version)
    const plain = await pkg.openMemory();
    const bytes = await plain.export();
    await plain.close();
    assert.equal(Buffer.from(bytes).readInt32BE(60), sync.syncSchema());

    // a relay claimed with this memory's token at another schema refuses the device
    const raw = new WebSocket(new URL('r/schema-test/ws', server.url.replace(/^http/, 'ws')));
    await new Promise((resolve, reject) => { raw.once('open', resolve); raw.once('error', reject); });
    const welcome = new Promise((resolve) => raw.once('message', (d) => resolve(JSON.parse(d.toString()))));
    raw.send(JSON.stringify({ type: 'hello', token: keys.token, schema: sync.syncSchema() + 1, device: null, after: 0 }));
    assert.equal((await welcome).type, 'welcome');
    raw.close();
    const d = await device('schema-test');
    await rejects(d.sync.now(), 'schema');
  });

  it('stops with wrong_key at an entry that does not unseal', { timeout: 60_000 }, async () => {
    const seal = await import(pathToFileURL(join(CONSUMER, 'node_modules/associative-memory/seal.js')).href);
    const sync = await import(pathToFileURL(join(CONSUMER, 'node_modules/associative-memory/sync.js')).href);
    const keys = await seal.deriveKeys(KEY, 'forged');
    // a device of the right token pushes bytes sealed under another key (as a relay could forge)
    const raw = new WebSocket(new URL('r/forged/ws', server.url.replace(/^http/, 'ws')));
    await new Promise((resolve, reject) => { raw.once('open', resolve); raw.once('error', reject); });
    const frames = [];
    raw.on('message', (d) => frames.push(JSON.parse(d.toString())));
    raw.send(JSON.stringify({ type: 'hello', token: keys.token, schema: sync.syncSchema(), device: null, after: 0 }));
    await until(() => frames.length === 1, 'welcome');
    const forged = seal.seal({ ...keys, seal: randomBytes(32) }, seal.changePlace('forged', 1, 1), new Uint8Array(40));
    raw.send(JSON.stringify({ type: 'push', seq: 1, sealed: Buffer.from(forged).toString('base64') }));
    await until(() => frames.length === 2, 'ack');
    raw.close();
    const d = await device('forged');
    await rejects(d.sync.now(), 'wrong_key');
  });

  it('checks its options: a key, a storage that syncs, an empty memory to start from', { timeout: 60_000 }, async () => {
    const sync = { url: 'ws://127.0.0.1:1/r/x/ws', memory: 'x', WebSocket };
    await rejects(pkg.openMemory({ sync }), 'missing_field', 'key');
    await rejects(pkg.openMemory({ storage: 'opfs', key: KEY, sync }), 'invalid_value', 'sync');
    await rejects(pkg.openMemory({ storage: 'remote', url: 'https://example.com/m/x', token: 't', sync }), 'invalid_value', 'sync');
    await rejects(pkg.openMemory({ key: KEY, sync: { ...sync, url: 'ftp://x' } }), 'invalid_value', 'sync.url');
    await rejects(pkg.openMemory({ key: KEY, sync: { ...sync, memory: '' } }), 'invalid_value', 'sync.memory');
    await rejects(pkg.openMemory({ key: KEY, sync: { ...sync, snapshotEvery: 0 } }), 'out_of_range', 'sync.snapshotEvery');
    await rejects(pkg.openMemory({ key: KEY, sync: { ...sync, colour: 1 } }), 'unknown_option', 'sync.colour');
    // a file that holds data and never synced would sync none of it
    const path = join(scratch, 'unsynced.sqlite3');
    const plain = await pkg.openMemory({ storage: 'file', path, key: KEY });
    await plain.agent('kaito').store({ content: 'written before sync' });
    await plain.close();
    await rejects(pkg.openMemory({ storage: 'file', path, key: KEY, sync }), 'invalid_value', 'sync');
    // and the failed open let go of the file
    const again = await pkg.openMemory({ storage: 'file', path, key: KEY });
    await again.close();
    // a memory that syncs keeps the key its token and seal key come from
    const synced = await device('rekeyed');
    await rejects(synced.rekey(new Uint8Array(32).fill(3)), 'invalid_value', 'key');
  });

  it("keeps no plaintext in the relay's files", { timeout: 60_000 }, async () => {
    // every test above stored through the relay; the marker went through 'converge'
    const bytes = files(server.storage).map((f) => readFileSync(f));
    assert.ok(bytes.length > 0);
    for (const [i, b] of bytes.entries()) {
      for (const text of [MARKER, 'offline note', 'Kaito Mori', 'release notes']) assert.ok(!b.includes(text), `${files(server.storage)[i]} holds ${text}`);
    }
  });
});
