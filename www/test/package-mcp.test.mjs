// The MCP faces, each driven by the official TypeScript SDK's `Client`: `createMcpServer`
// from the packed package over the SDK's in-memory transport in Node and in a Chromium page
// (a memory in the page, and one in OPFS), over Streamable HTTP in workerd, and the native
// binary (`associative-memory-mcp`, cargo feature `mcp`) over stdio. Each: the tools listed are the generated definitions (names,
// schemas, annotations, output schemas), a store with associations, reconstruct, traverse and
// list_entities answer through them with `structuredContent` (which the SDK's client checks
// against the output schema) equal to the JSON text, a bad argument comes back as a tool error
// naming the argument, with nothing written, and a tool the server does not list is the
// protocol error -32602 naming the tools it does; a read-only server lists no tool that writes.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CONSUMER, importPackage } from './pack.mjs';
import { build as viteBuild, preview } from 'vite';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, offline, startWorkerd, watch } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOOL_NAMES = ['store', 'recall', 'reconstruct', 'traverse', 'declare_associations', 'get_contents', 'delete_memory', 'list_memories', 'update_memory', 'delete_agent_data', 'list_entities', 'history'];
const READ_TOOLS = ['recall', 'reconstruct', 'traverse', 'get_contents', 'list_memories', 'list_entities', 'history'];
const DESTRUCTIVE = ['declare_associations', 'delete_memory', 'update_memory', 'delete_agent_data'];

async function importMcp() {
  const resolved = createRequire(join(CONSUMER, 'index.js')).resolve('associative-memory/mcp');
  return import(pathToFileURL(resolved).href);
}

/** The tool's JSON response, failing on a tool error. */
/** Waits until `done()` holds, for up to five seconds. */
async function waitFor(done) {
  for (const end = Date.now() + 5000; !done();) {
    if (Date.now() > end) assert.fail(`still not so after 5 s: ${done}`);
    await new Promise((resolve) => { setTimeout(resolve, 20); });
  }
}

/**
 * The tool's response, failing on a tool error: its `structuredContent` (which the SDK's
 * client has checked against the tool's output schema, listed before), equal to its JSON text.
 */
async function call(client, name, args) {
  const out = await client.callTool({ name, arguments: args });
  assert.ok(!out.isError, `${name} ${JSON.stringify(args)}: ${out.content?.[0]?.text}`);
  assert.equal(out.content[0].type, 'text');
  assert.deepEqual(out.structuredContent, JSON.parse(out.content[0].text), `${name}: the structured content is the text's`);
  return out.structuredContent;
}

/** A call of a tool the server does not list: JSON-RPC -32602, naming the tools it does. */
async function refusedAsUnknown(client, name, served) {
  await assert.rejects(client.callTool({ name, arguments: { agent_id: 'mcp-bot', memory_id: 1 } }),
    (e) => e.message.includes(`-32602: unknown tool: ${name}; tools: ${served.join(', ')}`) || assert.fail(e.message));
}

/** The checks every face passes; `expected` is the tools list it must serve. */
async function exercise(client, expected) {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
  if (expected) assert.deepEqual(tools, expected);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object');
    assert.equal(t.outputSchema.type, 'object', t.name);
    assert.deepEqual(t.annotations, {
      title: t.annotations.title, readOnlyHint: READ_TOOLS.includes(t.name), destructiveHint: DESTRUCTIVE.includes(t.name),
      idempotentHint: t.name !== 'store', openWorldHint: false,
    }, t.name);
    assert.match(t.annotations.title, /^[A-Z][a-z ]+$/);
  }

  const stored = await call(client, 'store', {
    agent_id: 'mcp-bot', content: 'Kaito Mori maintains the ledger service.',
    associations: {
      entities: [{ name: 'Kaito Mori' }, { name: 'Ledger Service', aliases: ['台帳サービス'] }],
      relations: [{ subject: 'Kaito Mori', predicate: 'maintains', object: 'Ledger Service' }],
    },
  });
  assert.equal(stored.result, 'stored');
  assert.equal(stored.associations.relations.length, 1);
  assert.deepEqual(stored.associations.dropped ?? [], []);
  const graph = await call(client, 'traverse', { agent_id: 'mcp-bot', entity: '台帳サービス' });
  assert.deepEqual(graph.entities.map((e) => e.name), ['Ledger Service', 'Kaito Mori']);
  assert.deepEqual(graph.relations.map((r) => r.predicate), ['maintains']);
  const answer = await call(client, 'reconstruct', { agent_id: 'mcp-bot', query: 'who maintains the ledger service?' });
  assert.ok(answer.items.length >= 1, JSON.stringify(answer));
  assert.match(JSON.stringify(answer.items[0]), /Kaito Mori/);
  const listed = await call(client, 'list_memories', { agent_id: 'mcp-bot' });
  assert.equal(listed.total, 1);
  const brief = await call(client, 'list_memories', { agent_id: 'mcp-bot', max_content: 5 });
  assert.deepEqual([brief.memories[0].content, brief.memories[0].truncated], ['Kaito', true], 'a metadata-and-preview page');
  const entities = await call(client, 'list_entities', { agent_id: 'mcp-bot', limit: 1 });
  assert.deepEqual([entities.entities.map((e) => [e.name, e.aliases, e.mentions, e.relations]), entities.total, entities.next_offset],
    [[['Kaito Mori', [], 1, 1]], 2, 1]);
  await refusedAsUnknown(client, 'forget_everything', TOOL_NAMES);

  const bad = await client.callTool({ name: 'traverse', arguments: { agent_id: 'mcp-bot', entity: 'Kaito Mori', max_hops: 9 } });
  assert.equal(bad.isError, true);
  const error = JSON.parse(bad.content[0].text);
  assert.equal(error.error, 'out_of_range');
  assert.equal(error.field, 'max_hops');
  const unknown = await client.callTool({ name: 'store', arguments: { agent_id: 'mcp-bot', contents: 'typo' } });
  assert.equal(unknown.isError, true);
  assert.equal(JSON.parse(unknown.content[0].text).field, 'contents');
  // nothing was written by the refused calls
  assert.equal((await call(client, 'list_memories', { agent_id: 'mcp-bot' })).total, 1);
}

/** The checks of a read-only server (`{ readOnly: true }`), over a memory holding one memory of `mcp-bot`. */
async function exerciseReadOnly(client) {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), READ_TOOLS);
  for (const t of tools) assert.equal(t.annotations.readOnlyHint, true, t.name);
  await refusedAsUnknown(client, 'delete_memory', READ_TOOLS);
  const listed = await call(client, 'list_memories', { agent_id: 'mcp-bot' });
  assert.equal(listed.total, 1, 'the refused delete deleted nothing');
}

describe('MCP: createMcpServer over the in-memory transport (Node)', () => {
  let pkg, mcp;
  before(async () => { pkg = await importPackage(); mcp = await importMcp(); });

  async function connect(server) {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    return client;
  }

  it('serves the generated tools; store, traverse, reconstruct and a bad argument', async () => {
    const memory = await pkg.openMemory();
    const client = await connect(mcp.createMcpServer(memory));
    assert.equal(client.getServerVersion().name, 'associative-memory');
    await exercise(client, memory.tools({ format: 'mcp' }));
    await client.close();
    await memory.close();
  });

  it('serves a selection: read-only lists no tool that writes and refuses delete_memory; names are checked', async () => {
    const memory = await pkg.openMemory();
    await memory.store({ agent_id: 'mcp-bot', content: 'kept' });
    const client = await connect(mcp.createMcpServer(memory, { readOnly: true }));
    await exerciseReadOnly(client);
    await client.close();
    const some = await connect(mcp.createMcpServer(memory.agent('mcp-bot'), { only: ['recall', 'delete_memory'], exclude: ['delete_memory'] }));
    assert.deepEqual((await some.listTools()).tools.map((t) => t.name), ['recall']);
    await refusedAsUnknown(some, 'store', ['recall']);
    await some.close();
    assert.throws(() => mcp.createMcpServer(memory, { only: ['recall', 'forget'] }), { code: 'invalid_value', field: 'only' });
    assert.throws(() => mcp.createMcpServer(memory, { exclude: ['delete'] }), { code: 'invalid_value', field: 'exclude' });
    assert.equal((await memory.listMemories({ agent_id: 'mcp-bot' })).total, 1, 'nothing was deleted');
    await memory.close();
  });

  it('serves one agent through a handle: no agent_id argument, no other agent reachable', async () => {
    const memory = await pkg.openMemory();
    await memory.store({ agent_id: 'other', content: 'a secret of another agent' });
    const client = await connect(mcp.createMcpServer(memory.agent('bot')));
    const { tools } = await client.listTools();
    for (const t of tools) assert.ok(!('agent_id' in (t.inputSchema.properties ?? {})), t.name);
    assert.deepEqual(await call(client, 'list_memories', {}), { memories: [], count: 0, total: 0 });
    const refused = await client.callTool({ name: 'list_memories', arguments: { agent_id: 'other' } });
    assert.equal(refused.isError, true);
    assert.equal(JSON.parse(refused.content[0].text).field, 'agent_id');
    await client.close();
    await memory.close();
  });
});

describe('MCP: createMcpServer in a Chromium page, over the in-memory transport', () => {
  const problems = [];
  let server;
  let browser;
  before(async () => {
    const root = join(CONSUMER, 'mcp-page');
    await viteBuild({ root, logLevel: 'warn', build: { outDir: 'dist', emptyOutDir: true } });
    server = await preview({ root, logLevel: 'warn', preview: { port: 0, host: '127.0.0.1' } });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const storage of ['memory', 'opfs']) {
    it(`serves the generated tools from the page, storage '${storage}'`, async () => {
      const context = await browser.newContext();
      await offline(context, problems);
      const page = await context.newPage();
      watch(page, problems);
      await page.goto(`${server.resolvedUrls.local[0]}?storage=${storage}`);
      await page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 30000 });
      // The page's own SDK Client, driven from here with the checks every face passes.
      const client = {
        listTools: () => page.evaluate(() => window.client.listTools()),
        callTool: (request) => page.evaluate((request) => window.client.callTool(request), request),
      };
      await exercise(client, await page.evaluate(() => window.tools));
      await exerciseReadOnly({
        listTools: () => page.evaluate(() => window.readOnlyClient.listTools()),
        callTool: (request) => page.evaluate((request) => window.readOnlyClient.callTool(request), request),
      });
      await context.close();
      assert.deepEqual(problems, []);
    });
  }
});

describe('MCP: Streamable HTTP in workerd', () => {
  let server;
  // the SDK's dependencies (ajv) publish `main` only, which a `neutral` bundle does not read
  // unless told, as wrangler's bundler is
  before(async () => { server = await startWorkerd(join(CONSUMER, 'edge-mcp', 'worker.js'), { mainFields: ['browser', 'module', 'main'] }); });
  after(() => server?.child.kill());

  it('serves the tools to the SDK client over HTTP', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const { openMemory } = await importPackage();
    const memory = await openMemory();
    await exercise(client, memory.tools({ format: 'mcp' }));
    await client.close();
    const readOnly = new Client({ name: 'test', version: '1.0.0' });
    await readOnly.connect(new StreamableHTTPClientTransport(new URL('/read-only', server.url)));
    await exerciseReadOnly(readOnly);
    await readOnly.close();
    assert.doesNotMatch(server.log(), /uncaught/i);
  });
});

describe('MCP: the native binary over stdio', () => {
  // the debug build: `make test-www` builds it beside the native tests' (a release build
  // would compile SQLite again with LTO for no gain in a test)
  const binary = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target'), 'debug', 'associative-memory-mcp');
  let dir;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'am-mcp-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('serves a file-backed memory that keeps what was stored across restarts', async () => {
    assert.ok(existsSync(binary), `${binary} is missing: cargo build --features mcp --bin associative-memory-mcp (make test-www does)`);
    const db = join(dir, 'memory.sqlite');
    const { openMemory } = await importPackage();
    const memory = await openMemory();
    const start = async () => {
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: binary, args: ['--db', db], stderr: 'pipe' }));
      return client;
    };
    const client = await start();
    await exercise(client, memory.tools({ format: 'mcp' }));
    await client.close();
    // the server closed the database as the client left: its log checkpointed and gone
    await waitFor(() => !existsSync(`${db}-wal`));
    assert.ok(existsSync(db));
    const again = await start();
    const graph = await call(again, 'traverse', { agent_id: 'mcp-bot', entity: 'kaito mori' });
    assert.deepEqual(graph.relations.map((r) => r.predicate), ['maintains']);
    await refusedAsUnknown(again, 'forget_everything', TOOL_NAMES);
    await again.close();
  });

  it('serves an encrypted file with the key from its environment, and refuses another key', async () => {
    const db = join(dir, 'encrypted.sqlite');
    const start = async (key) => {
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: binary, args: ['--db', db], env: { ...process.env, ASSOCIATIVE_MEMORY_KEY: key }, stderr: 'pipe' }));
      return client;
    };
    const passphrase = 'mcp test passphrase';
    const client = await start(passphrase);
    await call(client, 'store', { agent_id: 'mcp-bot', content: 'ZEBRA-MARKER 海斗はキューを直した' });
    await client.close();
    await waitFor(() => !existsSync(`${db}-wal`));
    const bytes = readFileSync(db);
    assert.ok(!bytes.includes('ZEBRA-MARKER') && !bytes.includes('海斗') && !bytes.includes('SQLite format 3'));
    for (const [key, code] of [['another passphrase', 'wrong_key'], ['ab'.repeat(32), 'wrong_key'], [undefined, 'encrypted']]) {
      const env = { ...process.env };
      if (key === undefined) delete env.ASSOCIATIVE_MEMORY_KEY; else env.ASSOCIATIVE_MEMORY_KEY = key;
      const child = spawn(binary, ['--db', db], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => { stderr += d; });
      assert.equal(await new Promise((done) => child.on('exit', done)), 1, stderr);
      assert.match(stderr, new RegExp(`\\(${code}\\)`));
      if (key) assert.ok(!stderr.includes(key), stderr);
    }
    assert.deepEqual(readFileSync(db), bytes, 'a refused start changed the file');
    const again = await start(passphrase);
    const { messages } = await call(again, 'recall', { agent_id: 'mcp-bot', query: 'キュー' });
    assert.equal(messages[0].content, 'ZEBRA-MARKER 海斗はキューを直した');
    await again.close();
  });

  it('outlives a line that is not JSON and a client that closes mid-session', async () => {
    const child = spawn(binary, ['--db', join(dir, 'raw.sqlite')], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const replies = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const send = (message) => child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    assert.equal(JSON.parse((await replies.next()).value).id, 1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send('{"jsonrpc": "2.0", "id": 2, "method": tools/list}');
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'recall', arguments: { agent_id: 'raw' } } });
    const reply = JSON.parse((await replies.next()).value);
    assert.equal(reply.id, 3);
    assert.equal(reply.result.isError, true);
    assert.equal(JSON.parse(reply.result.content[0].text).field, 'query');
    child.stdin.end();
    const code = await new Promise((done) => child.on('exit', done));
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /panicked/);
  });
});
