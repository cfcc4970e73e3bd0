// The drop-in for the official MCP memory server, differentially: the official
// `@modelcontextprotocol/server-memory` (spawned from node_modules over stdio, its
// memory.jsonl in a temporary directory) and the installed package's command with
// `--compat server-memory` (node_modules/.bin/associative-memory, its memory a file) are
// driven by the official SDK's `Client` with the same calls, and every answer is compared
// whole: `isError`, the text and `structuredContent`, in the official server's order.
//
// Normalized, and only there:
// - the tool list: descriptions and titles are each server's own words, and the official
//   one's zod-made schemas carry `$schema` and its tools `execution`; names, argument and
//   result schemas and annotations are compared as they are.
// - the text of an error the SDK writes (a malformed argument, an unknown tool): both are
//   tool errors (`isError`), in each server's words. An error of the graph's (an entity
//   not found) is compared whole.
// Not driven: duplicates inside one call of create_entities / create_relations, which the
// official server stores twice and this one once (www/README.md, "Drop-in for the MCP memory server").

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CONSUMER, importPackage } from './pack.mjs';

const OFFICIAL = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');
const BIN = join(CONSUMER, 'node_modules', '.bin', 'associative-memory');

async function connect(command, args, env = {}) {
  const client = new Client({ name: 'differential', version: '0' });
  await client.connect(new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'pipe' }));
  return client;
}

/** What a call answered, as compared: an SDK-written error only as `isError`. */
function answer(out, sdkError = false) {
  if (sdkError) return { isError: out.isError === true };
  return { isError: out.isError ?? false, content: out.content, structuredContent: out.structuredContent };
}

/** A tool as listed, without each server's own words and the official one's zod extras. */
function shape(tool) {
  const strip = (schema) => JSON.parse(JSON.stringify(schema, (key, value) => (key === 'description' || key === '$schema' ? undefined : value)));
  return { name: tool.name, inputSchema: strip(tool.inputSchema), outputSchema: strip(tool.outputSchema), annotations: tool.annotations };
}

describe('--compat server-memory against the official MCP memory server', () => {
  let dir;
  let official;
  let ours;
  const db = () => join(dir, 'ours.sqlite');
  const jsonl = () => join(dir, 'memory.jsonl');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'am-server-memory-'));
    official = await connect(process.execPath, [OFFICIAL], { MEMORY_FILE_PATH: jsonl() });
    ours = await connect(BIN, ['--db', db(), '--compat', 'server-memory']);
  });
  after(async () => {
    await official?.close();
    await ours?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Calls both servers alike and asserts they answered the same; the official answer. */
  async function both(name, args, sdkError = false) {
    const [a, b] = [await official.callTool({ name, arguments: args }), await ours.callTool({ name, arguments: args })];
    assert.deepEqual(answer(b, sdkError), answer(a, sdkError), `${name} ${JSON.stringify(args)}`);
    return a;
  }

  it('lists the same nine tools, arguments, results and annotations', async () => {
    const [a, b] = [(await official.listTools()).tools, (await ours.listTools()).tools];
    assert.deepEqual(b.map((t) => t.name), a.map((t) => t.name));
    assert.equal(a.length, 9);
    assert.deepEqual(b.map(shape), a.map(shape));
    for (const t of b) assert.ok(t.description && !a.some((o) => o.description === t.description), `${t.name}: a description of its own`);
  });

  it('answers every call of a session as the official server does', async () => {
    await both('read_graph', {});
    await both('create_entities', { entities: [
      { name: 'Kaito Mori', entityType: 'person', observations: ['Kaito maintains the ledger service.', '森海斗は台帳サービスの担当です。'] },
      { name: 'Ledger Service', entityType: 'service', observations: ['The ledger service stores balances in Postgres.'] },
      { name: 'Postgres', entityType: 'database', observations: [] },
    ] });
    // an entity the graph has is left as it is, whatever its type
    await both('create_entities', { entities: [
      { name: 'Kaito Mori', entityType: 'robot', observations: ['not added'] },
      { name: 'Sakura Mart', entityType: 'merchant', observations: ['さくらマートはQR決済を使う。'] },
    ] });
    await both('create_relations', { relations: [
      { from: 'Kaito Mori', to: 'Ledger Service', relationType: 'maintains' },
      { from: 'Ledger Service', to: 'Postgres', relationType: 'stores_in' },
      { from: 'Sakura Mart', to: 'Ledger Service', relationType: 'pays_through' },
      { from: 'Kaito Mori', to: 'Nobody', relationType: 'knows' }, // an end the graph lacks
    ] });
    await both('create_relations', { relations: [
      { from: 'Kaito Mori', to: 'Ledger Service', relationType: 'maintains' }, // a duplicate
      { from: 'Kaito Mori', to: 'Ledger Service', relationType: 'Maintains' }, // another case: another relation
      { from: 'Postgres', to: 'Ledger Service', relationType: 'backs' },
    ] });
    await both('add_observations', { observations: [
      { entityName: 'Kaito Mori', contents: ['Kaito maintains the ledger service.', 'Kaito joined in 2024.'] },
      { entityName: 'Postgres', contents: ['Version 16.', 'Version 16.'] },
      { entityName: 'Kaito Mori', contents: ['Kaito joined in 2024.', 'Kaito lives in Osaka.'] },
    ] });
    // a missing entity fails the whole call: the first item is not added either
    const missing = await both('add_observations', { observations: [
      { entityName: 'Sakura Mart', contents: ['never added'] },
      { entityName: 'Nobody', contents: ['x'] },
    ] });
    assert.equal(missing.isError, true);
    await both('delete_observations', { deletions: [
      { entityName: 'Kaito Mori', observations: ['森海斗は台帳サービスの担当です。', 'never there'] },
      { entityName: 'Nobody', observations: ['x'] },
    ] });
    await both('delete_relations', { relations: [
      { from: 'Ledger Service', to: 'Postgres', relationType: 'stores_in' },
      { from: 'Ledger Service', to: 'Postgres', relationType: 'never_there' },
    ] });
    await both('read_graph', {});
    for (const query of ['ledger', 'LEDGER', 'qr決済', 'merchant', 'nothing at all', '']) await both('search_nodes', { query });
    await both('open_nodes', { names: ['Kaito Mori', 'Nobody', 'Postgres'] });
    await both('open_nodes', { names: [] });
    // an entity goes with its observations and every relation from or to it
    await both('delete_entities', { entityNames: ['Ledger Service', 'Nobody at all'] });
    const graph = await both('read_graph', {});
    assert.deepEqual(graph.structuredContent.relations, [{ from: 'Kaito Mori', to: 'Nobody', relationType: 'knows' }]);
    // a deleted entity can be created again, after the others
    await both('create_entities', { entities: [{ name: 'Ledger Service', entityType: 'service', observations: ['Back again.'] }] });
    await both('read_graph', {});
    // malformed arguments and unknown tools: tool errors on both, in each one's words
    await both('create_entities', { entities: [{ name: 'x' }] }, true);
    await both('open_nodes', { names: 'Kaito Mori' }, true);
    await both('forget_everything', {}, true);
  });

  it('keeps the graph across a restart, and reads an imported memory.jsonl back the same', async () => {
    const expected = answer(await official.callTool({ name: 'read_graph', arguments: {} }));
    await ours.close();
    ours = await connect(BIN, ['--db', db(), '--compat', 'server-memory']);
    assert.deepEqual(answer(await ours.callTool({ name: 'read_graph', arguments: {} })), expected);

    // the official server's file, imported into a new memory by the command, reads back whole
    const imported = join(dir, 'imported.sqlite');
    const args = ['--db', imported, '--compat', 'server-memory', '--import-mcp-memory', jsonl()];
    let client = await connect(BIN, args);
    assert.deepEqual(answer(await client.callTool({ name: 'read_graph', arguments: {} })), expected);
    await client.close();
    // started again with the same flags, the import is not repeated
    client = await connect(BIN, args);
    assert.deepEqual(answer(await client.callTool({ name: 'read_graph', arguments: {} })), expected);
    await client.close();

    // and the engine's own tools read the same memories: the default agent's
    const { openMemory } = await importPackage();
    const memory = await openMemory({ storage: 'file', path: imported });
    const t = await memory.agent('default').traverse({ entity: 'kaito mori', max_hops: 1 });
    assert.ok(t.entities.some((e) => e.name === 'Nobody'), JSON.stringify(t));
    assert.ok(t.relations.some((r) => r.predicate === 'knows'), JSON.stringify(t));
    await memory.close();
    assert.ok(readFileSync(jsonl(), 'utf8').includes('"Kaito Mori"'));
  });
});
