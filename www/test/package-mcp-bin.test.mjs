// The MCP command, both of it: the npm package's (`associative-memory-mcp` in the installed
// package's node_modules/.bin, www/src/mcp-bin.ts, what `npx -p associative-memory
// associative-memory-mcp` runs) and the native binary (target/debug/associative-memory-mcp,
// cargo feature `mcp`, which `make test-www` builds first). One suite, run over each: they
// take the same flags, refuse the same bad command lines (status 2, naming the flag, before
// the file is touched), serve the same tools for the same flags (compared whole with the
// package's `tools({ format: 'mcp' })` of the same agent and selection), keep a file across
// restarts and encrypt it with the key `--key-env` names. Each is driven over stdio by the
// official SDK's `Client`. `--import-mcp-memory` and `--compat` are the package's alone (its
// TypeScript): the package's command is tested importing a memory.jsonl here (`--compat` in
// package-server-memory.test.mjs), the native binary refusing both by name. Last, a file
// either one wrote opens in the other, with its key.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CONSUMER, importPackage } from './pack.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGE = { name: 'the npm package\'s command', command: join(CONSUMER, 'node_modules', '.bin', 'associative-memory-mcp'), typescript: true };
// the debug build, as package-mcp.test.mjs drives it
const NATIVE = { name: 'the native binary', command: join(process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target'), 'debug', 'associative-memory-mcp'), typescript: false };
const FLAGS = ['--db', '--agent', '--project', '--key-env', '--tools', '--import-mcp-memory', '--compat', '--help'];

/** The environment without any key in it, plus `extra`. */
function environment(extra = {}) {
  const env = { ...process.env, ...extra };
  delete env.ASSOCIATIVE_MEMORY_KEY;
  for (const [name, value] of Object.entries(extra)) if (value === undefined) delete env[name]; else env[name] = value;
  return env;
}

/** Runs the command with stdin closed, to its end: its status and output. */
function run(face, args, env = {}) {
  const child = spawn(face.command, args, { env: environment(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((done, failed) => {
    child.on('error', failed);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

/** Sessions not stopped yet: a failed test's are closed after it, so no server outlives the suite. */
const open = new Set();

/** The command serving over stdio, connected to the SDK's client; `stderr()` is what it wrote there. */
async function start(face, args, env = {}) {
  const transport = new StdioClientTransport({ command: face.command, args, env: environment(env), stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'mcp-bin-test', version: '1.0.0' });
  const session = { client, stderr: () => stderr };
  open.add(session);
  await client.connect(transport);
  return session;
}

/** Ends a session, and checks that the command wrote nothing alarming on the way. */
async function stop(session) {
  open.delete(session);
  await session.client.close();
  assert.doesNotMatch(session.stderr(), /panicked|uncaught|TypeError|ReferenceError/i, session.stderr());
}

/** The tool's response, failing on a tool error. */
async function call(client, name, args) {
  const out = await client.callTool({ name, arguments: args });
  assert.ok(!out.isError, `${name} ${JSON.stringify(args)}: ${out.content?.[0]?.text}`);
  assert.deepEqual(JSON.parse(out.content[0].text), out.structuredContent);
  return out.structuredContent;
}

/** A refused call: the engine's typed error as the tool error's text. */
async function refused(client, name, args) {
  const out = await client.callTool({ name, arguments: args });
  assert.equal(out.isError, true, `${name} ${JSON.stringify(args)} was not refused`);
  return JSON.parse(out.content[0].text);
}

/** The tools listed, compared whole with what the package hands out for the same agent and selection. */
async function assertTools(client, expected) {
  const { tools } = await client.listTools();
  assert.deepEqual(tools, expected);
  return tools;
}

/** Waits until `done()` holds, for up to five seconds. */
async function waitFor(done) {
  for (const end = Date.now() + 5000; !done();) {
    if (Date.now() > end) assert.fail(`still not so after 5 s: ${done}`);
    await new Promise((resolve) => { setTimeout(resolve, 20); });
  }
}

/** A closed session's file: its log checkpointed and gone. */
const settled = (db) => waitFor(() => !existsSync(`${db}-wal`));

let pkgMemory;
before(async () => {
  for (const face of [PACKAGE, NATIVE]) {
    assert.ok(existsSync(face.command), `${face.command} is missing (${face === NATIVE ? 'cargo build --features mcp --bin associative-memory-mcp; make test-www does' : 'node www/test/pack.mjs'})`);
  }
  const { openMemory } = await importPackage();
  pkgMemory = await openMemory();
});
afterEach(async () => {
  for (const session of open) await session.client.close().catch(() => undefined);
  open.clear();
});
after(() => pkgMemory?.close());

for (const face of [PACKAGE, NATIVE]) {
  describe(`MCP command: ${face.name}`, () => {
    let dir;
    before(() => { dir = mkdtempSync(join(tmpdir(), 'am-mcp-bin-')); });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('prints its usage with --help, naming every flag', async () => {
      const { status, stdout } = await run(face, ['--help']);
      assert.equal(status, 0);
      for (const flag of FLAGS) assert.ok(stdout.includes(flag), `${flag} missing from\n${stdout}`);
      // the native binary says which two are the package's alone
      if (!face.typescript) assert.match(stdout, /--import-mcp-memory <file> and --compat server-memory are the npm package's/);
    });

    it('refuses a bad command line with status 2, naming the flag, and touches no file', async () => {
      const db = join(dir, 'never.sqlite');
      const cases = [
        [[], '--db is required'],
        [['--db'], '--db needs a value'],
        [['--db', db, '--db', db], '--db is given twice'],
        [['--db', db, '--agnet', 'bot'], 'unknown flag --agnet'],
        [['--db', db, '--agent', ''], '--agent needs a value'],
        [['--db', db, '--project', 'p'], '--project needs --agent'],
        [['--db', db, '--tools', 'store,forget_everything'], '--tools: "forget_everything" is no tool here'],
        [['--db', db, '--tools', 'readonly'], '--tools: "readonly" is no tool here'],
        [['--db', db, '--tools=store,,recall'], '--tools: "" is no tool here'],
        [['--db', db, '--key-env', 'AM_TEST_UNSET_KEY'], '--key-env: the environment variable AM_TEST_UNSET_KEY is not set'],
        [['--db', db, '--key-env', 'not a name'], '--key-env takes an environment variable\'s name'],
        ...(face.typescript
          ? [[['--db', db, '--compat', 'server-memory-2'], '--compat takes server-memory']]
          : [[['--db', db, '--import-mcp-memory', join(dir, 'memory.jsonl')], '--import-mcp-memory is the npm package\'s command\'s alone'],
            [['--db', db, '--compat', 'server-memory'], '--compat is the npm package\'s command\'s alone']]),
      ];
      for (const [args, message] of cases) {
        const { status, stderr } = await run(face, args, { AM_TEST_UNSET_KEY: undefined });
        assert.equal(status, 2, `${args.join(' ')}: ${stderr}`);
        assert.ok(stderr.startsWith(`associative-memory-mcp: ${message}`), `${args.join(' ')}: ${stderr}`);
        assert.match(stderr, /\nusage: associative-memory-mcp --db <path>/);
        assert.ok(!existsSync(db), `${args.join(' ')} created the file`);
      }
      // a --tools list names the tools there are
      const { stderr } = await run(face, ['--db', db, '--tools', 'nope']);
      assert.ok(stderr.includes('store, recall, reconstruct, traverse'), stderr);
    });

    it('serves every tool on a file, which keeps what was stored across restarts', async () => {
      const db = join(dir, 'memory.sqlite');
      let session = await start(face, ['--db', db]);
      await assertTools(session.client, pkgMemory.tools({ format: 'mcp' }));
      const stored = await call(session.client, 'store', {
        agent_id: 'mcp-bot', content: 'Kaito Mori maintains the ledger service. 海斗は台帳サービスの担当です。',
        associations: { relations: [{ subject: 'Kaito Mori', predicate: 'maintains', object: 'Ledger Service' }] },
      });
      assert.equal(stored.result, 'stored');
      await stop(session);
      await settled(db);

      session = await start(face, ['--db', db, '--tools', 'all']);
      const { messages } = await call(session.client, 'recall', { agent_id: 'mcp-bot', query: '台帳サービス' });
      assert.equal(messages[0].content, 'Kaito Mori maintains the ledger service. 海斗は台帳サービスの担当です。');
      const graph = await call(session.client, 'traverse', { agent_id: 'mcp-bot', entity: 'kaito mori' });
      assert.deepEqual(graph.relations.map((r) => r.predicate), ['maintains']);
      // a tool not served is the protocol's error, the same on both
      await assert.rejects(session.client.callTool({ name: 'forget_everything', arguments: {} }), /unknown tool: forget_everything; tools: store, recall/);
      await stop(session);
    });

    it('--agent serves one agent: its tools take no agent_id, and no call reaches another', async () => {
      const db = join(dir, 'agents.sqlite');
      let session = await start(face, ['--db', db, '--agent', 'pm-bot']);
      const tools = await assertTools(session.client, pkgMemory.agent('pm-bot').tools({ format: 'mcp' }));
      assert.equal(tools.length, pkgMemory.tools().length);
      for (const t of tools) {
        assert.ok(!('agent_id' in (t.inputSchema.properties ?? {})), `${t.name} still takes agent_id`);
        assert.ok(!(t.inputSchema.required ?? []).includes('agent_id'), t.name);
      }
      const first = await call(session.client, 'store', { content: 'The standup moved to 10:30.' });
      const other = await refused(session.client, 'store', { agent_id: 'someone-else', content: 'not stored' });
      assert.equal(other.error, 'unknown_option');
      assert.equal(other.field, 'agent_id');
      assert.equal((await call(session.client, 'list_memories', {})).total, 1);
      await stop(session);
      await settled(db);

      // with a project: the tools take no project_id either; those whose options carry no
      // project (delete_memory: the agent's record by id) are called without one
      session = await start(face, ['--db', db, '--agent', 'pm-bot', '--project', 'ledger']);
      await assertTools(session.client, pkgMemory.agent('pm-bot', { project_id: 'ledger' }).tools({ format: 'mcp' }));
      const inProject = await call(session.client, 'store', { content: 'The ledger release is on Friday.', channel: 'releases' });
      const project = await refused(session.client, 'recall', { query: 'release', project_id: 'other' });
      assert.equal(project.field, 'project_id');
      // (a project's reads see the agent's memories kept outside any project too)
      const listed = await call(session.client, 'list_memories', {});
      assert.deepEqual(listed.memories.map((m) => [m.id, m.project_id, m.channel]), [[inProject.id, 'ledger', 'releases'], [first.id, '', '']]);
      assert.equal((await call(session.client, 'delete_memory', { memory_id: first.id })).deleted_id, first.id);
      await stop(session);
      await settled(db);

      // the whole file, unscoped: the agent's memories where the flags put them, no other agent's
      session = await start(face, ['--db', db]);
      const all = await call(session.client, 'list_memories', { agent_id: 'pm-bot' });
      assert.deepEqual(all.memories.map((m) => [m.content, m.project_id]), [['The ledger release is on Friday.', 'ledger']]);
      assert.equal((await call(session.client, 'list_memories', { agent_id: 'someone-else' })).total, 0);
      await stop(session);
    });

    it('--tools read-only serves no tool that writes; a comma list serves those named', async () => {
      const db = join(dir, 'tools.sqlite');
      let session = await start(face, ['--db', db, '--tools', 'read-only']);
      const tools = await assertTools(session.client, pkgMemory.tools({ format: 'mcp', readOnly: true }));
      assert.deepEqual(tools.map((t) => t.name), ['recall', 'reconstruct', 'traverse', 'get_contents', 'list_memories', 'list_entities', 'history']);
      for (const t of tools) assert.equal(t.annotations.readOnlyHint, true, t.name);
      await assert.rejects(session.client.callTool({ name: 'store', arguments: { agent_id: 'a', content: 'x' } }), /unknown tool: store; tools: recall, reconstruct/);
      assert.equal((await call(session.client, 'list_memories', { agent_id: 'a' })).total, 0);
      await stop(session);
      await settled(db);

      // a comma list (any order, spaces allowed): served in the tools' order
      session = await start(face, ['--db', db, '--agent', 'a', '--tools', 'traverse, store']);
      await assertTools(session.client, pkgMemory.agent('a').tools({ format: 'mcp', only: ['store', 'traverse'] }));
      await call(session.client, 'store', { content: 'Kaito Mori maintains the ledger service.', associations: { relations: [{ subject: 'Kaito Mori', predicate: 'maintains', object: 'Ledger' }] } });
      assert.equal((await call(session.client, 'traverse', { entity: 'Ledger' })).relations.length, 1);
      await assert.rejects(session.client.callTool({ name: 'recall', arguments: { query: 'ledger' } }), /unknown tool: recall; tools: store, traverse$/);
      await stop(session);
      await settled(db);

      // read-only with an agent: the agent's tools that read, nothing written
      session = await start(face, ['--db', db, '--agent', 'a', '--tools=read-only']);
      await assertTools(session.client, pkgMemory.agent('a').tools({ format: 'mcp', readOnly: true }));
      assert.equal((await call(session.client, 'list_memories', {})).total, 1);
      await stop(session);
    });

    it('--key-env encrypts the file with its key; without it, or with another, the file does not open', async () => {
      const db = join(dir, 'encrypted.sqlite');
      const passphrase = 'correct horse battery staple';
      let session = await start(face, ['--db', db, '--key-env', 'AM_TEST_KEY'], { AM_TEST_KEY: passphrase });
      await call(session.client, 'store', { agent_id: 'a', content: 'ZEBRA-MARKER 海斗はキューを直した' });
      await stop(session);
      await settled(db);
      const bytes = readFileSync(db);
      assert.ok(!bytes.includes('ZEBRA-MARKER') && !bytes.includes('海斗') && !bytes.includes('SQLite format 3'));

      for (const [args, env, code] of [
        [[], {}, 'encrypted'],
        [['--key-env', 'AM_TEST_KEY'], { AM_TEST_KEY: 'another passphrase' }, 'wrong_key'],
        [['--key-env', 'AM_TEST_KEY'], { AM_TEST_KEY: 'ab'.repeat(32) }, 'wrong_key'],
        [[], { ASSOCIATIVE_MEMORY_KEY: 'another passphrase' }, 'wrong_key'],
      ]) {
        const { status, stderr } = await run(face, ['--db', db, ...args], env);
        assert.equal(status, 1, stderr);
        assert.match(stderr, new RegExp(`\\(${code}\\)`));
        for (const key of Object.values(env)) assert.ok(!stderr.includes(key), 'the key was printed');
      }
      assert.deepEqual(readFileSync(db), bytes, 'a refused start changed the file');

      // the default variable holds the same key as well as the one --key-env names
      session = await start(face, ['--db', db], { ASSOCIATIVE_MEMORY_KEY: passphrase });
      assert.equal((await call(session.client, 'recall', { agent_id: 'a', query: 'キュー' })).messages[0].content, 'ZEBRA-MARKER 海斗はキューを直した');
      await stop(session);
      await settled(db);

      // 64 hex digits are a raw key
      const raw = join(dir, 'raw-key.sqlite');
      const key = '0123456789abcdef'.repeat(4);
      session = await start(face, ['--db', raw, '--key-env', 'AM_RAW_KEY'], { AM_RAW_KEY: key });
      await call(session.client, 'store', { agent_id: 'a', content: 'kept under a raw key' });
      await stop(session);
      await settled(raw);
      assert.equal((await run(face, ['--db', raw, '--key-env', 'AM_RAW_KEY'], { AM_RAW_KEY: key.replace('0', '1') })).status, 1);
      session = await start(face, ['--db', raw, '--key-env', 'AM_RAW_KEY'], { AM_RAW_KEY: key.toUpperCase() });
      assert.equal((await call(session.client, 'list_memories', { agent_id: 'a' })).total, 1);
      await stop(session);
    });

    if (face.typescript) {
      it('--import-mcp-memory brings the official memory server\'s memory.jsonl into the agent, once', async () => {
        const db = join(dir, 'imported.sqlite');
        const jsonl = join(dir, 'memory.jsonl');
        writeFileSync(jsonl, [
          { type: 'entity', name: 'Kaito Mori', entityType: 'person', observations: ['Kaito maintains the ledger service.'] },
          { type: 'entity', name: 'Ledger Service', entityType: 'service', observations: [] },
          { type: 'relation', from: 'Kaito Mori', to: 'Ledger Service', relationType: 'maintains' },
        ].map((line) => JSON.stringify(line)).join('\n'));
        const args = ['--db', db, '--agent', 'assistant', '--import-mcp-memory', jsonl];
        let session = await start(face, args);
        assert.match(session.stderr(), /imported .*memory\.jsonl: 2 entities, 1 relations, 4 memories/);
        const graph = await call(session.client, 'traverse', { entity: 'ledger service' });
        assert.deepEqual(graph.entities.map((e) => e.name), ['Ledger Service', 'Kaito Mori']);
        assert.deepEqual(graph.relations.map((r) => r.predicate), ['maintains']);
        assert.equal((await call(session.client, 'list_memories', {})).total, 4);
        await stop(session);
        await settled(db);
        // started again with the same flags: not imported twice
        session = await start(face, args);
        assert.match(session.stderr(), /already has 4 memories/);
        assert.equal((await call(session.client, 'list_memories', {})).total, 4);
        await stop(session);

        // a file that is not the server's format: status 1 naming the line, nothing imported
        writeFileSync(jsonl, '{"type":"entity","name":"x"}\n');
        const empty = join(dir, 'not-imported.sqlite');
        const { status, stderr } = await run(face, ['--db', empty, '--import-mcp-memory', jsonl]);
        assert.equal(status, 1, stderr);
        assert.match(stderr, /cannot import .*memory\.jsonl/);
        const { openMemory } = await importPackage();
        const memory = await openMemory({ storage: 'file', path: empty });
        assert.equal((await memory.agent('default').listMemories()).total, 0);
        await memory.close();
      });
    }
  });
}

describe('MCP command: the two faces read each other\'s files', () => {
  let dir;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'am-mcp-bin-both-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a file written by one, with a key, opens in the other with the same key', async () => {
    const env = { AM_TEST_KEY: 'shared passphrase' };
    for (const [writer, reader] of [[PACKAGE, NATIVE], [NATIVE, PACKAGE]]) {
      const db = join(dir, `${writer === PACKAGE ? 'package' : 'native'}.sqlite`);
      const args = ['--db', db, '--agent', 'a', '--key-env', 'AM_TEST_KEY'];
      let session = await start(writer, args, env);
      const stored = await call(session.client, 'store', { content: `written by ${writer.name}` });
      await stop(session);
      await settled(db);
      session = await start(reader, args, env);
      assert.deepEqual((await call(session.client, 'list_memories', {})).memories.map((m) => [m.id, m.content]), [[stored.id, `written by ${writer.name}`]]);
      await stop(session);
    }
  });
});
