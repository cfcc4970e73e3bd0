#!/usr/bin/env node
// Storage 'file' against 'memory' in Node, in one sitting (BENCHMARKS.md, "Storage 'file'"):
// the replay of ../shared/conformance/bench/bench_1000.json through the packed package
// (each op's mean), a storeMany of 5,000, and cold starts in fresh processes: import,
// compile, instantiate and open a new memory; and the memory the first round left (6,000
// memories) brought back, its file reopened ('file') or its export imported ('memory', the
// way such a memory persists), then its first recall. The storages take turns, ROUNDS times,
// and each figure is the median of the rounds (of COLD_RUNS processes for cold starts).
// Prints markdown; --json FILE saves it all.
//
//   make build && node www/test/pack.mjs && node www/bench/file-bench.mjs [--json out.json]

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { CONSUMER, importPackage } from '../test/pack.mjs';
import { replay, workloadClock } from './replay.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKLOAD = join(ROOT, '../shared/conformance/bench/bench_1000.json');
const ROUNDS = 5;
const COLD_RUNS = 8;
const argv = process.argv.slice(2);
const jsonOut = argv.includes('--json') ? argv[argv.indexOf('--json') + 1] : null;
const options = (storage, path) => (storage === 'file' ? { storage, path } : {});

if (argv[0] === '--cold') {
  // A fresh process: the first import of the package is cold. For 'file', `from` is the file
  // (new, or the replay's); for 'memory', nothing or the replay's export, imported.
  const [, storage, from] = argv;
  const t0 = performance.now();
  const { openMemory } = await importPackage();
  const memory = await openMemory(options(storage, from));
  if (storage === 'memory' && from) await memory.import(readFileSync(from));
  const open_ms = performance.now() - t0;
  const t1 = performance.now();
  await memory.recall({ agent_id: 'agent', query: 'ledger service migration' });
  const recall_ms = performance.now() - t1;
  await memory.close();
  process.stdout.write(JSON.stringify({ open_ms, recall_ms }));
  process.exit(0);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cold = (...args) => JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--cold', ...args], { encoding: 'utf8' }));

const workload = JSON.parse(readFileSync(WORKLOAD, 'utf8'));
const { openMemory } = await importPackage();
const dir = mkdtempSync(join(tmpdir(), 'am-file-bench-'));
const runs = { memory: [], file: [] };
const batchItems = Array.from({ length: 5000 }, (_, i) => ({ content: `batch item ${i} about the ledger service, its owners and its migration` }));
const replayed = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const storage of ['memory', 'file']) {
    const path = join(dir, round === 0 ? 'replayed.sqlite3' : `round-${round}.sqlite3`);
    const clock = workloadClock(workload);
    const memory = await openMemory({ ...options(storage, path), clock: () => clock.now() });
    const run = await replay((tool, args) => memory.call(tool, args), workload, clock);
    const t = performance.now();
    await memory.agent('batch').storeMany(batchItems);
    run.store_many_ms = performance.now() - t;
    if (round === 0 && storage === 'memory') {
      replayed.memory = join(dir, 'replayed.export');
      writeFileSync(replayed.memory, await memory.export());
    }
    if (round === 0 && storage === 'file') replayed.file = path;
    await memory.close();
    runs[storage].push(run);
  }
}
// Once more on 'file', counting the file calls the replay makes (the package's own
// nodeFileSystem, wrapped: the engine looks its methods up on each call).
const { nodeFileSystem } = await import(pathToFileURL(join(CONSUMER, 'node_modules/associative-memory/file.js')).href);
const calls = {};
for (const [name, f] of Object.entries(nodeFileSystem)) {
  calls[name] = 0;
  nodeFileSystem[name] = (...args) => { calls[name]++; return f(...args); };
}
{
  const clock = workloadClock(workload);
  const memory = await openMemory({ storage: 'file', path: join(dir, 'counted.sqlite3'), clock: () => clock.now() });
  for (const name of Object.keys(calls)) calls[name] = 0;
  await replay((tool, args) => memory.call(tool, args), workload, clock);
  await memory.close();
}

const colds = { memory: [], file: [], memoryBack: [], fileBack: [] };
for (let i = 0; i < COLD_RUNS; i++) {
  colds.memory.push(cold('memory'));
  colds.file.push(cold('file', join(dir, `cold-${i}.sqlite3`)));
  colds.memoryBack.push(cold('memory', replayed.memory));
  colds.fileBack.push(cold('file', replayed.file));
}
rmSync(dir, { recursive: true, force: true });

const ops = Object.keys(runs.memory[0].ops).filter((op) => runs.memory[0].ops[op].n > 0);
const figure = (storage, f) => median(runs[storage].map(f));
const results = { node: process.version, rounds: ROUNDS, cold_runs: COLD_RUNS, ops: {}, colds };
console.log(`Node ${process.version}, ${ROUNDS} rounds taking turns (medians); cold: ${COLD_RUNS} fresh processes each.\n`);
console.log("| measure | 'memory' | 'file' | file / memory |");
console.log('|---|---|---|---|');
const row = (name, m, f, unit = 'ms') => {
  console.log(`| ${name} | ${m.toFixed(3)} ${unit} | ${f.toFixed(3)} ${unit} | ${(f / m).toFixed(2)}× |`);
  results.ops[name] = { memory: m, file: f, ratio: f / m };
};
for (const op of ops) {
  const mean = (storage) => figure(storage, (r) => r.ops[op]?.mean_ms ?? NaN);
  row(`${op}, mean of ${runs.memory[0].ops[op]?.n}`, mean('memory'), mean('file'));
}
row('storeMany of 5,000', figure('memory', (r) => r.store_many_ms), figure('file', (r) => r.store_many_ms));
const coldOpen = (xs) => median(xs.map((c) => c.open_ms));
row('cold: import, instantiate, open a new memory', coldOpen(colds.memory), coldOpen(colds.file));
row('cold: the same, and the first round\'s 6,000 memories back (file reopened / export imported)', coldOpen(colds.memoryBack), coldOpen(colds.fileBack));
row('then the first recall', median(colds.memoryBack.map((c) => c.recall_ms)), median(colds.fileBack.map((c) => c.recall_ms)));
const stores = workload.ops.filter((op) => op.op === 'store').length;
console.log(`\nFile calls in one replay on 'file' (${stores} stores), with close(): ${Object.entries(calls).filter(([, n]) => n).map(([name, n]) => `${name} ${n}`).join(', ')}.`);
results.file_calls = calls;
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ ...results, runs }, null, 2));
