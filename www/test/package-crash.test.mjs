// Crash trials through the packed package in Chromium (crash.mjs): the OPFS worker is
// terminated, or its page closed, in the middle of a stream of stores; reopened, the memory
// must pass integrity_check, hold every acknowledged store, and no store may be half there;
// on a plain memory and on an encrypted one.
// A handful here; www/bench/crash-bench.mjs runs a hundred (BENCHMARKS.md).
//
// And the engine itself trapping (`engine_crashed`), in Node with storage 'memory' and in
// Chromium with 'opfs': the test grows the instance's WebAssembly.Memory to its 4 GiB limit,
// so that the next call's copy of a string larger than the heap held before cannot be
// allocated, and the engine aborts (`RuntimeError: unreachable`), as any allocation failure
// or panic would. No code of the engine or the package helps: in Node the test reaches the
// instance through the package's own glue module; in Chromium the package's worker script is
// served with a prologue that records the instance it makes.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startDriver, watch } from './harness.mjs';
import { crashTrial, driverPage } from './crash.mjs';
import { CONSUMER, importPackage } from './pack.mjs';

/**
 * Grows `memory` (a WebAssembly.Memory) as far as it goes, its 4 GiB limit; returns its size
 * before. A string longer than that then fits in no free block of the engine's heap, and
 * the heap cannot grow: copying it into the engine aborts. (A function without closures: it
 * also runs in a browser worker.)
 */
function exhaust(memory) {
  const before = memory.buffer.byteLength;
  for (let pages = 65536; pages >= 1; pages = Math.floor(pages / 2)) {
    for (;;) {
      try { memory.grow(pages); } catch { break; }
    }
  }
  return before;
}

/** Awaits `promise` and returns the AssociativeMemoryError it rejects with, checking its code. */
async function rejection(promise, code) {
  let error;
  await assert.rejects(promise, (err) => { error = err; return true; });
  assert.equal(error?.name, 'AssociativeMemoryError', `${error?.name}: ${error?.message}`);
  assert.equal(error.code, code, error.message);
  return error;
}

describe("the engine trapping, storage 'memory' in Node", () => {
  it("rejects the call and every later one of the realm's memories with engine_crashed; a memory opened after gets a new engine", async () => {
    const pkg = await importPackage();
    // The glue the package's Node entry loads, by its path: the same module, so the same
    // instance (its default export returns the instance's exports once loaded).
    const glue = await import(pathToFileURL(join(CONSUMER, 'node_modules/associative-memory/associative_memory_node.js')).href);
    const a = await pkg.openMemory();
    const b = await pkg.openMemory();
    const bot = a.agent('crash');
    await bot.store({ content: 'stored before the crash' });
    await b.agent('other').store({ content: 'the other memory of this realm' });
    const dead = (await glue.default()).memory;
    const heap = exhaust(dead);
    assert.ok(dead.buffer.byteLength > 2 ** 31, `grown to ${dead.buffer.byteLength} bytes only`);

    const crash = await rejection(bot.store({ content: 'x'.repeat(heap + 2 ** 20) }), 'engine_crashed');
    assert.match(crash.message, /engine stopped during this call \(RuntimeError: unreachable/);
    assert.match(crash.message, /all 2 memories with storage 'memory' open in this realm/);
    assert.ok(crash.cause instanceof WebAssembly.RuntimeError);
    // Every later call of either memory, without a call into the dead instance (which would
    // fail with wasm-bindgen's "recursive use of an object detected" or worse).
    for (const call of [
      () => bot.recall({ query: 'stored' }), () => bot.store({ content: 'after' }), () => a.export(), () => a.check(),
      () => a.storeMany({ agent_id: 'crash', items: [{ content: 'many' }] }), () => a.rekey('k'),
      () => b.agent('other').recall({ query: 'other' }), () => b.import(new Uint8Array(8)),
    ]) {
      const later = await rejection(call(), 'engine_crashed');
      assert.match(later.message, /engine stopped earlier, during a store call/);
    }

    // A memory opened now runs in a new instance, and works.
    const c = await pkg.openMemory();
    const fresh = (await glue.default()).memory;
    assert.notEqual(fresh, dead);
    assert.ok(fresh.buffer.byteLength < 2 ** 30);
    const { id } = await c.agent('crash').store({ content: 'stored after the crash' });
    assert.deepEqual((await c.agent('crash').recall({ query: 'stored' })).messages.map((m) => m.ref), [`mem:${id}`]);
    assert.deepEqual(await c.check(), { ok: true, problems: [] });
    // The crashed memories stay crashed, and close.
    await rejection(bot.recall({ query: 'stored' }), 'engine_crashed');
    await rejection(b.agent('other').recall({ query: 'other' }), 'engine_crashed');
    await a.close();
    await b.close();
    await rejection(bot.recall({ query: 'stored' }), 'closed');
    await c.close();
  });

  it('refuses a call made from within onProgress without taking the engine for crashed', async () => {
    const pkg = await importPackage();
    const m = await pkg.openMemory();
    let inner;
    // Called from inside the engine, while storeMany holds the memory: wasm-bindgen refuses
    // the call ("recursive use of an object"), which here is no trap.
    await m.storeMany({ agent_id: 'r', items: [{ content: 'one' }, { content: 'two' }] }, {
      onProgress: () => { inner ??= m.agent('r').recall({ query: 'one' }).then(() => 'resolved', (e) => e); },
    });
    const refused = await inner;
    assert.ok(refused instanceof Error, String(refused));
    assert.notEqual(refused.code, 'engine_crashed', refused.message);
    assert.equal((await m.agent('r').recall({ query: 'one' })).messages.length, 1);
    await m.close();
  });
});

describe('crash trials on an OPFS memory', () => {
  let driver;
  let context;
  let url;
  const problems = [];

  before(async () => {
    driver = await startDriver(problems);
    ({ url, context } = driver);
  });

  after(async () => {
    await driver?.close();
  });

  it('commits a store without a flush(), and flushes at the checkpoint that follows writes', async () => {
    // What the durability contract rests on (www/README.md, "Durability"): WAL with
    // synchronous = NORMAL. A rollback journal, or a sync per commit, flushes on every store.
    const page = await context.newPage();
    watch(page, problems);
    const started = page.waitForEvent('worker');
    await page.goto(url);
    await page.waitForFunction(() => document.body.dataset.state === 'ready');
    await page.evaluate(async () => { window.memory = await window.pkg.openMemory({ storage: 'opfs', name: `flushes-${Date.now()}` }); });
    const worker = await started;
    await worker.evaluate(() => {
      const proto = FileSystemSyncAccessHandle.prototype;
      const flush = proto.flush;
      self.flushes = 0;
      proto.flush = function counted() { self.flushes++; return flush.call(this); };
    });
    const stores = (n) => page.evaluate(async (n) => {
      const bot = window.memory.agent('a');
      for (let k = 0; k < n; k++) await bot.store({ content: `store ${k}`, associations: { entities: [{ name: `E${k}` }] } });
    }, n);
    const checkpointed = () => worker.evaluate(() => new Promise((resolve) => {
      const t = setInterval(() => { if (self.flushes > 0) { clearInterval(t); resolve(); } }, 20);
    }));
    // The first write creates the -wal file (the pool flushes its slot header); the
    // checkpoint after it flushes.
    await stores(1);
    await checkpointed();
    await worker.evaluate(() => { self.flushes = 0; });
    await stores(10);
    // The first of these stores restarts the log after the checkpoint (SQLite syncs the new
    // header: one flush); the next checkpoint comes about a second later, and a slow run may
    // reach it (two more: the log, then the database). A flush per commit would be ten.
    const n = await worker.evaluate(() => self.flushes);
    assert.ok(n <= 3, `${n} flushes over ten stores`);
    await checkpointed();
    await page.evaluate(() => window.memory.close());
    await page.close();
    assert.deepEqual(problems, []);
  });

  it("restarts the OPFS worker whose engine traps: the call rejects with engine_crashed, acknowledged writes stay, both tabs go on", async () => {
    const name = `engine-crash-${Date.now()}`;
    const [a, b] = [await driverPage(context, url, (p) => watch(p, problems)), await driverPage(context, url, (p) => watch(p, problems))];
    // Page a's workers record the instance the package's worker makes (self.engine): the
    // worker's script is served with a prologue that wraps WebAssembly's instantiate calls.
    await a.route(/\/assets\/worker-[^/]*\.js$/, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, body: `for (const name of ['instantiate', 'instantiateStreaming']) {
        const f = WebAssembly[name];
        WebAssembly[name] = async (...args) => { const r = await f.apply(WebAssembly, args); self.engine = r.instance ?? r; return r; };
      }\n${await response.text()}` });
    });
    const open = (p) => p.evaluate(async (name) => { window.memory = await window.pkg.openMemory({ storage: 'opfs', name }); }, name);
    const store = (p, content) => p.evaluate((content) => window.memory.agent('crash').store({ content }).then((r) => r.id), content);
    const outcome = (p, call) => p.evaluate(async (call) => {
      try { return { value: await new Function('bot', `return ${call}`)(window.memory.agent('crash')) }; } catch (e) { return { name: e.name, code: e.code, message: e.message }; }
    }, call);
    const contents = (p, ids) => p.evaluate((refs) => window.memory.agent('crash').getContents({ refs }).then((r) => r.items.map((i) => i.content)), ids.map((id) => `mem:${id}`));
    /** Traps the engine of a's current worker with a call from page `p`; returns its outcome and a's next worker (a promise). */
    const trap = async (worker, p) => {
      // No checkpoint may be pending (one runs a second after writes), or it would trap first.
      await new Promise((r) => { setTimeout(r, 1500); });
      const heap = await worker.evaluate(`(${exhaust})(self.engine.exports.memory)`);
      const grown = await worker.evaluate(() => self.engine.exports.memory.buffer.byteLength);
      assert.ok(grown > 2 ** 31, `grown to ${grown} bytes only`);
      const next = a.waitForEvent('worker');
      const r = await outcome(p, `bot.store({ content: 'x'.repeat(${heap + 2 ** 20}) })`);
      next.catch(() => {});
      return { r, next };
    };

    let worker = a.waitForEvent('worker');
    await open(a);
    worker = await worker;
    await open(b);
    const acked = [await store(a, 'acknowledged before the crash'), await store(b, 'acknowledged from the second tab')];

    // The engine traps on a call of the holding tab.
    let { r, next } = await trap(worker, a);
    assert.equal(r.code, 'engine_crashed', JSON.stringify(r));
    next = await next;
    assert.match(r.message, /stopped during this call \(RuntimeError: unreachable/);
    assert.match(r.message, /every write acknowledged before it is on disk/);
    // The calls after it go to the new worker, which reopened the memory from its file.
    assert.deepEqual(await contents(a, acked), ['acknowledged before the crash', 'acknowledged from the second tab']);
    assert.ok((await outcome(a, `bot.recall({ query: 'acknowledged' })`)).value.messages.length === 2);
    acked.push(await store(a, 'after the first crash'));
    assert.deepEqual(await contents(b, acked), ['acknowledged before the crash', 'acknowledged from the second tab', 'after the first crash']);
    acked.push(await store(b, 'from the second tab after it'));

    // The engine traps on a call of the second tab, run by the holding tab's worker.
    const first = next;
    ({ r, next } = await trap(next, b));
    assert.equal(r.code, 'engine_crashed', JSON.stringify(r));
    assert.match(r.message, /stopped during this call \(RuntimeError: unreachable/);
    assert.notEqual(await next, first);
    acked.push(await store(b, 'after the second crash'), await store(a, 'and from the first tab'));
    const all = ['acknowledged before the crash', 'acknowledged from the second tab', 'after the first crash', 'from the second tab after it', 'after the second crash', 'and from the first tab'];
    assert.deepEqual(await contents(a, acked), all);
    assert.deepEqual(await contents(b, acked), all);
    assert.deepEqual((await outcome(b, 'bot.memory.check()')).value, { ok: true, problems: [] });
    await b.evaluate(() => window.memory.close());
    await a.evaluate(() => window.memory.close());
    await a.close();
    await b.close();
    assert.deepEqual(problems, []);
  });

  for (const [mode, afters, key] of [['terminate', [5, 17, 31]], ['close', [9, 23]], ['terminate', [11, 27], 'crash passphrase'], ['close', [13], 'crash passphrase']]) {
    it(`keeps every acknowledged store whole when the worker is ${mode === 'terminate' ? 'terminated' : 'ended by closing its page'} mid-stream${key ? ', encrypted' : ''}`, async () => {
      for (const after of afters) {
        const r = await crashTrial(context, url, { mode, name: `crash-${mode}-${after}-${Date.now()}`, after, key, watch: (p) => watch(p, problems) });
        assert.deepEqual(r.integrity, { ok: true, problems: [] }, JSON.stringify(r));
        assert.ok(r.acked >= after, JSON.stringify(r));
        assert.deepEqual(r.lost, [], `acknowledged stores lost: ${JSON.stringify(r)}`);
        assert.deepEqual(r.half, [], `half-applied stores: ${JSON.stringify(r)}`);
        assert.ok(r.present >= r.acked, JSON.stringify(r));
      }
      assert.deepEqual(problems, []);
    });
  }
});
