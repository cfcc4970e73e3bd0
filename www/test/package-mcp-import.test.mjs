// importMcpMemoryGraph against the real official MCP memory server: the test drives
// `@modelcontextprotocol/server-memory` over stdio with the official SDK's `Client`, lets it
// write its memory.jsonl, imports that file through the installed package, and checks that
// `traverse` and `getContents` answer what the server's `open_nodes` answered. Bad files are
// refused whole, naming the line, with nothing written.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { importPackage } from './pack.mjs';

const SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');

/** A tool's JSON answer from the memory server. */
async function tool(client, name, args) {
  const out = await client.callTool({ name, arguments: args });
  assert.ok(!out.isError, `${name}: ${out.content?.[0]?.text}`);
  return out.structuredContent ?? JSON.parse(out.content[0].text);
}

describe('importMcpMemoryGraph, with a file the official MCP memory server wrote', () => {
  let pkg;
  let dir;
  let jsonl;
  let opened;

  before(async () => {
    pkg = await importPackage();
    dir = mkdtempSync(join(tmpdir(), 'mcp-memory-'));
    const file = join(dir, 'memory.jsonl');
    const client = new Client({ name: 'associative-memory-test', version: '0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], env: { ...process.env, MEMORY_FILE_PATH: file }, stderr: 'ignore' }));
    await tool(client, 'create_entities', { entities: [
      { name: 'Kaito Mori', entityType: 'person', observations: ['Kaito maintains the ledger service.', '森海斗は台帳サービスの担当です。'] },
      { name: 'Ledger Service', entityType: 'service', observations: ['The ledger service stores balances in Postgres.'] },
      { name: 'Postgres', entityType: 'database', observations: [] },
      { name: 'Sakura Mart', entityType: 'merchant', observations: ['さくらマートはQR決済を使う。'] },
    ] });
    await tool(client, 'create_relations', { relations: [
      { from: 'Kaito Mori', to: 'Ledger Service', relationType: 'maintains' },
      { from: 'Ledger Service', to: 'Postgres', relationType: 'stores_in' },
      { from: 'Sakura Mart', to: 'Ledger Service', relationType: 'pays_through' },
    ] });
    await tool(client, 'add_observations', { observations: [{ entityName: 'Kaito Mori', contents: ['Kaito joined in 2024.'] }] });
    opened = await tool(client, 'open_nodes', { names: ['Kaito Mori', 'Ledger Service'] });
    await client.close();
    jsonl = readFileSync(file, 'utf8');
  });

  after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

  it('brings every entity, observation and relation in, and traverse answers what open_nodes answered', async () => {
    const memory = await pkg.openMemory();
    const progress = [];
    const result = await pkg.importMcpMemoryGraph(memory, jsonl, { agent_id: 'assistant', onProgress: (p) => progress.push(p) });
    // a memory per entity (its type), per observation (3 of Kaito, 2 of the others) and per relation
    assert.deepEqual(result, { entities: 4, memories: 12, relations: 3, dropped: [] });
    assert.deepEqual(progress.at(-1), { done: 12, total: 12 });
    const bot = memory.agent('assistant');
    for (const entity of opened.entities) {
      const t = await bot.traverse({ entity: entity.name, max_hops: 1 });
      const start = t.entities.find((e) => e.hops === 0);
      assert.equal(start.name, entity.name);
      const { items } = await bot.getContents({ refs: start.mentions });
      const type = `${entity.name}: ${entity.entityType}`;
      assert.deepEqual(items.map((i) => i.content).sort(), [type, ...entity.observations].sort(), `${entity.name}'s type and observations are its memories`);
      // Every relation open_nodes gave between the opened nodes is a relation of the neighbourhood.
      const names = new Map(t.entities.map((e) => [e.id, e.name]));
      const got = t.relations.map((r) => `${names.get(r.subject)} ${r.predicate} ${names.get(r.object)}`);
      for (const r of opened.relations.filter((r) => r.from === entity.name || r.to === entity.name)) {
        assert.ok(got.includes(`${r.from} ${r.relationType} ${r.to}`), `${r.from} ${r.relationType} ${r.to} in ${got}`);
      }
    }
    // Each relation is anchored on a memory of its own; the entity type is kept.
    const t = await bot.traverse({ entity: 'Postgres', max_hops: 1 });
    assert.ok(t.relations.every((r) => r.anchor_ref?.startsWith('mem:')), JSON.stringify(t.relations));
    const { items } = await bot.getContents({ refs: t.entities.find((e) => e.hops === 0).mentions });
    assert.deepEqual(items.map((i) => i.content), ['Postgres: database']);
    assert.ok((await bot.recall({ query: '台帳サービス' })).messages.length > 0, 'the Japanese observation is searchable');
    await memory.close();
  });

  it('refuses a bad file whole, naming the line, and writes nothing', async () => {
    const memory = await pkg.openMemory();
    const lines = jsonl.trim().split('\n');
    for (const [text, field] of [
      [[lines[0], '{"type":"entity","name":"X"', ...lines.slice(1)].join('\n'), 'lines[1]'],
      [[lines[0], JSON.stringify({ type: 'entity', name: 'X', entityType: 'thing', observations: 'not a list' })].join('\n'), 'lines[1].observations'],
      [[lines[0], JSON.stringify({ type: 'relation', from: 'X', to: '', relationType: 'r' })].join('\n'), 'lines[1].to'],
      [[lines[0], JSON.stringify({ type: 'person', name: 'X' })].join('\n'), 'lines[1].type'],
      [[lines[0], '[1, 2]'].join('\n'), 'lines[1]'],
    ]) {
      await assert.rejects(pkg.importMcpMemoryGraph(memory, text, { agent_id: 'assistant' }), (e) => {
        assert.equal(e.code, 'invalid_value', e.message);
        assert.equal(e.field, field, e.message);
        return true;
      });
    }
    assert.equal((await memory.agent('assistant').listMemories({ limit: 1 })).total, 0, 'nothing was written');
    await memory.close();
  });
});
