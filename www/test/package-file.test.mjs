// Storage 'file' of the packed package in Node, with child processes (file-child.mjs): a
// memory survives its process ending without close(); a second opener, in this process or
// another, gets `already_open` (field `path`), and the lock of a killed process is taken
// over; with a key the files on disk hold no stored text; and crash trials: a child storing
// single memories and batches of 5,000 is killed (SIGKILL) in the middle of a batch or at a
// random moment, and the file, reopened, passes check(), holds every store the child saw
// acknowledged, and holds each batch whole or not at all; and after the engine traps, the
// file keeps what was acknowledged and opens again. Crash trials also with the child in Bun
// and in Deno (runtimes.mjs). The whole package suite runs on 'file' too
// (package-node.test.mjs).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CONSUMER, importPackage } from './pack.mjs';
import { DENO_ALLOW, deno, ENV, RUNTIMES } from './runtimes.mjs';

const CHILD = new URL('./file-child.mjs', import.meta.url).pathname;
const MARKER = 'ZEBRA-7f3a-MARKER';

/** Awaits `promise` and checks it rejects with an AssociativeMemoryError of `code` and `field`. */
async function rejects(promise, code, field) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.name, 'AssociativeMemoryError');
    assert.equal(err.code, code, err.message);
    assert.equal(err.field, field, err.message);
    return true;
  });
}

/**
 * A child running file-child.mjs with `args`, in Node or, given `command` (runtimes.mjs), in
 * another runtime: its lines as they come (`lines`, and `until(test)` resolving with the first
 * line passing `test`), and its end (`exited`).
 */
function childIn(command, ...args) {
  const [exe, ...flags] = command;
  const proc = spawn(exe, [...flags, CHILD, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: ENV });
  const lines = [];
  const waiting = new Set();
  let rest = '';
  proc.stdout.on('data', (chunk) => {
    const text = rest + chunk;
    const parts = text.split('\n');
    rest = parts.pop();
    for (const part of parts) {
      const line = JSON.parse(part);
      lines.push(line);
      for (const w of waiting) if (w.test(line)) { waiting.delete(w); w.resolve(line); }
    }
  });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const until = (test) => {
    const seen = lines.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      waiting.add({ test, resolve });
      exited.then(() => reject(new Error(`the child ended without the line waited for; it said ${JSON.stringify(lines.slice(-3))}`)));
    });
  };
  return { proc, lines, until, exited, kill: () => { proc.kill('SIGKILL'); return exited; } };
}
const child = (...args) => childIn(RUNTIMES.node, ...args);

/** Every byte of every file in `dir`. */
async function allBytes(dir) {
  const names = await readdir(dir);
  return Buffer.concat(await Promise.all(names.map((n) => readFile(join(dir, n)))));
}

/**
 * One crash trial in `dir`: a child (in Node, or run by `command`) stores until it is killed — once its batch `batch`
 * reported `fraction` of its items written (`midway` when 1,000 or more were still to come),
 * or `afterMs` after it started — then the file is reopened here. Returns what a crash must
 * not do, and what was seen.
 */
async function crashTrial(pkg, dir, { batch, fraction, afterMs, key, command = RUNTIMES.node }) {
  const path = join(dir, 'crash.sqlite3');
  const c = childIn(command, 'crash', path, ...(key ? [key] : []));
  let midway = false;
  if (afterMs === undefined) midway = (await c.until((l) => l.batch === batch && l.done >= fraction * 5000)).done <= 4000;
  else await new Promise((r) => setTimeout(r, afterMs));
  const { signal } = await c.kill();
  assert.equal(signal, 'SIGKILL');
  const acked = new Map(c.lines.filter((l) => l.single !== undefined).map((l) => [l.single, l.id]));
  const batchesDone = new Set(c.lines.filter((l) => l.stored).map((l) => l.batch));
  const batchesStarted = new Set(c.lines.filter((l) => l.started).map((l) => l.batch));

  const memory = await pkg.openMemory({ storage: 'file', path, key });
  const integrity = await memory.check();
  const single = memory.agent('single');
  const present = new Map();
  for (let offset = 0; offset !== undefined;) {
    const page = await single.listMemories({ limit: 500, offset });
    for (const m of page.memories) present.set(m.id, m.content);
    offset = page.next_offset;
  }
  const lost = [...acked].filter(([k, id]) => present.get(id) !== `single ${k}`).map(([k]) => k);
  const entities = (await single.listEntities({ limit: 1 })).total;
  const halfSingles = entities !== 2 * present.size;
  const batches = [];
  for (const b of batchesStarted) {
    const stored = (await memory.agent(`batch-${b}`).listMemories({ limit: 1 })).total;
    batches.push({ batch: b, stored, acknowledged: batchesDone.has(b) });
  }
  await memory.close();
  await rm(dir, { recursive: true, force: true });
  const half = batches.filter((b) => b.stored !== 0 && b.stored !== 5000);
  const lostBatches = batches.filter((b) => b.acknowledged && b.stored !== 5000);
  return { integrity, acked: acked.size, present: present.size, lost, halfSingles, batches, half, lostBatches, midway };
}

describe("storage 'file' in Node", () => {
  let pkg;
  let root;
  let n = 0;
  /** A fresh directory under this suite's scratch one. */
  const fresh = async () => {
    const dir = join(root, `d${++n}`);
    await mkdir(dir);
    return dir;
  };
  before(async () => {
    pkg = await importPackage();
    root = await mkdtemp(join(tmpdir(), 'am-file-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('checks its options, naming the field', async () => {
    await rejects(pkg.openMemory({ storage: 'file' }), 'missing_field', 'path');
    await rejects(pkg.openMemory({ storage: 'file', path: '' }), 'invalid_value', 'path');
    await rejects(pkg.openMemory({ storage: 'file', path: 42 }), 'invalid_value', 'path');
    await rejects(pkg.openMemory({ storage: 'file', path: 'a\0b' }), 'invalid_value', 'path');
    await rejects(pkg.openMemory({ storage: 'file', path: join(root, 'x'), name: 'x' }), 'invalid_value', 'name');
    await rejects(pkg.openMemory({ storage: 'file', path: join(root, 'x'), url: 'https://example.com' }), 'invalid_value', 'url');
    await rejects(pkg.openMemory({ path: join(root, 'x') }), 'invalid_value', 'path');
    await rejects(pkg.openMemory({ storage: 'opfs', path: join(root, 'x') }), 'invalid_value', 'path');
    await rejects(pkg.openMemory({ storage: 'file', path: join(root, 'x'), key: 7 }), 'invalid_value', 'key');
    await rejects(pkg.openMemory({ storage: 'file', path: join(root, 'no such directory', 'x') }), 'storage', 'path');
    assert.deepEqual(await readdir(root), [], 'a refused open makes no file');
  });

  it('survives its process ending without close(), and opens from a relative path', async () => {
    const dir = await fresh();
    const path = join(dir, 'restart.sqlite3');
    const c = child('store', path, '25');
    assert.deepEqual(await c.exited, { code: 0, signal: null });
    assert.equal(c.lines.length, 25);
    // the child left its log and its lock (its process is gone: the lock is taken over)
    assert.deepEqual((await readdir(dir)).sort(), ['restart.sqlite3', 'restart.sqlite3-lock', 'restart.sqlite3-wal']);
    const cwd = process.cwd();
    process.chdir(dir);
    let memory;
    try {
      memory = await pkg.openMemory({ storage: 'file', path: 'restart.sqlite3' });
    } finally {
      process.chdir(cwd);
    }
    assert.equal(memory.storage, 'file');
    assert.equal(memory.name, path);
    assert.deepEqual(await memory.check(), { ok: true, problems: [] });
    const listed = await memory.listMemories({ agent_id: 'child', limit: 100 });
    assert.deepEqual(listed.memories.map((m) => m.content).reverse(), Array.from({ length: 25 }, (_, k) => `from the child ${k}`));
    await memory.close();
    assert.deepEqual(await readdir(dir), ['restart.sqlite3'], 'close() checkpoints, removes the log and lets go of the lock');
  });

  it('lets one opener at a time have a file: in this process, in another, and takes over the lock of a killed one', async () => {
    const path = join(await fresh(), 'held.sqlite3');
    const memory = await pkg.openMemory({ storage: 'file', path });
    await memory.store({ agent_id: 'a', content: 'held here' });
    await rejects(pkg.openMemory({ storage: 'file', path }), 'already_open', 'path');
    const other = child('hold', path);
    const refused = await other.until(() => true);
    assert.equal(refused.error?.code, 'already_open', JSON.stringify(refused));
    assert.equal(refused.error.field, 'path');
    assert.match(refused.error.message, new RegExp(`process ${process.pid}`));
    await other.exited;
    await memory.close();

    const holder = child('hold', path);
    assert.deepEqual(await holder.until(() => true), { opened: true });
    await rejects(pkg.openMemory({ storage: 'file', path }), 'already_open', 'path');
    await holder.kill();
    const after = await pkg.openMemory({ storage: 'file', path });
    assert.equal((await after.listMemories({ agent_id: 'a' })).total, 1);
    await after.close();
  });

  it('with a key, writes no stored text to disk, and opens only with the key', async () => {
    const dir = await fresh();
    const path = join(dir, 'secret.sqlite3');
    const key = 'file passphrase';
    const memory = await pkg.openMemory({ storage: 'file', path, key });
    await memory.store({ agent_id: 'a', content: `${MARKER} kept in the file`, associations: { entities: [{ name: 'Kaito Mori' }] } });
    await memory.agent('a').storeMany(Array.from({ length: 50 }, (_, i) => ({ content: `${MARKER} batched ${i}` })));
    for (const text of [MARKER, 'Kaito Mori', 'SQLite format 3']) assert.ok(!(await allBytes(dir)).includes(text), `${text} on disk while open`);
    await memory.close();
    assert.ok(!(await allBytes(dir)).includes(MARKER), 'on disk after close');
    await rejects(pkg.openMemory({ storage: 'file', path }), 'encrypted', undefined);
    await rejects(pkg.openMemory({ storage: 'file', path, key: new Uint8Array(32) }), 'wrong_key', undefined);
    const again = await pkg.openMemory({ storage: 'file', path, key });
    assert.equal((await again.listMemories({ agent_id: 'a', limit: 1 })).total, 51);
    await again.close();
    // the same writes without a key are on disk as written: the check above can fail
    const plainDir = await fresh();
    const plain = await pkg.openMemory({ storage: 'file', path: join(plainDir, 'plain.sqlite3') });
    await plain.store({ agent_id: 'a', content: `${MARKER} kept in the file` });
    assert.ok((await allBytes(plainDir)).includes(MARKER));
    await plain.close();
  });

  /**
   * Runs crash trials, each in a fresh directory, and checks what a crash must not do; the
   * number of them that killed a batch midway.
   */
  const crashTrials = async (trials) => {
    let midway = 0;
    for (const trial of trials) {
      const found = await crashTrial(pkg, await fresh(), trial);
      const what = JSON.stringify({ trial, ...found, batches: undefined });
      assert.deepEqual(found.integrity, { ok: true, problems: [] }, what);
      assert.deepEqual(found.lost, [], `acknowledged single stores lost: ${what}`);
      assert.ok(!found.halfSingles, `a single store half there: ${what}`);
      assert.deepEqual(found.half, [], `a batch half there: ${what}`);
      assert.deepEqual(found.lostBatches, [], `an acknowledged batch lost: ${what}`);
      assert.ok(found.acked >= 20, what);
      if (found.midway) {
        midway++;
        const killed = found.batches.find((b) => b.batch === trial.batch);
        assert.deepEqual([killed.acknowledged, killed.stored], [false, 0], `the batch killed midway is not there: ${what}`);
      }
    }
    return midway;
  };

  it('crash trials: killed mid-batch or at random, every acknowledged write is kept, no batch is half there, check() is clean', { timeout: 180_000 }, async () => {
    const midway = await crashTrials([
      { batch: 0, fraction: 0.2 }, { batch: 0, fraction: 0.6 }, { batch: 1, fraction: 0.4 },
      { afterMs: 900 }, { afterMs: 1600 }, { batch: 1, fraction: 0.3, key: 'crash passphrase' },
    ]);
    assert.ok(midway >= 2, `${midway} trials killed a batch midway`);
  });

  it('crash trials in Bun and Deno (the child in each, reopened here in Node), plain and encrypted', { timeout: 120_000 }, async () => {
    // file-child.mjs finds the package through pack.mjs, which reads WWW_TEST_DIR
    const commands = { bun: RUNTIMES.bun, deno: deno([...DENO_ALLOW, '--allow-env=WWW_TEST_DIR']) };
    for (const [name, command] of Object.entries(commands)) {
      const midway = await crashTrials([{ batch: 0, fraction: 0.4, command }, { batch: 1, fraction: 0.3, key: 'crash passphrase', command }]);
      assert.ok(midway >= 1, `${name}: ${midway} trials killed a batch midway`);
    }
  });

  it('keeps every acknowledged write when the engine traps, and opens again on a new engine', async () => {
    const path = join(await fresh(), 'trap.sqlite3');
    const memory = await pkg.openMemory({ storage: 'file', path });
    const bot = memory.agent('trap');
    await bot.storeMany(Array.from({ length: 100 }, (_, i) => ({ content: `before the trap ${i}` })));
    // The instance grown to its 4 GiB limit (as package-crash.test.mjs does): the next large
    // copy into it cannot be allocated, and the engine aborts.
    const glue = await import(pathToFileURL(join(CONSUMER, 'node_modules/associative-memory/associative_memory_node.js')).href);
    const heap = (await glue.default()).memory;
    const before = heap.buffer.byteLength;
    for (let pages = 65536; pages >= 1; pages = Math.floor(pages / 2)) {
      for (;;) {
        try { heap.grow(pages); } catch { break; }
      }
    }
    await assert.rejects(bot.store({ content: 'x'.repeat(before + 2 ** 20) }), (e) => e.code === 'engine_crashed');
    await assert.rejects(bot.recall({ query: 'trap' }), (e) => e.code === 'engine_crashed');
    await rejects(pkg.openMemory({ storage: 'file', path }), 'already_open', 'path');
    await memory.close();
    const again = await pkg.openMemory({ storage: 'file', path });
    assert.deepEqual(await again.check(), { ok: true, problems: [] });
    assert.equal((await again.agent('trap').listMemories({ limit: 1 })).total, 100);
    await again.close();
  });
});
