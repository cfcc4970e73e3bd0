// Crash trials through the packed package in Chromium (crash.mjs): the OPFS worker is
// terminated, or its page closed, in the middle of a stream of stores; reopened, the memory
// must pass integrity_check, hold every acknowledged store, and no store may be half there;
// on a plain memory and on an encrypted one.
// A handful here; www/bench/crash-bench.mjs runs a hundred (BENCHMARKS.md).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startDriver, watch } from './harness.mjs';
import { crashTrial } from './crash.mjs';

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
    // What the durability contract rests on (README.md, "Durability"): WAL with
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
