// The package's `MemoryObject` (associative-memory/durable-object) in workerd from npm, with
// SQLite-backed Durable Objects kept on disk: a memory survives a restart and a kill -9, a
// call that fails writes nothing, HTTP and RPC answer with the engine's typed errors, memories
// keep apart, and with a key the object's file on disk holds no plaintext.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSUMER } from './pack.mjs';
import { startWorkerd } from './harness.mjs';

const WORKER = join(CONSUMER, 'edge-do', 'worker.js');

/** Every file under `dir`, recursively. */
function files(dir) {
  return readdirSync(dir).flatMap((f) => statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]);
}

async function post(server, path, body) {
  const res = await fetch(new URL(path, server.url), { method: 'POST', body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const call = (server, memory, tool, options) => post(server, `m/${memory}/call`, { tool, options });
const rpc = (server, memory, method, ...args) => post(server, `m/${memory}/rpc`, { method, args }).then((r) => r.body);

describe('a memory in a Durable Object (workerd, storage on disk)', () => {
  let server;
  let storage;
  before(async () => {
    storage = mkdtempSync(join(tmpdir(), 'am-do-'));
    server = await startWorkerd(WORKER, {}, { objects: ['MemoryObject'], storage });
  });
  after(() => {
    server?.child.kill('SIGKILL');
    rmSync(storage, { recursive: true, force: true });
  });

  it('keeps what it stores across a kill of workerd, and answers byte for byte alike after', async () => {
    const stored = await call(server, 'team', 'store', {
      agent_id: 'edge-bot', content: 'Kaito Mori took over the ledger service this sprint.',
      associations: { entities: [{ name: 'Kaito Mori' }, { name: 'Ledger Service' }], relations: [{ subject: 'Kaito Mori', predicate: 'maintains', object: 'Ledger Service' }] },
    });
    assert.equal(stored.status, 200, JSON.stringify(stored.body) + server.log());
    assert.equal(stored.body.result, 'stored');
    const ask = async () => {
      const res = await fetch(new URL('m/team/call', server.url), { method: 'POST', body: JSON.stringify({ tool: 'reconstruct', options: { agent_id: 'edge-bot', query: 'who maintains the ledger service' } }) });
      return res.text();
    };
    const before = await ask();
    assert.match(before, /Kaito Mori took over/);
    await server.restart('SIGKILL');
    assert.equal(await ask(), before);
    assert.deepEqual((await (await fetch(new URL('m/team/check', server.url))).json()), { ok: true, problems: [] });
  });

  it('answers bad input with the engine typed errors and writes nothing', async () => {
    const total = async () => (await call(server, 'errors', 'list_memories', { agent_id: 'a' })).body.total;
    await call(server, 'errors', 'store', { agent_id: 'a', content: 'one' });
    const cases = [
      [call(server, 'errors', 'store', { agent_id: 'a', content: '' }), 400, 'invalid_value', 'content'],
      [call(server, 'errors', 'store_many', { agent_id: 'a', items: [{ content: 'x' }, { content: 7 }] }), 400, 'wrong_type', 'items[1].content'],
      [call(server, 'errors', 'nope', {}), 404, 'unknown_tool', null],
      [post(server, 'm/errors/call', '{"tool": "store", '), 400, 'invalid_json', null],
      [post(server, 'm/errors/call', { options: {} }), 400, 'missing_field', 'tool'],
      [post(server, 'm/errors/call', new Uint8Array(33 * 1024 * 1024)), 413, 'body_too_large', null],
      [post(server, 'm/errors/import', new TextEncoder().encode('not a database')), 400, 'not_a_memory', null],
    ];
    for (const [pending, status, code, field] of cases) {
      const { status: got, body } = await pending;
      assert.deepEqual([got, body.error?.code, body.error?.field], [status, code, field], JSON.stringify(body));
    }
    assert.equal(await total(), 1);
  });

  it('serves RPC: every operation, storeMany with progress, typed errors', async () => {
    const stored = await rpc(server, 'rpc', 'storeMany', { agent_id: 'a', items: Array.from({ length: 300 }, (_, i) => ({ content: `rpc note item${i}` })) });
    assert.equal(stored.value.items.length, 300, JSON.stringify(stored.error));
    assert.deepEqual(stored.progress.at(-1), { done: 300, total: 300 });
    const recalled = await rpc(server, 'rpc', 'call', 'recall', { agent_id: 'a', query: 'item17' });
    assert.equal(recalled.value.messages[0].content, 'rpc note item17');
    const refused = await rpc(server, 'rpc', 'call', 'store', { agent_id: 'a', content: '' });
    assert.deepEqual(refused.error, { name: 'AssociativeMemoryError', code: 'invalid_value', field: 'content', message: '`content` must not be empty' });
    const unknown = await rpc(server, 'rpc', 'call', 'nope', {});
    assert.equal(unknown.error.code, 'unknown_tool');
    assert.ok((await rpc(server, 'rpc', 'export')).value > 4096);
    assert.deepEqual((await rpc(server, 'rpc', 'check')).value, { ok: true, problems: [] });
  });

  it('keeps memories apart: one object never reads another', async () => {
    await call(server, 'alice', 'store', { agent_id: 'a', content: 'alice keeps the launch date' });
    await call(server, 'bob', 'store', { agent_id: 'a', content: 'bob keeps the budget' });
    const of = async (memory) => (await call(server, memory, 'list_memories', { agent_id: 'a' })).body.memories.map((m) => m.content);
    assert.deepEqual(await of('alice'), ['alice keeps the launch date']);
    assert.deepEqual(await of('bob'), ['bob keeps the budget']);
  });

  it('keeps all of a storeMany of 5,000 or none when workerd is killed during it', async () => {
    const total = async () => (await call(server, 'batch', 'list_memories', { agent_id: 'a', limit: 1 })).body.total;
    await call(server, 'batch', 'store', { agent_id: 'a', content: 'before the batch' });
    const items = Array.from({ length: 5000 }, (_, i) => ({ content: `batch item ${i} about the nightly import` }));
    const pending = call(server, 'batch', 'store_many', { agent_id: 'a', items }).catch((e) => e);
    await new Promise((r) => setTimeout(r, 150));
    await server.restart('SIGKILL');
    await pending;
    assert.ok([1, 5001].includes(await total()), `after the kill: ${await total()}`);
    assert.deepEqual((await (await fetch(new URL('m/batch/check', server.url))).json()), { ok: true, problems: [] });
    // and a batch that is not interrupted is all there
    await call(server, 'batch', 'store_many', { agent_id: 'a', items: items.slice(0, 100) });
    assert.ok([101, 5101].includes(await total()));
  });
});

describe('an encrypted memory in a Durable Object', () => {
  let server;
  let storage;
  before(async () => {
    storage = mkdtempSync(join(tmpdir(), 'am-do-key-'));
    server = await startWorkerd(WORKER, {}, { objects: ['MemoryObject'], storage, text: { MEMORY_KEY: 'a passphrase held as a Worker secret' } });
  });
  after(() => {
    server?.child.kill('SIGKILL');
    rmSync(storage, { recursive: true, force: true });
  });

  it('holds no plaintext of what it stores in the object file on disk, and reads it back', async () => {
    const stored = await call(server, 'secret', 'store', { agent_id: 'a', content: 'MARKER-5e1d the vault code is under the mat' });
    assert.equal(stored.status, 200, JSON.stringify(stored.body) + server.log());
    await server.restart('SIGTERM');
    const recalled = await call(server, 'secret', 'recall', { agent_id: 'a', query: 'vault code' });
    assert.equal(recalled.body.messages[0].content, 'MARKER-5e1d the vault code is under the mat');
    const onDisk = files(storage);
    assert.ok(onDisk.some((f) => f.endsWith('.sqlite')), onDisk.join('\n'));
    for (const f of onDisk) assert.ok(!readFileSync(f).includes('MARKER-5e1d'), `${f} holds the marker`);
  });
});
