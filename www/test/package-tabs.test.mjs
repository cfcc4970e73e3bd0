// Every tab: the packed package in Chromium (a Vite build of consumer/driver), with two and
// three pages opening the same OPFS memory. One holds it (its worker), the others' calls go
// to that worker; the holder's page is closed, or its memory closed, in the middle of the
// others' streams of stores, and another page takes over. Every call must settle — resolve,
// or reject with `worker_crashed` when the holder died with it in hand — and every
// acknowledged store must be in the memory afterwards. No page may log an error.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { driverSuite } from './harness.mjs';

describe('one OPFS memory used from several tabs', () => {
  const { page, problems } = driverSuite();

  const open = (p, name) => p.evaluate(async (name) => { window.memory = await window.pkg.openMemory({ storage: 'opfs', name }); }, name);

  /**
   * Starts, in page `p`, a stream of `n` stores tagged `tag` (`inflight` at a time); returns
   * a function that waits for its outcomes: [{k, id}] or [{k, code, message}] per store, or
   * the string 'pending' for a store that did not settle within 20 s.
   */
  async function stream(p, tag, n, inflight = 3) {
    await p.evaluate(({ tag, n, inflight }) => {
      const bot = window.memory.agent('tabs');
      window.streams ??= {};
      window.streams[tag] = { acked: 0 };
      const outcomes = [];
      const run = async (k) => {
        try {
          const { id } = await bot.store({ content: `${tag} ${k}`, associations: { entities: [{ name: `${tag}-${k}` }] } });
          outcomes[k] = { k, id };
          window.streams[tag].acked++;
        } catch (e) { outcomes[k] = { k, code: e.code, message: e.message }; }
      };
      window.streams[tag].done = (async () => {
        const pending = new Set();
        for (let k = 0; k < n; k++) {
          const q = run(k).finally(() => pending.delete(q));
          pending.add(q);
          if (pending.size >= inflight) await Promise.race(pending);
        }
        await Promise.race([Promise.all(pending), new Promise((r) => { setTimeout(r, 20000); })]);
        return Array.from({ length: n }, (_, k) => outcomes[k] ?? 'pending');
      })();
    }, { tag, n, inflight });
    return () => p.evaluate((tag) => window.streams[tag].done, tag);
  }
  const acked = (p, tag, n) => p.waitForFunction(({ tag, n }) => window.streams[tag].acked >= n, { tag, n }, { timeout: 20000 });

  /** Asserts that each outcome settled, and that every acknowledged store is in the memory (read from `p`). */
  async function verify(p, outcomes, { rejections }) {
    assert.ok(outcomes.every((o) => o !== 'pending'), `a call never settled: ${JSON.stringify(outcomes.filter((o) => o === 'pending').length)}`);
    const failed = outcomes.filter((o) => o.code);
    for (const o of failed) assert.equal(o.code, 'worker_crashed', JSON.stringify(o));
    if (!rejections) assert.deepEqual(failed, []);
    const ok = outcomes.filter((o) => o.id);
    const contents = await p.evaluate(async (ids) => {
      const bot = window.memory.agent('tabs');
      const found = {};
      for (let i = 0; i < ids.length; i += 20) {
        const { items } = await bot.getContents({ refs: ids.slice(i, i + 20).map((id) => `mem:${id}`) });
        for (const item of items) found[item.ref] = item.content;
      }
      return found;
    }, ok.map((o) => o.id));
    return { ok, failed, contents };
  }

  it('serves a second tab through the first, and hands over when the first tab is closed mid-stream', async () => {
    const name = `two-${Date.now()}`;
    const [a, b] = [await page(), await page()];
    await open(a, name);
    await open(b, name);
    // The second tab writes, the first reads it: one database.
    const { id } = await b.evaluate(() => window.memory.agent('tabs').store({ content: 'from the second tab' }));
    assert.deepEqual(await a.evaluate((id) => window.memory.agent('tabs').getContents({ refs: [`mem:${id}`] }).then((r) => r.items.map((i) => i.content)), id),
      ['from the second tab']);

    const outcomes = await stream(b, 'b', 60);
    await acked(b, 'b', 15);
    await a.close(); // the holder's tab goes, its worker with it
    const result = await verify(b, await outcomes(), { rejections: true });
    for (const { k, id } of result.ok) assert.equal(result.contents[`mem:${id}`], `b ${k}`);
    assert.ok(result.ok.length >= 57, `at most the in-flight writes may be lost to the crash: ${result.failed.length} failed`);
    // The second tab holds it now, and goes on.
    assert.deepEqual(await b.evaluate(async () => (await window.memory.check()).ok), true);
    await b.evaluate(() => window.memory.close());
    await b.close();
    assert.deepEqual(problems, []);
  });

  it('stores a batch with progress in the holder\'s worker and from a second tab; a malformed batch writes nothing', async () => {
    const name = `many-${Date.now()}`;
    const [a, b] = [await page(), await page()];
    await open(a, name);
    await open(b, name);
    const batch = (p, n, bad) => p.evaluate(async ({ n, bad }) => {
      const items = Array.from({ length: n }, (_, k) => ({
        content: `batch memory ${k} about the ledger`,
        associations: { entities: [{ name: `entity-${k % 50}` }] },
      }));
      if (bad !== undefined) items[bad] = { content: '   ' };
      const progress = [];
      try {
        const out = await window.memory.agent('many').storeMany(items, { onProgress: (p) => progress.push(p) });
        return { ids: out.items.map((i) => i.id), progress };
      } catch (e) {
        return { code: e.code, field: e.field, progress };
      }
    }, { n, bad });
    const count = (p) => p.evaluate(async () => (await window.memory.agent('many').listMemories({ limit: 1 })).total);

    for (const [p, n] of [[a, 3000], [b, 3000]]) {
      const before = await count(a);
      const { ids, progress } = await batch(p, n);
      assert.equal(ids.length, n);
      assert.deepEqual(progress.at(-1), { done: n, total: n });
      assert.ok(progress.length >= 2, `progress was reported as it went: ${JSON.stringify(progress)}`);
      for (let i = 1; i < progress.length; i++) assert.ok(progress[i].done > progress[i - 1].done);
      assert.equal(await count(a), before + n);
    }
    const before = await count(a);
    assert.deepEqual(await batch(b, 500, 437), { code: 'invalid_value', field: 'items[437].content', progress: [] });
    assert.equal(await count(a), before, 'nothing of the malformed batch was written');
    for (const p of [a, b]) {
      await p.evaluate(() => window.memory.close());
      await p.close();
    }
    assert.deepEqual(problems, []);
  });

  it('re-embeds an OPFS memory with another model from a second tab, through the holder\'s worker', async () => {
    const name = `reembed-${Date.now()}`;
    const [a, b] = [await page(), await page()];
    // Two fake models of one dimension: for the same text, vectors with nothing in common.
    const openWith = (p, model) => p.evaluate(async ({ name, model }) => {
      const embed = model === 'old' ? (texts) => texts.map((t) => [t.length, 1, 0, 0]) : (texts) => texts.map((t) => [0, 0, 1, t.length]);
      window.memory = await window.pkg.openMemory({ storage: 'opfs', name, embed: { model, embed } });
    }, { name, model });
    await openWith(a, 'old');
    await a.evaluate(() => window.memory.agent('r').storeMany(Array.from({ length: 150 }, (_, k) => ({ content: `note ${k}` }))));
    await openWith(b, 'new');
    const recall = (p) => p.evaluate(() => window.memory.agent('r').recall({ query: 'zzz' }));
    assert.equal((await recall(b)).model_skipped, 150, 'the new model\'s query compares none of the old vectors');
    const out = await b.evaluate(async () => {
      const progress = [];
      const result = await window.memory.reembed({ batchSize: 64, onProgress: (p) => progress.push(p) });
      return { result, progress };
    });
    assert.deepEqual(out, { result: { reembedded: 150 }, progress: [{ done: 64, total: 150 }, { done: 128, total: 150 }, { done: 150, total: 150 }] });
    const found = await recall(b);
    assert.equal(found.model_skipped, undefined);
    assert.ok(found.messages.length > 0 && found.messages.every((m) => m.match_reason.ranks.vector !== undefined));
    assert.equal((await recall(a)).model_skipped, 150, 'the holder, still on the old model, now compares none');
    for (const p of [a, b]) {
      await p.evaluate(() => window.memory.close());
      await p.close();
    }
    assert.deepEqual(problems, []);
  });

  it('with three tabs, survives the holder crashing and then the next one closing, losing nothing acknowledged', async () => {
    const name = `three-${Date.now()}`;
    const [a, b, c] = [await page(), await page(), await page()];
    for (const p of [a, b, c]) await open(p, name);
    const fromB = await stream(b, 'b', 80);
    const fromC = await stream(c, 'c', 80);
    await acked(b, 'b', 10);
    await a.close(); // crash of the holder: its tab is gone
    await acked(c, 'c', 40);
    await acked(b, 'b', 40);
    // B or C holds it now; the holder closes its memory (graceful): nothing of the other's may fail.
    const holder = (await b.evaluate(() => window.workers.length)) > 0 ? b : c;
    const other = holder === b ? c : b;
    const otherOutcomes = holder === b ? fromC : fromB;
    const holderOutcomes = holder === b ? fromB : fromC;
    const holderTag = holder === b ? 'b' : 'c';
    await holder.evaluate(async () => { await window.streams[Object.keys(window.streams)[0]].done; await window.memory.close(); });
    const other_ = await verify(other, await otherOutcomes(), { rejections: true });
    const beforeClose = await holderOutcomes();
    assert.ok(beforeClose.every((o) => o !== 'pending'), holderTag);
    for (const { k, id } of other_.ok) assert.equal(other_.contents[`mem:${id}`], `${holder === b ? 'c' : 'b'} ${k}`);
    // The remaining tab holds the memory alone now: the closing holder's acknowledged stores are there.
    const holderOk = beforeClose.filter((o) => o.id);
    const seen = await other.evaluate(async (ids) => {
      const bot = window.memory.agent('tabs');
      const found = [];
      for (let i = 0; i < ids.length; i += 20) found.push(...(await bot.getContents({ refs: ids.slice(i, i + 20).map((id) => `mem:${id}`) })).items.map((x) => x.content));
      return found;
    }, holderOk.map((o) => o.id));
    assert.deepEqual(seen, holderOk.map((o) => `${holderTag} ${o.k}`));
    assert.equal(await other.evaluate(async () => (await window.memory.check()).ok), true);
    await other.evaluate(() => window.memory.close());
    assert.deepEqual(problems, []);
  });

  it('sends the calls a closing holder did not take to the next holder: a graceful close fails nothing', async () => {
    const name = `graceful-${Date.now()}`;
    const [a, b] = [await page(), await page()];
    await open(a, name);
    await open(b, name);
    const outcomes = await stream(b, 'g', 60, 6);
    await acked(b, 'g', 10);
    await a.evaluate(() => window.memory.close());
    const result = await verify(b, await outcomes(), { rejections: false });
    assert.equal(result.ok.length, 60);
    for (const { k, id } of result.ok) assert.equal(result.contents[`mem:${id}`], `g ${k}`);
    await b.evaluate(() => window.memory.close());
    assert.deepEqual(problems, []);
  });
});
