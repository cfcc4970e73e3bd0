#!/usr/bin/env node
// Sync's cost in the engine, in wasm (Node): what `benches/sync.rs` measures natively, with
// the module the package's Node entry loads (pkg-node/). A `store` when the memory syncs ÷
// when it does not (the two interleaved over ROUNDS passes of N stores, after a warm-up pass,
// so V8's compilation of the module lands in neither), and a device bringing in the N
// changes another device made offline (`syncApply` of them all, then a first recall, which
// brings the indexes up): the median of 5. The writes are every fourth with an entity and a
// relation, as natively. BENCHMARKS.md, "Sync in the engine".
//
//   make build && node www/bench/sync-engine-bench.mjs [N]

import { Memory } from '../../pkg-node/associative_memory.js';

const N = Number(process.argv[2] ?? 1000);
const ROUNDS = 3;
const clock = () => 1_767_225_600_000;
const WORDS = ['ledger', 'queue', 'night', 'rust', 'review', 'friday', 'cache', 'drain', 'deploy', 'alert', 'shard', 'index'];
const content = (i) => Array.from({ length: 12 }, (_, k) => WORDS[(i * 7 + k * 5) % WORDS.length]).join(' ') + ` item ${i}`;
const write = (i) => {
  const args = { agent_id: 'bench', content: content(i) };
  if (i % 4 === 0) {
    const [a, b] = [`Entity ${i % 50}`, `Entity ${(i * 7) % 50}`];
    args.associations = { entities: [{ name: a }], relations: [{ subject: a, predicate: 'works_with', object: b }] };
  }
  return args;
};
const mean = (xs) => xs.reduce((x, y) => x + y, 0) / xs.length;

const perStore = { on: [], off: [] };
let source;
for (let round = 0; round <= ROUNDS; round++) {
  for (const sync of round % 2 ? [true, false] : [false, true]) {
    const m = Memory.openInMemory(clock);
    if (sync) m.syncStart(1);
    const t = performance.now();
    for (let i = 0; i < N; i++) m.call('store', write(i));
    if (round > 0) perStore[sync ? 'on' : 'off'].push((performance.now() - t) / N);
    if (sync && !source) source = m;
    else m.free();
  }
}
const log = source.syncPending().map((p, i) => ({ position: i + 1, device: 1, seq: p.seq, change: p.change }));
const bytes = log.map((e) => e.change.length);
const converge = [];
for (let run = 0; run < 5; run++) {
  const m = Memory.openInMemory(clock);
  m.syncStart(2);
  const t = performance.now();
  m.syncApply(log);
  m.call('recall', { agent_id: 'bench', query: 'ledger' });
  converge.push(performance.now() - t);
  m.free();
}
converge.sort((a, b) => a - b);
const [off, on] = [mean(perStore.off), mean(perStore.on)];
console.log(`wasm in Node ${process.version}, ${N} stores, ${ROUNDS} interleaved rounds`);
console.log(`store: sync off ${off.toFixed(3)} ms, on ${on.toFixed(3)} ms: ${(on / off).toFixed(2)}x`);
console.log(`changeset per store: mean ${Math.round(mean(bytes))} bytes`);
console.log(`bring in ${N} changes: median ${converge[2].toFixed(1)} ms (${converge.map((x) => x.toFixed(0)).join(', ')})`);
