// The package's `MemoryObject` (associative-memory/durable-object) in workerd from npm, behind
// the deployable example's router (examples/edge/worker.js), with SQLite-backed Durable
// Objects kept on disk: a memory survives a restart and a kill -9, a
// call that fails writes nothing, HTTP and RPC answer with the engine's typed errors, memories
// keep apart, and with a key the object's file on disk holds no plaintext.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { importPackage } from './pack.mjs';
import { ADMIN, hosting } from './harness.mjs';


/** Every file under `dir`, recursively. */
function files(dir) {
  return readdirSync(dir).flatMap((f) => statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]);
}

async function post(server, path, body, { token = ADMIN, headers = {} } = {}) {
  const res = await fetch(new URL(path, server.url), {
    method: 'POST', headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/**
 * A POST that declares a body of `length` bytes and sends none of it: the answer a server
 * gives from the headers alone. (Sending a body past the limit races the server's early
 * answer: it closes the connection while the client still writes, and fetch fails.)
 */
function declaring(server, path, length) {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-length': length } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk; }).on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode, body: JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

/** A body of `length` zero bytes as a stream, sent chunked: no length declared, the server counts. */
function streamed(server, path, length) {
  const chunk = new Uint8Array(1024 * 1024);
  let left = length;
  const body = new ReadableStream({
    pull(controller) {
      if (left <= 0) return controller.close();
      const n = Math.min(left, chunk.length);
      left -= n;
      controller.enqueue(chunk.subarray(0, n));
    },
  });
  return fetch(new URL(path, server.url), { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` }, body, duplex: 'half' })
    .then(async (res) => ({ status: res.status, body: await res.json() }));
}

const get = (server, path, token = ADMIN) => fetch(new URL(path, server.url), { headers: { authorization: `Bearer ${token}` } });
const call = (server, memory, tool, options, auth) => post(server, `m/${memory}/call`, { tool, options }, auth);

/** Whether `pending` rejects with the package's typed error `code` (and `field`). */
const rejects = (pending, code, field) => assert.rejects(pending, (e) => {
  assert.equal(e.name, 'AssociativeMemoryError', e.stack);
  assert.deepEqual([e.code, e.field], [code, field], e.message);
  return true;
});
const rpc = (server, memory, method, ...args) => post(server, `m/${memory}/rpc`, { method, args }).then((r) => r.body);

describe('a memory in a Durable Object (workerd, storage on disk)', () => {
  let server;
  before(async () => { server = await hosting({ ADMIN_SECRET: ADMIN }); });
  after(() => server?.stop());

  it('keeps what it stores across a kill of workerd, and answers byte for byte alike after', async () => {
    const stored = await call(server, 'team', 'store', {
      agent_id: 'edge-bot', content: 'Kaito Mori took over the ledger service this sprint.',
      associations: { entities: [{ name: 'Kaito Mori' }, { name: 'Ledger Service' }], relations: [{ subject: 'Kaito Mori', predicate: 'maintains', object: 'Ledger Service' }] },
    });
    assert.equal(stored.status, 200, JSON.stringify(stored.body) + server.log());
    assert.equal(stored.body.result, 'stored');
    const ask = async () => {
      const res = await fetch(new URL('m/team/call', server.url), { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` }, body: JSON.stringify({ tool: 'reconstruct', options: { agent_id: 'edge-bot', query: 'who maintains the ledger service' } }) });
      return res.text();
    };
    const before = await ask();
    assert.match(before, /Kaito Mori took over/);
    await server.restart('SIGKILL');
    assert.equal(await ask(), before);
    assert.deepEqual((await (await get(server, 'm/team/check')).json()), { ok: true, problems: [] });
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
      [post(server, 'm/errors/import', new TextEncoder().encode('not a database')), 400, 'not_a_memory', null],
    ];
    for (const [pending, status, code, field] of cases) {
      const { status: got, body } = await pending;
      assert.deepEqual([got, body.error?.code, body.error?.field], [status, code, field], JSON.stringify(body));
    }
    // a body past 32 MiB: refused from its declared length, or counted when none is declared
    for (const { status, body } of [await declaring(server, 'm/errors/call', 33 * 1024 * 1024), await streamed(server, 'm/errors/call', 33 * 1024 * 1024)]) {
      assert.deepEqual([status, body.error?.code], [413, 'body_too_large'], JSON.stringify(body));
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

  it('lets an agent token call only as its agent, and refuses every bad token', async () => {
    const mint = async (memory, asked) => (await post(server, `m/${memory}/tokens`, asked)).body;
    const alice = await mint('shared', { agent_id: 'alice', label: 'alice laptop' });
    const bob = await mint('shared', { agent_id: 'bob' });
    const elsewhere = await mint('other', { agent_id: 'alice' });
    const scoped = await mint('shared', { agent_id: 'alice', project_id: 'launch' });
    assert.match(alice.token ?? JSON.stringify(alice), /^am_[\w-]{43}$/);
    const as = (t) => ({ token: t.token });
    assert.equal((await call(server, 'shared', 'store', { content: 'alice keeps the launch date' }, as(alice))).status, 200);
    assert.equal((await call(server, 'shared', 'store', { content: 'bob keeps the budget' }, as(bob))).status, 200);
    const seen = async (t) => (await call(server, 'shared', 'list_memories', {}, as(t))).body.memories.map((m) => m.content);
    assert.deepEqual(await seen(alice), ['alice keeps the launch date']);
    assert.deepEqual(await seen(bob), ['bob keeps the budget']);
    assert.deepEqual((await call(server, 'shared', 'recall', { query: 'budget' }, as(alice))).body.messages, []);
    // nor each other's entities and relations
    const declared = await call(server, 'shared', 'declare_associations', { associations: {
      entities: [{ name: 'Project Lantern', aliases: ['lantern'] }], relations: [{ subject: 'alice', predicate: 'leads', object: 'Project Lantern' }] } }, as(alice));
    assert.equal(declared.body.relations.length, 1, JSON.stringify(declared.body));
    assert.equal((await call(server, 'shared', 'list_entities', {}, as(bob))).body.total, 0);
    assert.equal((await call(server, 'shared', 'traverse', { entity: 'lantern' }, as(bob))).body.entities.length, 0);
    assert.deepEqual((await call(server, 'shared', 'traverse', { entity: 'lantern' }, as(alice))).body.relations.map((r) => r.predicate), ['leads']);
    const refused = [
      [call(server, 'shared', 'list_memories', { agent_id: 'bob' }, as(alice)), 403, 'forbidden', 'agent_id'],
      [call(server, 'shared', 'list_agents', {}, as(alice)), 403, 'forbidden', null],
      [call(server, 'shared', 'import_memories', { jsonl: '' }, as(alice)), 403, 'forbidden', null],
      [call(server, 'shared', 'store', { content: 'x', project_id: 'other' }, as(scoped)), 403, 'forbidden', 'project_id'],
      [call(server, 'shared', 'get_contents', { refs: ['mem:1'] }, as(scoped)), 403, 'forbidden', null],
      [post(server, 'm/shared/import', new Uint8Array(8), as(alice)), 403, 'forbidden', null],
      [post(server, 'm/shared/tokens', { agent_id: 'mallory' }, as(alice)), 403, 'forbidden', null],
      [call(server, 'shared', 'list_memories', {}, { token: null }), 401, 'unauthorized', null],
      [call(server, 'shared', 'list_memories', {}, { token: 'am_not-a-token' }), 401, 'unauthorized', null],
      [call(server, 'shared', 'list_memories', {}, as(elsewhere)), 401, 'unauthorized', null],
      [post(server, 'm/shared/tokens', { project_id: 'p' }), 400, 'missing_field', 'agent_id'],
    ];
    for (const [pending, status, code, field] of refused) {
      const { status: got, body } = await pending;
      assert.deepEqual([got, body.error?.code, body.error?.field], [status, code, field], JSON.stringify(body));
    }
    assert.equal((await call(server, 'shared', 'store', { content: 'alice in the launch project' }, as(scoped))).status, 200);
    const unrouted = await fetch(new URL('m/not a name!/call', server.url), { method: 'POST' });
    assert.equal(unrouted.status, 404);
    const listed = (await (await get(server, 'm/shared/tokens')).json()).tokens;
    assert.deepEqual(listed.map((t) => [t.agent_id, t.label]), [['alice', 'alice laptop'], ['bob', ''], ['alice', '']]);
    assert.ok(!JSON.stringify(listed).includes(alice.token));
    const revoked = await fetch(new URL(`m/shared/tokens/${bob.id}`, server.url), { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
    assert.equal(revoked.status, 200);
    assert.equal((await call(server, 'shared', 'list_memories', {}, as(bob))).status, 401);
    // the owner sees every agent; nothing a refused call sent was written
    assert.deepEqual((await call(server, 'shared', 'list_agents', {})).body.agents.map((a) => [a.agent_id, a.memories]), [['alice', 2], ['bob', 1]]);
  });

  it('runs a write sent twice with one Idempotency-Key once', async () => {
    const headers = { 'idempotency-key': 'retry-7' };
    const first = await post(server, 'm/retries/call', { tool: 'store', options: { agent_id: 'a', content: 'sent twice' } }, { headers });
    const again = await post(server, 'm/retries/call', { tool: 'store', options: { agent_id: 'a', content: 'sent twice' } }, { headers });
    assert.equal(first.status, 200);
    assert.deepEqual(again.body, first.body);
    assert.equal((await call(server, 'retries', 'list_memories', { agent_id: 'a' })).body.total, 1);
    const other = await post(server, 'm/retries/call', { tool: 'store', options: { agent_id: 'a', content: 'sent twice' } }, { headers: { 'idempotency-key': 'retry-8' } });
    assert.notEqual(other.body.id, first.body.id);
  });

  it("is one of the package's storages: openMemory({ storage: 'remote', url, token })", async () => {
    const { openMemory } = await importPackage();
    const alice = (await post(server, 'm/remote/tokens', { agent_id: 'alice' })).body;
    const url = new URL('m/remote', server.url).href;
    const memory = await openMemory({ storage: 'remote', url, token: alice.token });
    assert.equal(memory.storage, 'remote');
    const bot = memory.agent('alice');
    await bot.store({
      content: 'Kaito Mori took over the ledger service this sprint.',
      associations: { entities: [{ name: 'Kaito Mori' }, { name: 'Ledger Service', aliases: ['台帳サービス'] }], relations: [{ subject: 'Kaito Mori', predicate: 'maintains', object: 'Ledger Service' }] },
    });
    const reports = [];
    const batch = await bot.storeMany(Array.from({ length: 50 }, (_, i) => ({ content: `ledger note ${i}` })), { onProgress: (p) => reports.push(p) });
    assert.equal(batch.items.length, 50);
    assert.deepEqual(reports.at(-1), { done: 50, total: 50 });
    assert.deepEqual((await bot.traverse({ entity: '台帳サービス' })).relations.map((r) => r.predicate), ['maintains']);
    assert.equal((await bot.listMemories({ limit: 1 })).total, 51);
    await rejects(bot.store({ content: '' }), 'invalid_value', 'content');
    await rejects(memory.store({ agent_id: 'bob', content: 'not mine' }), 'forbidden', 'agent_id');
    await rejects(memory.export(), 'forbidden', undefined);
    await rejects(memory.rekey('k'), 'invalid_value', 'key');
    // the owner's token reaches everything: the database, imported here into a local memory
    const owner = await openMemory({ storage: 'remote', url, token: ADMIN });
    const local = await openMemory();
    await local.import(await owner.export());
    assert.equal((await local.agent('alice').listMemories({ limit: 1 })).total, 51);
    assert.deepEqual(await owner.check(), { ok: true, problems: [] });
    const stranger = await openMemory({ storage: 'remote', url, token: 'am_unknown' });
    await rejects(stranger.agent('alice').recall({ query: 'ledger' }), 'unauthorized', undefined);
    const nowhere = await openMemory({ storage: 'remote', url: 'http://127.0.0.1:9/m/x', token: alice.token });
    await rejects(nowhere.agent('alice').recall({ query: 'ledger' }), 'network', undefined);
    await rejects(openMemory({ storage: 'remote', url }), 'missing_field', 'token');
    await rejects(openMemory({ storage: 'remote', url, token: 't', clock: () => 0 }), 'invalid_value', 'clock');
    await rejects(openMemory({ url }), 'invalid_value', 'url');
  });

  it('serves MCP over Streamable HTTP: an agent token gets its own tools, without agent_id', async () => {
    const mint = async (agent) => (await post(server, 'm/mcp/tokens', { agent_id: agent })).body.token;
    const connect = async (token) => {
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL('m/mcp/mcp', server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      return client;
    };
    const text = (out) => JSON.parse(out.content[0].text);
    const alice = await connect(await mint('alice'));
    const { tools } = await alice.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['store', 'recall', 'reconstruct', 'traverse', 'declare_associations', 'get_contents',
      'delete_memory', 'list_memories', 'update_memory', 'delete_agent_data', 'list_entities', 'history']);
    for (const t of tools) {
      assert.ok(!('agent_id' in (t.inputSchema.properties ?? {})), `${t.name} asks for agent_id`);
      assert.equal(t.outputSchema.type, 'object', t.name);
      assert.equal(t.annotations.destructiveHint, ['delete_memory', 'delete_agent_data', 'update_memory', 'declare_associations'].includes(t.name), t.name);
    }
    const storing = await alice.callTool({ name: 'store', arguments: { content: 'alice reached it over MCP' } });
    const stored = text(storing);
    assert.equal(stored.result, 'stored');
    assert.deepEqual(storing.structuredContent, stored, 'the structured content is the text\'s');
    await assert.rejects(alice.callTool({ name: 'forget_everything', arguments: {} }),
      (e) => e.message.includes(`-32602: unknown tool: forget_everything; tools: ${tools.map((t) => t.name).join(', ')}`) || assert.fail(e.message));
    const refused = await alice.callTool({ name: 'list_memories', arguments: { agent_id: 'bob' } });
    assert.equal(refused.isError, true);
    assert.equal(text(refused).error, 'unknown_option');
    const bob = await connect(await mint('bob'));
    assert.deepEqual(text(await bob.callTool({ name: 'list_memories', arguments: {} })).memories, []);
    assert.deepEqual(text(await alice.callTool({ name: 'list_memories', arguments: {} })).memories.map((m) => m.content), ['alice reached it over MCP']);
    await assert.rejects(connect('am_unknown'), /401|unauthorized/i);
    await Promise.all([alice.close(), bob.close()]);
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
    // the kill must land before the answer: sooner each time it did not
    let killed = false;
    let expected = 1;
    for (const wait of [150, 50, 10, 0]) {
      const pending = call(server, 'batch', 'store_many', { agent_id: 'a', items }).then(() => 'answered', () => 'cut off');
      await new Promise((r) => setTimeout(r, wait));
      await server.restart('SIGKILL');
      killed = (await pending) === 'cut off';
      const after = await total();
      assert.ok([expected, expected + 5000].includes(after), `after the kill: ${after}, expected ${expected} or ${expected + 5000}`);
      expected = after;
      assert.deepEqual((await (await get(server, 'm/batch/check')).json()), { ok: true, problems: [] });
      if (killed) break;
    }
    assert.ok(killed, 'every batch answered before workerd was killed');
    // and a batch that is not interrupted is all there
    await call(server, 'batch', 'store_many', { agent_id: 'a', items: items.slice(0, 100) });
    assert.equal(await total(), expected + 100);
  });
});

describe('an encrypted memory in a Durable Object', () => {
  let server;
  before(async () => { server = await hosting({ MEMORY_KEY: 'a passphrase held as a Worker secret', ADMIN_SECRET: ADMIN }); });
  after(() => server?.stop());

  it('holds no plaintext of what it stores in the object file on disk or its export, and reads both back', async () => {
    const stored = await call(server, 'secret', 'store', { agent_id: 'a', content: 'MARKER-5e1d the vault code is under the mat' });
    assert.equal(stored.status, 200, JSON.stringify(stored.body) + server.log());
    await server.restart('SIGTERM');
    const recalled = await call(server, 'secret', 'recall', { agent_id: 'a', query: 'vault code' });
    assert.equal(recalled.body.messages[0].content, 'MARKER-5e1d the vault code is under the mat');
    const onDisk = files(server.storage);
    assert.ok(onDisk.some((f) => f.endsWith('.sqlite')), onDisk.join('\n'));
    for (const f of onDisk) assert.ok(!readFileSync(f).includes('MARKER-5e1d'), `${f} holds the marker`);
    // its export is ciphertext, and an object of the same key imports it with that key
    const exported = new Uint8Array(await (await get(server, 'm/secret/export')).arrayBuffer());
    assert.ok(exported.length > 0 && !Buffer.from(exported).includes('MARKER-5e1d'));
    const imported = await post(server, 'm/secret-copy/import', exported);
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    const copied = await call(server, 'secret-copy', 'recall', { agent_id: 'a', query: 'vault code' });
    assert.equal(copied.body.messages[0].content, 'MARKER-5e1d the vault code is under the mat');
  });
});
