// The packed package in Cloudflare's workerd (npm `workerd`): the consumer's edge worker is
// bundled the way wrangler bundles (esbuild, conditions workerd/worker/browser, the .wasm
// left as a module import), served on 127.0.0.1, and asked over HTTP; it opens an
// in-memory memory, stores, traverses and returns export() bytes, which Node imports back.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { importPackage } from './pack.mjs';
import { startWorkerd } from './harness.mjs';

describe('an edge worker in workerd', () => {
  let server;
  before(async () => { server = await startWorkerd(); });
  after(() => server?.child.kill());

  it('stores, traverses and returns export() bytes that Node imports back', async () => {
    const res = await fetch(server.url);
    assert.equal(res.status, 200, `${await res.clone().text()}\n${server.log()}`);
    const graph = JSON.parse(decodeURIComponent(res.headers.get('x-traverse')));
    assert.deepEqual(graph.entities.map((e) => e.name), ['Ledger Service', 'Kaito Mori']);
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(new TextDecoder().decode(bytes.subarray(0, 15)), 'SQLite format 3');
    const { openMemory } = await importPackage();
    const memory = await openMemory();
    await memory.import(bytes);
    const again = await memory.traverse({ agent_id: 'edge-bot', entity: 'kaito mori' });
    assert.deepEqual(again.relations.map((r) => r.predicate), ['maintains']);
    assert.doesNotMatch(server.log(), /uncaught|error/i);
  });
});
