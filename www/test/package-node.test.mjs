// The packed package in Node, loaded from the consumer project (www/test/pack.mjs) through
// its `exports`: every operation, scoped handles, embed, export to a file and import back,
// errors, close, and storage 'opfs' refused where there is no OPFS. The same tests run on
// storage 'file' (a file each memory, in a scratch directory) and 'remote': memories hosted
// in Durable Objects (examples/edge/, in workerd).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSUMER, importPackage } from './pack.mjs';
import { ADMIN, hosting } from './harness.mjs';

/** Awaits `promise` and checks it rejects with an AssociativeMemoryError of `code` (and `field`). */
async function rejects(promise, code, field) {
  const { AssociativeMemoryError, isMemoryError } = await importPackage();
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof Error, `not an Error: ${err}`);
    // every error is an instance of the exported class: the engine's, a worker's, a host's
    assert.ok(err instanceof AssociativeMemoryError && isMemoryError(err), `not an AssociativeMemoryError instance: ${err}`);
    assert.equal(err.name, 'AssociativeMemoryError');
    assert.equal(err.code, code, err.message);
    if (field !== undefined) assert.equal(err.field, field);
    return true;
  });
}

const KAITO = {
  agent_id: 'pm-bot',
  content: 'Kaito Mori took over the ledger service this sprint.',
  associations: {
    entities: [{ name: 'Kaito Mori', aliases: ['Kaito', '森 海斗'] }, { name: 'Ledger Service', aliases: ['台帳サービス'] }],
    relations: [{ subject: 'Kaito Mori', predicate: 'maintains', object: 'Ledger Service' }],
  },
};

for (const storage of ['memory', 'file', 'remote']) describe(`the packed package in Node, storage '${storage}'`, () => {
  let pkg;
  let now;
  let host;
  let dir;
  let opened = 0;
  const clock = () => now;
  const remote = storage === 'remote';
  /** A test of the package on this thread (its entry, its module, its options), not of a storage. */
  const local = storage === 'memory' ? it : it.skip;
  before(async () => {
    pkg = await importPackage();
    // the same tests on a memory hosted in a Durable Object (workerd), with the owner's token
    if (remote) host = await hosting({ ADMIN_SECRET: ADMIN });
    if (storage === 'file') dir = await mkdtemp(join(tmpdir(), 'am-node-file-'));
  });
  after(async () => {
    await host?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  /**
   * A new memory of this suite's storage: in this thread, in a new file, or a fresh hosted
   * one, whose clock is its host's (a `clock` given here is left out).
   */
  const open = (options = {}) => {
    if (storage === 'memory') return pkg.openMemory(options);
    if (storage === 'file') return pkg.openMemory({ storage, path: join(dir, `memory-${++opened}.sqlite3`), ...options });
    const { clock: _, ...rest } = options;
    return pkg.openMemory({ storage: 'remote', url: new URL(`m/node-${++opened}`, host.url).href, token: ADMIN, ...rest });
  };

  local('resolves the node entry and exports the documented names', async () => {
    assert.deepEqual(Object.keys(pkg).sort(), ['AgentMemory', 'AssociativeMemory', 'AssociativeMemoryError', 'importMcpMemoryGraph', 'init', 'isMemoryError', 'openMemory', 'storeBatches']);
    const manifest = JSON.parse(await readFile(join(CONSUMER, 'node_modules/associative-memory/package.json'), 'utf8'));
    assert.deepEqual(Object.keys(manifest.exports['.']), ['types', 'workerd', 'browser', 'node', 'default']);
  });

  it('runs every operation with snake_case options and responses', async () => {
    now = Date.parse('2026-05-10T12:00:00Z');
    const memory = await open({ clock });
    assert.equal(memory.storage, storage);
    const stored = await memory.store(KAITO);
    assert.deepEqual(stored, {
      ok: true, result: 'stored', id: 1,
      associations: { entities: [{ id: 1, name: 'Kaito Mori', created: true }, { id: 2, name: 'Ledger Service', created: true }], mentions: 2, relations: [1], dropped: [] },
    });
    const episode = await memory.archiveEpisode({ agent_id: 'pm-bot', summary: 'Sprint review: the ledger moved to Kaito.', keywords: 'ledger sprint' });
    assert.deepEqual(episode, { ok: true, episode_id: 1 });
    const declared = await memory.declareAssociations({
      agent_id: 'pm-bot', anchor_ref: 'ep:1',
      associations: { entities: [{ name: 'Ledger DB' }], relations: [{ subject: 'Ledger Service', predicate: 'depends_on', object: 'Ledger DB' }] },
    });
    assert.equal(declared.result, 'declared');
    assert.deepEqual(declared.relations, [2]);
    const graph = await memory.traverse({ agent_id: 'pm-bot', entity: '台帳サービス', max_hops: 2 });
    // one hop is ordered by its most recent relation: on the fixed clock both are as recent
    // (then by id); on a host's clock the later one is first
    const order = remote ? [['Ledger Service', 0], ['Ledger DB', 1], ['Kaito Mori', 1]] : [['Ledger Service', 0], ['Kaito Mori', 1], ['Ledger DB', 1]];
    assert.deepEqual(graph.entities.map((e) => [e.name, e.hops]), order);
    assert.deepEqual(graph.entities[0].mentions, ['mem:1']);
    assert.deepEqual(graph.entities.find((e) => e.name === 'Ledger DB').mentions, ['ep:1']);
    if (!remote) assert.equal(graph.relations[0].declared_at, '2026-05-10T12:00:00+00:00');
    const contents = await memory.getContents({ agent_id: 'pm-bot', refs: ['mem:1', 'mem:404'] });
    assert.deepEqual(contents.missing, ['mem:404']);
    assert.equal(contents.items[0].content, KAITO.content);
    const listed = await memory.listEntities({ agent_id: 'pm-bot' });
    assert.equal(listed.total, 3);
    const recalled = await memory.recall({ agent_id: 'pm-bot', query: 'ledger' });
    assert.ok(recalled.messages.some((m) => m.ref === 'mem:1'), JSON.stringify(recalled));
    const reconstructed = await memory.reconstruct({ agent_id: 'pm-bot', query: 'who maintains the ledger' });
    assert.ok(reconstructed.items.length >= 1 && typeof reconstructed.returned_count === 'number', JSON.stringify(reconstructed));
    assert.deepEqual(await memory.deleteEntity({ agent_id: 'pm-bot', entity_id: 3 }), { ok: true, deleted_id: 3 });
    assert.deepEqual(await memory.deleteEpisode({ agent_id: 'pm-bot', episode_id: 1 }), { ok: true, deleted_id: 1 });
    assert.deepEqual(await memory.deleteMemory({ agent_id: 'pm-bot', memory_id: 1 }), { ok: true, deleted_id: 1 });
    const after = await memory.traverse({ agent_id: 'pm-bot', entity: 'Kaito' });
    assert.deepEqual(after.relations, []);
    assert.equal(after.entities[0].mentions, undefined);
    await memory.close();
  });

  it('keeps records in time: expiry, reads at an instant, purgeExpired', async () => {
    // instants far from any clock, so a host's clock reads them as this thread's does
    const memory = await open();
    await memory.store({ agent_id: 'a', content: 'ledger freeze of 2019', expires_at: '2020-01-01T00:00:00Z' });
    await memory.store({ agent_id: 'a', content: 'ledger freeze until later', expires_at: '2999-01-01T09:00:00+09:00' });
    await memory.archiveEpisode({ agent_id: 'a', summary: 'ledger retro', expires_at: '2020-01-01T00:00:00Z' });
    await memory.store({ agent_id: 'b', content: 'ledger of someone else', expires_at: '2020-01-01T00:00:00Z' });
    const now = await memory.recall({ agent_id: 'a', query: 'ledger' });
    assert.deepEqual(now.messages.map((m) => m.ref), ['mem:2']);
    assert.equal(now.messages[0].expires_at, '2999-01-01T00:00:00+00:00');
    assert.equal(now.not_holding, 2);
    const then = await memory.recall({ agent_id: 'a', query: 'ledger', as_of: '2019-06-01T00:00:00Z' });
    assert.deepEqual(then.messages.map((m) => m.ref).sort(), ['ep:1', 'mem:1', 'mem:2']);
    assert.equal(then.not_holding, undefined);
    const listed = await memory.listMemories({ agent_id: 'a' });
    assert.deepEqual([listed.memories.map((m) => m.id), listed.total, listed.not_holding], [[2], 1, 1]);
    assert.equal((await memory.listMemories({ agent_id: 'a', as_of: 'all' })).total, 2);
    const contents = await memory.getContents({ agent_id: 'a', refs: ['mem:1', 'mem:2', 'ep:1'] });
    assert.deepEqual([contents.items.map((i) => i.ref), contents.missing], [['mem:2'], ['mem:1', 'ep:1']]);
    await rejects(memory.store({ agent_id: 'a', content: 'x', expires_at: 'soon' }), 'invalid_value', 'expires_at');
    await rejects(memory.recall({ agent_id: 'a', query: 'x', as_of: 'yesterday' }), 'invalid_value', 'as_of');
    await rejects(memory.purgeExpired({ agent_id: ' ' }), 'invalid_value', 'agent_id');
    await memory.updateMemory({ agent_id: 'a', memory_id: 2, expires_at: '' });
    assert.equal((await memory.getContents({ agent_id: 'a', refs: ['mem:2'] })).items[0].expires_at, undefined);
    // purge takes the agent's expired records only; an agent handle fills in the agent
    assert.deepEqual(await memory.purgeExpired({ agent_id: 'a' }), { memories: 1, episodes: 1, mentions: 0, relations: 0 });
    assert.deepEqual(await memory.agent('a').purgeExpired(), { memories: 0, episodes: 0, mentions: 0, relations: 0 });
    assert.deepEqual(await memory.agent('b').purgeExpired(), { memories: 1, episodes: 0, mentions: 0, relations: 0 });
    assert.equal((await memory.listMemories({ agent_id: 'a', as_of: 'all' })).total, 1);
    await memory.close();
  });

  it('exports in Node to a file and imports the bytes back into another memory', async () => {
    const memory = await open();
    await memory.store(KAITO);
    const bytes = await memory.export();
    assert.ok(bytes instanceof Uint8Array && bytes.length > 4096);
    assert.equal(new TextDecoder().decode(bytes.subarray(0, 15)), 'SQLite format 3');
    const file = join(CONSUMER, 'exported.sqlite3');
    await writeFile(file, bytes);
    const other = await open();
    await other.import(new Uint8Array(await readFile(file)));
    const graph = await other.traverse({ agent_id: 'pm-bot', entity: '森 海斗' });
    assert.deepEqual(graph.entities.map((e) => e.name), ['Kaito Mori', 'Ledger Service']);
    await rejects(other.import(new Uint8Array([1, 2, 3])), 'not_a_memory');
    assert.equal((await other.traverse({ agent_id: 'pm-bot', entity: 'Kaito' })).entities.length, 2, 'bad bytes changed nothing');
  });

  local('opens a file encrypted by the native build, and encrypts one the native build opens', async () => {
    // tests/encryption.rs makes native.sqlite3 and opens wasm.sqlite3; UPDATE_FIXTURES=1
    // rewrites the one each side makes.
    const fixtures = new URL('../../tests/fixtures/encrypted/', import.meta.url);
    const MARKER = 'ZEBRA-7f3a-MARKER';
    const JAPANESE = '海斗はインジェストのキューを直した';
    const texts = async (memory) => (await memory.listMemories({ agent_id: 'a' })).memories.map((m) => m.content);
    const fromNative = await pkg.openMemory({ clock: () => 1_780_000_000_000 });
    const nativeBytes = await readFile(new URL('native.sqlite3', fixtures));
    await rejects(fromNative.import(nativeBytes, { key: 'not the passphrase', decrypt: true }), 'wrong_key');
    // a memory without a key keeps the plaintext of encrypted bytes only when asked
    await rejects(fromNative.import(nativeBytes, { key: 'associative-memory fixture passphrase' }), 'invalid_value', 'decrypt');
    await fromNative.import(nativeBytes, { key: 'associative-memory fixture passphrase', decrypt: true });
    assert.deepEqual(await texts(fromNative), [JAPANESE, `${MARKER} written natively`]);

    const key = new Uint8Array(32).fill(0x2a);
    const forNative = await pkg.openMemory({ clock: () => 1_780_000_000_000, key });
    await forNative.store({ agent_id: 'a', content: `${MARKER} written by the wasm build` });
    await forNative.store({ agent_id: 'a', content: JAPANESE });
    const bytes = await forNative.export();
    assert.ok(!Buffer.from(bytes).includes(MARKER) && !Buffer.from(bytes).includes('SQLite format 3'));
    if (process.env.UPDATE_FIXTURES) await writeFile(new URL('wasm.sqlite3', fixtures), bytes);
    // what this build encrypts, it opens (the committed file is what native opens)
    const back = await open();
    await back.import(await readFile(new URL('wasm.sqlite3', fixtures)), { key, decrypt: true });
    assert.deepEqual(await texts(back), await texts(forNative));
    await rejects(pkg.openMemory({ key: 42 }), 'invalid_value', 'key');
    await rejects(forNative.rekey(undefined), 'invalid_value', 'key');
  });

  it('throws AssociativeMemoryErrors with code and field, and writes nothing', async () => {
    const memory = await open();
    await rejects(memory.traverse({ agent_id: 'a', entity: 'x', max_hops: 9 }), 'out_of_range', 'max_hops');
    await rejects(memory.store({ agent_id: 'a' }), 'missing_field', 'content');
    await rejects(memory.store({ agent_id: 'a', content: 'x', colour: 'red' }), 'unknown_option', 'colour');
    await rejects(memory.declareAssociations({ agent_id: 'a', anchor_ref: 'nope:1' }), 'bad_ref', 'anchor_ref');
    await rejects(memory.deleteMemory({ agent_id: 'a', memory_id: 'one' }), 'bad_ref', 'memory_id');
    await rejects(memory.call('forget_everything', { agent_id: 'a' }), 'unknown_tool');
    assert.equal((await memory.listEntities({ agent_id: 'a' })).total, 0);
    await rejects(pkg.openMemory({ storage: 'disk' }), 'invalid_value', 'storage');
    await rejects(pkg.openMemory({ storgae: 'memory' }), 'unknown_option', 'storgae');
  });

  local("refuses storage 'opfs' where there is no OPFS, never falling back to memory", async () => {
    await rejects(pkg.openMemory({ storage: 'opfs', name: 'notes' }), 'opfs_unavailable');
  });

  it('scopes an agent handle to its agent, project and channel', async () => {
    const memory = await open();
    const alpha = memory.agent('pm-bot', { project_id: 'alpha', channel: 'chat' });
    const { id } = await alpha.store({ content: 'Alpha ships on Friday.' });
    const listedAlpha = await alpha.getContents({ refs: [`mem:${id}`] });
    assert.equal(listedAlpha.count, 1);
    assert.equal((await memory.getContents({ agent_id: 'other-bot', refs: [`mem:${id}`] })).count, 0, 'agent isolation');
    await alpha.declareAssociations({ associations: { entities: [{ name: 'Friday release' }] }, anchor_ref: `mem:${id}` });
    assert.equal((await alpha.listEntities()).entities[0].project_id, 'alpha');
    assert.equal((await alpha.listEntities()).entities[0].channel, 'chat');
    const beta = memory.agent('pm-bot', { project_id: 'beta' });
    assert.equal((await beta.listEntities()).total, 0, 'project beta does not see alpha');
    assert.equal((await memory.agent('pm-bot').listEntities()).total, 1, 'no project reads every project');
    assert.deepEqual(alpha.tools().find((t) => t.name === 'store').input_schema.required, ['content']);
    assert.ok(!('project_id' in alpha.tools()[0].input_schema.properties));
    const viaTool = await alpha.callTool('traverse', { entity: 'friday release' });
    assert.deepEqual(viaTool.entities[0].mentions, [`mem:${id}`]);
    await rejects(alpha.callTool('traverse', { entity: 'x', agent_id: 'someone-else' }), 'unknown_option', 'agent_id');
    // an unknown option's list of what the operation accepts leaves out what the handle fills in
    for (const [handle, call, fixed] of [
      [alpha, () => alpha.store({ content: 'x', colour: 'red' }), ['agent_id', 'project_id', 'channel']],
      [alpha, () => alpha.callTool('recall', { query: 'x', colour: 'red' }), ['agent_id', 'project_id', 'channel']],
      [beta, () => beta.getContents({ refs: [`mem:${id}`], colour: 'red' }), ['agent_id']],
      [beta, () => beta.importMemories('', { colour: 'red' }), ['jsonl', 'target_agent_id']],
    ]) {
      const err = await call().then(() => assert.fail('an unknown option was taken'), (e) => e);
      assert.equal(err.code, 'unknown_option');
      assert.equal(err.field, 'colour');
      const accepted = err.message.slice(err.message.indexOf('accepts: ') + 9).replace(/ \(this handle fills in [^)]*\)$/, '').split(', ');
      for (const name of fixed) assert.ok(!accepted.includes(name), `${name} listed for ${handle.agentId}: ${err.message}`);
      assert.ok(accepted.length > 0 && accepted.every((name) => /^[a-z_]+$/.test(name)), err.message);
      assert.match(err.message, new RegExp(`this handle fills in ${fixed.join(', ')}\\)$`));
    }
    // what the memory itself says is unchanged: agent_id is an option there
    const owners = await memory.store({ agent_id: 'a', content: 'x', colour: 'red' }).catch((e) => e);
    assert.match(owners.message, /accepts: agent_id, /);
    // an update with nothing to change names each option that would do
    const nothing = await alpha.updateMemory({ memory_id: id }).catch((e) => e);
    assert.equal(nothing.code, 'missing_field');
    assert.equal(nothing.message, 'at least one of `content`, `metadata`, `timestamp`, `expires_at` or `embedding` is required');
    // the memory owner lists every agent; an agent handle has no such method
    assert.deepEqual(await memory.listAgents(), { agents: [{ agent_id: 'pm-bot', memories: 1, episodes: 0, entities: 1, relations: 0 }], total: 1 });
    assert.equal(alpha.listAgents, undefined);
  });

  it('calls embed for store, recall and reconstruct, and passes the vectors on', async () => {
    const seen = [];
    const memory = await open({ embed: (texts) => { seen.push(...texts); return texts.map(() => new Float32Array([1, 0, 0])); } });
    await memory.store({ agent_id: 'a', content: 'vector one' });
    await memory.store({ agent_id: 'a', content: 'given', embedding: [0, 1, 0] });
    await memory.recall({ agent_id: 'a', query: 'first query' });
    await memory.reconstruct({ agent_id: 'a', query: 'second query' });
    await memory.traverse({ agent_id: 'a', entity: 'nobody' });
    assert.deepEqual(seen, ['vector one', 'first query', 'second query']);
    const broken = await open({ embed: () => [[1, 2, 3]] });
    await broken.store({ agent_id: 'a', content: 'three dims' });
    await rejects(broken.store({ agent_id: 'a', content: 'x', embedding: 'not a vector' }), 'wrong_type', 'embedding');
    // an embedder's Float32Array is taken as it comes, in store, storeMany and queries
    const typed = await open();
    await typed.store({ agent_id: 'a', content: 'typed one', embedding: new Float32Array([0, 0, 1]) });
    await typed.agent('a').storeMany([{ content: 'typed two', embedding: new Float64Array([0, 1, 0]) }]);
    const hits = await typed.recall({ agent_id: 'a', query: 'zzz', query_embedding: new Float32Array([0, 0.1, 1]) });
    assert.deepEqual(hits.messages.map((m) => m.ref), ['mem:1', 'mem:2']);
  });

  it('calls rerank on recall and reconstruct, with the first candidates and their texts, and ranks by its scores', async () => {
    const memory = await open();
    const bot = memory.agent('r');
    const texts = ['ledger ledger ledger', 'the ledger service', 'ledger retry incident', 'ledger reconciliation nightly', 'a note on the ledger and the wallet'];
    for (const content of texts) await bot.store({ content });
    const plain = await bot.recall({ query: 'ledger' });
    const plainItems = await bot.reconstruct({ query: 'ledger', trace: true });
    const seen = [];
    // the longest text first: the reranker's order, not retrieval's
    const reranked = await open({ rerank: (query, candidates) => { seen.push({ query, candidates }); return candidates.map((c) => c.content.length); }, rerankDepth: 4 });
    const one = reranked.agent('r');
    for (const content of texts) await one.store({ content });
    const got = await one.recall({ query: 'ledger', limit: 2 });
    assert.equal(seen[0].query, 'ledger');
    assert.deepEqual(seen[0].candidates.map((c) => c.ref), plain.messages.slice(0, 4).map((m) => m.ref), 'the first rerankDepth candidates, past limit');
    assert.deepEqual(seen[0].candidates.map((c) => c.content), plain.messages.slice(0, 4).map((m) => m.content));
    const byLength = [...seen[0].candidates].sort((a, b) => b.content.length - a.content.length);
    assert.deepEqual(got.messages.map((m) => m.ref), byLength.slice(0, 2).map((c) => c.ref));
    assert.equal(got.messages[0].match_reason.rerank, byLength[0].content.length);
    // reconstruct: its candidates, read with their texts, and items in the reranker's order
    const items = await one.reconstruct({ query: 'ledger', trace: true });
    assert.deepEqual(seen[1].candidates.map((c) => c.ref), plainItems.trace.candidate_refs.slice(0, 4));
    assert.ok(seen[1].candidates.every((c) => texts.includes(c.content)));
    assert.equal(items.items[0].head_ref, [...seen[1].candidates].sort((a, b) => b.content.length - a.content.length)[0].ref);
    // scores given by the caller are the caller's: the hook is not called
    const calls = seen.length;
    await one.recall({ query: 'ledger', rerank: [{ ref: plain.messages[0].ref, score: 1 }] });
    assert.equal(seen.length, calls);
    // a reranker that gives another number of scores, or not numbers, is refused by name
    const broken = await open({ rerank: () => [1] });
    await broken.store({ agent_id: 'r', content: 'ledger one' });
    await broken.store({ agent_id: 'r', content: 'ledger two' });
    await rejects(broken.recall({ agent_id: 'r', query: 'ledger' }), 'invalid_value', 'rerank');
    const nan = await open({ rerank: (_, c) => c.map(() => Number.NaN) });
    await nan.store({ agent_id: 'r', content: 'ledger one' });
    await rejects(nan.recall({ agent_id: 'r', query: 'ledger' }), 'invalid_value', 'rerank');
    await rejects(open({ rerank: 'a cross-encoder' }), 'invalid_value', 'rerank');
    await rejects(open({ rerank: () => [], rerankDepth: 101 }), 'out_of_range', 'rerankDepth');
    await rejects(open({ rerankDepth: 5 }), 'invalid_value', 'rerankDepth');
    // the tools do not offer `rerank` to a model: the hook fills it
    assert.ok(!('rerank' in memory.tools({ format: 'mcp' }).find((t) => t.name === 'recall').inputSchema.properties));
  });

  it('names each vector\'s model: two embedders of one dimension never mix, and reembed moves a memory to the new one', async () => {
    // Two fake models of one dimension whose vectors for the same text have nothing in common.
    const oldModel = { model: 'old-model', embed: (texts) => texts.map((t) => [t.length, 1, 0, 0]) };
    const calls = [];
    const newModel = { model: 'new-model', embed: (texts) => { calls.push(texts.length); return texts.map((t) => [0, 0, 1, t.length]); } };
    const before = await open({ embed: oldModel });
    const bot = before.agent('a');
    await bot.storeMany([{ content: 'first note' }, { content: 'second note' }, { content: 'third' }]);
    await bot.store({ content: 'fourth note here' });
    await bot.store({ content: 'unembedded', embedding: [1, 2, 3, 4] });
    await bot.archiveEpisode({ summary: 'an episode without a vector' });
    const sameModel = await bot.recall({ query: 'zzz', deep: true });
    assert.equal(sameModel.model_skipped, 1, 'the vector given without a model is not compared');
    assert.ok(sameModel.messages.some((m) => m.match_reason.ranks.vector !== undefined), 'the old model\'s query reaches its vectors');

    const after = await open({ embed: newModel });
    await after.import(await before.export());
    const skipped = await after.agent('a').recall({ query: 'zzz' });
    assert.equal(skipped.model_skipped, 5, 'vectors of the old model (4) and of no model named (1) are not compared');
    assert.deepEqual(skipped.messages, []);

    const progress = [];
    calls.length = 0;
    assert.deepEqual(await after.reembed({ batchSize: 4, onProgress: (p) => progress.push(p) }), { reembedded: 6 });
    assert.deepEqual(progress, [{ done: 4, total: 6 }, { done: 6, total: 6 }]);
    assert.deepEqual(calls, [4, 2], 'embedded four texts, then two');
    const found = await after.agent('a').recall({ query: 'zzz', deep: true });
    assert.equal(found.model_skipped, undefined);
    assert.ok(found.messages.length > 0 && found.messages.every((m) => m.match_reason.ranks.vector !== undefined));
    assert.deepEqual(await after.reembed(), { reembedded: 0 }, 'nothing is left to re-embed');
    // the text is as it was
    const contents = await after.agent('a').getContents({ refs: ['mem:1', 'ep:1'] });
    assert.deepEqual(contents.items.map((i) => i.content), ['first note', 'an episode without a vector']);

    const plain = await open();
    await rejects(plain.reembed(), 'missing_field', 'embed');
    await rejects(plain.store({ agent_id: 'a', content: 'x', embedding_model: 'm' }), 'invalid_value', 'embedding_model');
    await rejects(after.reembed({ batchSize: 0 }), 'out_of_range', 'batchSize');
    await rejects(pkg.openMemory({ embed: { model: '', embed: oldModel.embed } }), 'invalid_value', 'embed.model');
    await rejects(pkg.openMemory({ embed: { model: 'm' } }), 'invalid_value', 'embed');
  });

  it('closes: later calls reject with code closed, and close is idempotent', async () => {
    const memory = await open();
    await memory.close();
    await memory.close();
    await rejects(memory.store({ agent_id: 'a', content: 'x' }), 'closed');
    await rejects(memory.export(), 'closed');
  });

  local('init accepts the module bytes explicitly (in Node, the module built for speed, which the .wasm export resolves to)', async () => {
    const bytes = await readFile(createRequire(join(CONSUMER, 'index.js')).resolve('associative-memory/associative_memory_bg.wasm'));
    await pkg.init(await WebAssembly.compile(bytes));
    const memory = await open();
    assert.equal((await memory.store({ agent_id: 'a', content: 'after init' })).id, 1);
  });

  it('cuts an import into batches the engine takes, by count and by characters of content', async () => {
    const small = Array.from({ length: 25 }, (_, k) => ({ content: `n${k}` }));
    assert.deepEqual(pkg.storeBatches(small, 10).map((b) => [b.start, b.items.length]), [[0, 10], [10, 10], [20, 5]]);
    assert.deepEqual(pkg.storeBatches(small).map((b) => b.items.length), [25]);
    // memories of the longest content but one character, 16 of them within a batch's 16 Mi
    const long = 'ab '.repeat((1 << 20) / 3);
    const items = Array.from({ length: 17 }, () => ({ content: long }));
    const batches = pkg.storeBatches(items);
    assert.deepEqual(batches.map((b) => [b.start, b.items.length]), [[0, 16], [16, 1]]);
    const memory = await open();
    const bot = memory.agent('big');
    // the engine refuses what the batches keep apart, and takes each batch
    await rejects(bot.storeMany(items), 'out_of_range', 'items');
    for (const batch of batches) await bot.storeMany(batch.items);
    assert.equal((await bot.listMemories({ limit: 1 })).total, 17);
    await memory.close();
  });

  it('stores a batch in one transaction with progress, embeddings filled, and names a malformed item', async () => {
    const embedded = [];
    const embed = (texts) => { embedded.push(texts.length); return texts.map((t) => [t.length, 1]); };
    const memory = await open({ embed });
    const bot = memory.agent('batch', { project_id: 'p' });
    const items = Array.from({ length: 150 }, (_, k) => ({ content: `note ${k}`, associations: k === 3 ? { relations: [{ subject: 1 }] } : undefined }));
    const progress = [];
    const out = await bot.storeMany(items, { onProgress: (p) => progress.push(p) });
    assert.deepEqual(out.items.map((i) => i.id), items.map((_, k) => k + 1));
    assert.equal(out.items[3].associations.dropped.length, 1, 'malformed associations are dropped, the memory kept');
    assert.deepEqual(progress.at(-1), { done: 150, total: 150 });
    assert.deepEqual(embedded, [64, 64, 22], 'missing embeddings filled 64 texts at a time');
    const listed = await bot.listMemories({ limit: 1 });
    assert.equal(listed.total, 150);
    assert.equal(listed.memories[0].project_id, 'p');
    const found = await bot.recall({ query: 'zzz', query_embedding: [7, 1], deep: true });
    assert.equal(found.messages[0].content.length, 7, 'the batch is searchable by vector at once');
    await rejects(bot.storeMany([{ content: 'fine' }, { content: 'x', timestamp: 'yesterday' }]), 'invalid_value', 'items[1].timestamp');
    await rejects(memory.storeMany({ agent_id: 'batch', items: [] }), 'invalid_value', 'items');
    assert.equal((await bot.listMemories({ limit: 1 })).total, 150, 'a rejected batch writes nothing');
    await memory.close();
  });

  it('imports the reference implementation\'s JSONL export and exports its own', async () => {
    const reference = await readFile(new URL('../../tests/fixtures/reference/export.jsonl', import.meta.url), 'utf8');
    const memory = await open();
    const bot = memory.agent('imported');
    const brought = await bot.importMemories(reference);
    assert.deepEqual(brought, { ok: true, version: 'cpersona-export/1.1', memories: 3, episodes: 1, entities: 3, mentions: 4, relations: 3, dropped: [] });
    const t = await bot.traverse({ entity: '森海斗' });
    assert.deepEqual(t.entities.map((e) => e.name), ['Kaito Mori', 'Ledger Service']);
    const out = await bot.exportMemories();
    assert.equal(out.memories, 3);
    assert.equal(JSON.parse(out.jsonl.split('\n')[0]).version, 'cpersona-export/1.1');
    const again = await open();
    assert.equal((await again.importMemories({ jsonl: out.jsonl, target_agent_id: 'copy' })).relations, 3);
    await rejects(again.importMemories({ jsonl: reference.replace('"content": "Kaito maintains the ledger service."', '"content": 5') }), 'wrong_type', 'lines[1].content');
    assert.equal((await again.agent('a').listMemories({ limit: 1 })).total, 0, 'the refused import wrote nothing');
    await memory.close();
    await again.close();
  });
});

describe('the RPC channel of the OPFS worker', () => {
  // rpc.js is internal (not in `exports`); it is loaded from the installed package's files.
  let RpcClient;
  before(async () => { ({ RpcClient } = await import(join(CONSUMER, 'node_modules/associative-memory/rpc.js'))); });

  function fakeWorker() {
    const target = new EventTarget();
    target.sent = [];
    target.terminated = false;
    target.postMessage = (m) => target.sent.push(m);
    target.terminate = () => { target.terminated = true; };
    target.reply = (data) => target.dispatchEvent(new MessageEvent('message', { data }));
    return target;
  }

  it('matches replies to requests by id and rebuilds errors with code and field', async () => {
    const worker = fakeWorker();
    const rpc = new RpcClient(worker);
    const a = rpc.call('call', ['traverse', {}]);
    const b = rpc.call('export', []);
    assert.deepEqual(worker.sent.map((m) => [m.id, m.method]), [[1, 'call'], [2, 'export']]);
    worker.reply({ id: 2, ok: true, value: 'second' });
    worker.reply({ id: 1, ok: false, error: { name: 'AssociativeMemoryError', message: 'max_hops must be 0–5', code: 'out_of_range', field: 'max_hops' } });
    assert.equal(await b, 'second');
    await rejects(a, 'out_of_range', 'max_hops');
  });

  it('rejects every pending call, and every later one, when the worker crashes', async () => {
    const worker = fakeWorker();
    const rpc = new RpcClient(worker);
    const pending = [rpc.call('call', ['store', {}]), rpc.call('call', ['traverse', {}])];
    // Node has no ErrorEvent; a browser's carries `message`, which the client reports.
    worker.dispatchEvent(Object.assign(new Event('error'), { message: 'RuntimeError: unreachable' }));
    for (const p of pending) await rejects(p, 'worker_crashed');
    await assert.rejects(pending[0], /RuntimeError: unreachable/);
    await rejects(rpc.call('export', []), 'worker_crashed');
    assert.ok(worker.terminated);
  });

  it("hands the worker's word that its engine trapped to its tab, after the replies sent before it", async () => {
    const worker = fakeWorker();
    const heard = [];
    const rpc = new RpcClient(worker, (trap) => heard.push(trap));
    const running = rpc.call('call', ['store', {}]);
    const queued = rpc.call('call', ['recall', {}]);
    worker.reply({ id: 1, ok: false, error: { name: 'AssociativeMemoryError', message: 'the engine stopped during this call', code: 'engine_crashed' } });
    worker.reply({ crashed: { name: 'RuntimeError', message: 'unreachable' } });
    await rejects(running, 'engine_crashed');
    assert.deepEqual(heard.map((e) => `${e.name}: ${e.message}`), ['RuntimeError: unreachable']);
    // The client stays as it was: the tab decides (share.ts terminates the worker and resends the queued call).
    assert.equal(rpc.error, null);
    assert.ok(!worker.terminated);
    rpc.fail(new Error('terminated'));
    await assert.rejects(queued, /terminated/);
  });
});
