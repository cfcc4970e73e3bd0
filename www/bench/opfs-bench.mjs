#!/usr/bin/env node
// OPFS writes in Chromium through the installed package (www/test/pack.mjs), in one
// sitting: the bench_1000.json replay into storage 'opfs' (as package-bench.mjs, with the
// OPFS worker's FileSystemSyncAccessHandle.flush() calls counted), 200 stores one at a
// time, 200 stores 16 in flight (group commit), and a store from a second tab (through the
// holder's worker) next to one from the holder, alternating; then storeMany of 10,000
// memories with associations into 'opfs' and into 'memory'. Prints markdown; --json FILE
// saves everything. --consumer DIR runs another installed package (a baseline build);
// --sections replay,stores,tabs,batch picks what runs (default all).
//
//   make build && node www/test/pack.mjs && node www/bench/opfs-bench.mjs

import { copyFileSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';
import { chromium } from 'playwright-core';
import { CONSUMER } from '../test/pack.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const argv = process.argv.slice(2);
const arg = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : null);
const consumer = arg('--consumer') ?? CONSUMER;
const APP = join(consumer, 'opfs-bench');
const rounds = Number(arg('--rounds') ?? 1);

mkdirSync(join(APP, 'public'), { recursive: true });
cpSync(fileURLToPath(new URL('./opfs-app/', import.meta.url)), APP, { recursive: true });
copyFileSync(fileURLToPath(new URL('./replay.mjs', import.meta.url)), join(APP, 'replay.mjs'));
copyFileSync(join(ROOT, '../shared/conformance/bench/bench_1000.json'), join(APP, 'public/workload.json'));
await build({ root: APP, logLevel: 'warn', build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' } });
const server = await preview({ root: APP, logLevel: 'warn', preview: { port: 0, host: '127.0.0.1' } });
const url = server.resolvedUrls.local[0];
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
/**
 * 'profile': a browser with a user data directory, as people use it: OPFS files are files on
 * disk, a SyncAccessHandle write is a write(2) and flush() an fsync. 'incognito': Playwright's
 * default context (package-bench.mjs's), off the record: OPFS is held in memory by the
 * browser process, and every read and write of a SyncAccessHandle is an IPC to it.
 */
async function contextOf(kind) {
  if (kind === 'incognito') return browser.newContext();
  const dir = join(consumer, `opfs-profile-${process.pid}-${Date.now()}`);
  return chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
const kinds = (arg('--contexts') ?? 'profile,incognito').split(',');
const sections = new Set((arg('--sections') ?? 'replay,stores,tabs,batch').split(','));

/** Counts and times every flush() of the page's workers (patched as each starts). */
function countFlushes(page) {
  const workers = [];
  page.on('worker', (w) => {
    workers.push(w);
    w.evaluate(() => {
      const proto = FileSystemSyncAccessHandle.prototype;
      self.io = {};
      for (const name of ['flush', 'write', 'read', 'truncate', 'getSize']) {
        const method = proto[name];
        const c = self.io[name] = { n: 0, ms: 0 };
        proto[name] = function counted(...args) {
          const t = performance.now();
          try { return method.apply(this, args); } finally { c.n++; c.ms += performance.now() - t; }
        };
      }
      self.flushes = self.io.flush;
    }).catch(() => {});
  });
  return async () => {
    let n = 0; let ms = 0; const io = {};
    for (const w of workers) {
      try {
        const all = await w.evaluate(() => self.io);
        n += all?.flush.n ?? 0; ms += all?.flush.ms ?? 0;
        for (const [k, v] of Object.entries(all ?? {})) { io[k] ??= { n: 0, ms: 0 }; io[k].n += v.n; io[k].ms += v.ms; }
      } catch { /* ended */ }
    }
    return { n, ms, io };
  };
}

async function newPage(context) {
  const page = await context.newPage();
  const flushes = countFlushes(page);
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 60000 });
  return { page, flushes };
}

const stats = (times) => {
  const s = [...times].sort((a, b) => a - b);
  return { n: s.length, mean_ms: s.reduce((a, b) => a + b, 0) / s.length, p50_ms: s[Math.floor(s.length / 2)], p95_ms: s[Math.ceil(s.length * 0.95) - 1] };
};

const results = { rounds: [] };
for (let round = 0; round < rounds; round++) for (const kind of kinds) {
  const r = { context: kind };
  const context = await contextOf(kind);
  // 1. The bench_1000 replay, as package-bench.mjs runs it.
  if (sections.has('replay')) {
    const { page, flushes } = await newPage(context);
    r.replay = await page.evaluate(async () => {
      const clock = window.workloadClock(window.workload);
      const memory = await window.pkg.openMemory({ storage: 'opfs', name: `replay-${Date.now()}`, clock: () => clock.now() });
      const run = await window.replay((tool, args) => memory.call(tool, args), window.workload, clock);
      window.memory = memory;
      return run;
    });
    const f = await flushes();
    r.replay_io = f.io;
    const writes = ['store', 'episode', 'declare', 'retract'].reduce((n, k) => n + (r.replay.ops[k]?.n ?? 0), 0);
    r.replay.flushes = { ...f, writes, per_write: f.n / writes };
    await page.evaluate(() => window.memory.close());
    await page.close();
  }
  // 2. 200 stores with associations, one at a time, then 16 in flight.
  if (sections.has('stores')) {
    const { page, flushes } = await newPage(context);
    const before = await flushes();
    Object.assign(r, await page.evaluate(async () => {
      const memory = await window.pkg.openMemory({ storage: 'opfs', name: `stores-${Date.now()}` });
      const bot = memory.agent('bench');
      const store = (k) => bot.store({ content: `store ${k} about E${k}a and E${k}b`, associations: { entities: [{ name: `E${k}a` }, { name: `E${k}b` }], relations: [{ subject: `E${k}a`, predicate: 'links', object: `E${k}b` }] } });
      for (let k = 0; k < 20; k++) await store(k); // warm-up
      const sequential = [];
      for (let k = 0; k < 200; k++) { const t = performance.now(); await store(1000 + k); sequential.push(performance.now() - t); }
      const t0 = performance.now();
      const inflight = new Set();
      for (let k = 0; k < 200; k++) {
        const p = store(2000 + k).finally(() => inflight.delete(p));
        inflight.add(p);
        if (inflight.size >= 16) await Promise.race(inflight);
      }
      await Promise.all(inflight);
      const concurrent_ms_per_store = (performance.now() - t0) / 200;
      window.memory = memory;
      return { sequential, concurrent_ms_per_store };
    }));
    r.sequential = stats(r.sequential);
    const after = await flushes();
    r.stores_flushes = { n: after.n - before.n, ms: after.ms - before.ms };
    r.stores_io = after.io; // 420 stores, and the open
    await page.evaluate(() => window.memory.close());
    await page.close();
  }
  // 3. Two tabs: stores from the holder and from a second tab, alternating blocks of 20.
  if (sections.has('tabs')) {
    const name = `tabs-${Date.now()}`;
    const { page: holder } = await newPage(context);
    const { page: second } = await newPage(context);
    const open = (p) => p.evaluate(async (name) => {
      try { window.memory = await window.pkg.openMemory({ storage: 'opfs', name }); return null; } catch (e) { return e.code; }
    }, name);
    await open(holder);
    const refused = await open(second); // a build before tab sharing: already_open
    if (refused) {
      r.tabs = { refused };
      await holder.evaluate(() => window.memory.close());
      await holder.close(); await second.close(); await context.close();
      results.rounds.push(r);
      console.log(`round ${round + 1}, ${kind}: replay store mean ${r.replay.ops.store.mean_ms.toFixed(2)} ms (p95 ${r.replay.ops.store.p95_ms.toFixed(2)}); 200 stores one at a time: mean ${r.sequential.mean_ms.toFixed(2)} p50 ${r.sequential.p50_ms.toFixed(2)} p95 ${r.sequential.p95_ms.toFixed(2)}; 16 in flight: ${r.concurrent_ms_per_store.toFixed(2)} ms/store; ${r.stores_flushes.n} flushes; second tab: ${refused}`);
      continue;
    }
    const run = (p, from) => p.evaluate(async (from) => {
      const bot = window.memory.agent('bench');
      const times = [];
      for (let k = from; k < from + 20; k++) {
        const t = performance.now();
        await bot.store({ content: `store ${k}`, associations: { entities: [{ name: `T${k}a` }, { name: `T${k}b` }] } });
        times.push(performance.now() - t);
      }
      return times;
    }, from);
    const times = { holder: [], second: [] };
    await run(holder, 0); await run(second, 100); // warm-up
    for (let b = 0; b < 10; b++) {
      times.holder.push(...await run(holder, 1000 + b * 20));
      times.second.push(...await run(second, 5000 + b * 20));
    }
    r.tabs = { holder: stats(times.holder), second: stats(times.second) };
    r.tabs.ratio = r.tabs.second.mean_ms / r.tabs.holder.mean_ms;
    await second.evaluate(() => window.memory.close());
    await holder.evaluate(() => window.memory.close());
    await holder.close(); await second.close();
  }
  // 4. storeMany: 10,000 memories with two entities and a relation each, in one call, into
  // 'opfs' and into 'memory' (the page's own thread), with progress reported.
  if (sections.has('batch')) {
    const { page } = await newPage(context);
    r.batch = await page.evaluate(async () => {
      const items = Array.from({ length: 10_000 }, (_, k) => ({
        content: `batch memory ${k} about B${k}a and B${k}b`,
        associations: { entities: [{ name: `B${k}a` }, { name: `B${k}b` }], relations: [{ subject: `B${k}a`, predicate: 'links', object: `B${k}b` }] },
      }));
      const out = {};
      for (const storage of ['opfs', 'memory']) {
        const memory = await window.pkg.openMemory({ storage, name: `batch-${Date.now()}` });
        const reports = [];
        const t = performance.now();
        const stored = await memory.agent('bench').storeMany(items, { onProgress: () => reports.push(performance.now() - t) });
        const ms = performance.now() - t;
        const gaps = reports.map((at, i) => at - (i ? reports[i - 1] : 0));
        // first report: the items sent to the engine and checked; after the last: the commit
        out[storage] = { n: stored.items.length, s: ms / 1000, progress_reports: reports.length, first_report_ms: reports[0], longest_gap_ms: Math.max(...gaps), commit_ms: ms - reports.at(-1) };
        await memory.close();
      }
      return out;
    });
    await page.close();
  }
  await context.close();
  results.rounds.push(r);
  const f = (x, d = 2) => (x === undefined ? '—' : x.toFixed(d));
  if (r.batch) {
    for (const [storage, b] of Object.entries(r.batch)) {
      console.log(`round ${round + 1}, ${kind}: storeMany of ${b.n} into '${storage}': ${f(b.s)} s, ${b.progress_reports} progress reports (the first after ${f(b.first_report_ms, 0)} ms, longest gap ${f(b.longest_gap_ms, 0)} ms), then the commit ${f(b.commit_ms, 0)} ms`);
    }
  }
  if (!r.replay || !r.sequential || !r.tabs) continue;
  console.log(`round ${round + 1}, ${kind}: replay store mean ${f(r.replay.ops.store.mean_ms)} ms (p95 ${f(r.replay.ops.store.p95_ms)}), traverse ${f(r.replay.ops.traverse?.mean_ms)}, reconstruct ${f(r.replay.ops.reconstruct?.mean_ms)}; ` +
    `flush() per write ${f(r.replay.flushes.per_write)} (${f(r.replay.flushes.ms / Math.max(r.replay.flushes.n, 1))} ms each); ` +
    `200 stores one at a time: mean ${f(r.sequential.mean_ms)} p50 ${f(r.sequential.p50_ms)} p95 ${f(r.sequential.p95_ms)}; 16 in flight: ${f(r.concurrent_ms_per_store)} ms/store; ` +
    `${r.stores_flushes.n} flushes (${f(r.stores_flushes.ms / Math.max(r.stores_flushes.n, 1))} ms each), ${r.stores_io.write?.n} writes (${f(r.stores_io.write?.ms / Math.max(r.stores_io.write?.n, 1), 3)} ms each) over those 420 stores; tabs: holder ${f(r.tabs.holder.mean_ms)} second ${f(r.tabs.second.mean_ms)} (${f(r.tabs.ratio)}×)`);
}
await browser.close();
await server.close();
const out = arg('--json');
if (out) writeFileSync(out, JSON.stringify(results, null, 1));
