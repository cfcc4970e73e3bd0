#!/usr/bin/env node
// Browser-kill trials: a browser with a profile on disk streams stores into an OPFS memory
// (two entities and a relation each, four in flight) through the installed package; after
// the n-th acknowledgement this script SIGKILLs the Chromium it launched (its own child
// process, found by parent pid), relaunches it on the same profile and checks the memory:
// integrity_check, every acknowledged store present, none half there. BENCHMARKS.md,
// "Crash trials". Not part of `make test`.
//
//   make build && node www/test/pack.mjs && node www/bench/browser-kill-bench.mjs [trials, default 10]

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { build, preview as previewApp } from 'vite';
import { CONSUMER } from '../test/pack.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/harness.mjs';
const root = join(CONSUMER, 'driver');
await build({ root, logLevel: 'warn', build: { outDir: 'dist', emptyOutDir: true } });
const server = await previewApp({ root, logLevel: 'warn', preview: { port: 0, host: '127.0.0.1' } });
const url = server.resolvedUrls.local[0];
const trials = Number(process.argv[2] ?? 10);
const tally = { trials: 0, ok: 0, acked: 0, lost: 0, half: 0 };
for (let t = 0; t < trials; t++) {
  const dir = join(root, `../profile-kill-${process.pid}-${t}`);
  const name = `kill-${t}`;
  let context = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const acked = new Map();
  let page = await context.newPage();
  await page.exposeFunction('acknowledged', (k, id) => { acked.set(k, id); });
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.state === 'ready');
  const after = 5 + ((t * 7) % 30);
  page.evaluate(async ({ name }) => {
    const memory = await window.pkg.openMemory({ storage: 'opfs', name });
    const bot = memory.agent('crash');
    const store = async (k) => { const r = await bot.store({ content: `store ${k}`, associations: { entities: [{ name: `E${k}a` }, { name: `E${k}b` }], relations: [{ subject: `E${k}a`, predicate: 'links', object: `E${k}b` }] } }); window.acknowledged(k, r.id); };
    const inflight = new Set();
    for (let k = 0; ; k++) { const p = store(k).catch(() => {}).finally(() => inflight.delete(p)); inflight.add(p); if (inflight.size >= 4) await Promise.race(inflight); }
  }, { name }).catch(() => {});
  while (acked.size < after) await new Promise((r) => setTimeout(r, 5));
  // SIGKILL the browser this script launched (a child of this process).
  const pids = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' }).trim().split('\n').map((l) => l.trim().split(/\s+/)).filter(([, c]) => /chrom/.test(c)).map(([p]) => Number(p));
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  await context.close().catch(() => {});
  context = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.state === 'ready');
  const found = await page.evaluate(async ({ name }) => {
    const memory = await window.pkg.openMemory({ storage: 'opfs', name });
    const integrity = await memory.check();
    const bot = memory.agent('crash');
    const ents = []; for (let offset = 0; offset != null;) { const r = await bot.listEntities({ limit: 500, offset }); ents.push(...r.entities); offset = r.next_offset; }
    const mems = [];
    for (let id = 1, empty = 0; empty < 3; id += 20) { const { items } = await bot.getContents({ refs: Array.from({ length: 20 }, (_, i) => `mem:${id + i}`) }); mems.push(...items.map((i) => [Number(i.ref.slice(4)), i.content])); empty = items.length ? 0 : empty + 1; }
    await memory.close();
    return { integrity, ents, mems };
  }, { name });
  await context.close();
  const memories = new Map(found.mems);
  const lost = [...acked].filter(([k, id]) => memories.get(id) !== `store ${k}`).length;
  const byName = new Map(found.ents.map((e) => [e.name, e]));
  let half = 0;
  for (const c of memories.values()) { const k = c.slice(6); if (![`E${k}a`, `E${k}b`].every((n) => byName.get(n)?.mentions === 1 && byName.get(n)?.relations === 1)) half++; }
  if (found.ents.length !== memories.size * 2) half++;
  tally.trials++; tally.acked += acked.size; tally.lost += lost; tally.half += half; tally.ok += found.integrity.ok ? 1 : 0;
  console.log(`trial ${t}: killed ${pids} after ${acked.size} acks; integrity ${found.integrity.ok}; present ${memories.size}; lost ${lost}; half ${half}`);
}
console.log(JSON.stringify(tally));
await server.close();
