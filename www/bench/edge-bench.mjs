#!/usr/bin/env node
// A memory hosted in a Durable Object against one in the isolate's memory, in workerd from
// npm with the objects' SQLite storage on disk (issue 37): the bench_1000 workload replayed
// both ways, interleaved, per-op means and the object ÷ memory ratio; then the cold open of an
// object holding 10,000 and 100,000 memories (workerd restarted: its first recall). Prints
// markdown.
//
//   make build && node www/test/pack.mjs && node www/bench/edge-bench.mjs [--rounds 3] [--sizes 10000,100000]

import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSUMER } from '../test/pack.mjs';
import { startWorkerd } from '../test/harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const argv = process.argv.slice(2);
const flag = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const rounds = Number(flag('--rounds', '3'));
const sizes = flag('--sizes', '10000,100000').split(',').map(Number);

const APP = join(CONSUMER, 'bench-edge');
mkdirSync(APP, { recursive: true });
copyFileSync(fileURLToPath(new URL('./app/edge-object.js', import.meta.url)), join(APP, 'worker.js'));
copyFileSync(fileURLToPath(new URL('./replay.mjs', import.meta.url)), join(APP, 'replay.mjs'));
copyFileSync(join(ROOT, '../shared/conformance/bench/bench_1000.json'), join(APP, 'workload.json'));

const storage = mkdtempSync(join(tmpdir(), 'am-edge-bench-'));
const server = await startWorkerd(join(APP, 'worker.js'), {}, { objects: ['MemoryObject', 'Probe'], storage });
const get = async (query) => {
  const res = await fetch(new URL(`?${query}`, server.url));
  if (!res.ok) throw new Error(`${query}: HTTP ${res.status} ${await res.text()}\n${server.log()}`);
  return res.json();
};
try {
  const kinds = ['store', 'recall', 'reconstruct', 'traverse'];
  const means = { memory: {}, object: {} };
  for (let r = 0; r < rounds; r++) {
    for (const mode of ['memory', 'object']) {
      const run = await get(`mode=${mode}`);
      for (const k of kinds) if (run.ops[k]?.mean_ms !== undefined) (means[mode][k] ??= []).push(run.ops[k].mean_ms);
    }
  }
  console.log(`| op | memory mean ms (${rounds} rounds) | object mean ms | object ÷ memory |`);
  console.log('|---|---|---|---|');
  for (const k of kinds) {
    if (!means.memory[k]) continue;
    const m = means.memory[k].map((v) => v.toFixed(3)).join(' / ');
    const o = means.object[k].map((v) => v.toFixed(3)).join(' / ');
    const ratios = means.object[k].map((v, i) => (v / means.memory[k][i]).toFixed(2)).join(' / ');
    console.log(`| ${k} | ${m} | ${o} | ${ratios} |`);
  }
  const probe = await get('mode=probe');
  console.log(`an object with no engine, through RPC: a call writing one 4096-byte row ${probe.write_ms.toFixed(3)} ms, a call reading nothing ${probe.read_ms.toFixed(3)} ms`);
  let filled = 0;
  for (const n of sizes) {
    await get(`mode=fill&n=${n - filled}`);
    filled = n;
    const colds = [];
    for (let r = 0; r < 3; r++) {
      await server.restart('SIGTERM');
      colds.push((await get('mode=cold')).ms.toFixed(0));
    }
    const warm = (await get('mode=cold')).ms.toFixed(1);
    console.log(`cold open of an object of ${n} memories to its first recall: ${colds.join(' / ')} ms (the next recall ${warm} ms)`);
  }
} finally {
  server.child.kill('SIGKILL');
  rmSync(storage, { recursive: true, force: true });
}
