#!/usr/bin/env node
// Sync end to end (BENCHMARKS.md, "Sync through the relay"): the packed package's devices in
// Node against the package's `MemoryRelay` in workerd from npm, storage on disk. Device A
// stores N memories while it is offline (its connection cut by a proxy), every fourth with an
// entity and a relation; then it reconnects and pushes them: the bytes it sends over the
// WebSocket per store (sealed, padded, base64 in a JSON frame). Device B then opens empty and
// catches up on the N changes made elsewhere: the time from `openMemory` to `synced` at A's
// position, and the bytes it receives. Median of ROUNDS rounds, each on a fresh memory id.
//
//   make build && node www/test/pack.mjs && node www/bench/sync-bench.mjs [N]

import WebSocket from 'ws';
import { hosting } from '../test/harness.mjs';
import { importPackage } from '../test/pack.mjs';
import { proxy } from '../test/proxy.mjs';

const N = Number(process.argv[2] ?? 1000);
const ROUNDS = 3;
const KEY = new Uint8Array(32).map((_, i) => i * 11 + 3);
const WORDS = ['ledger', 'queue', 'night', 'rust', 'review', 'friday', 'cache', 'drain', 'deploy', 'alert', 'shard', 'index'];
const content = (i) => Array.from({ length: 12 }, (_, k) => WORDS[(i * 7 + k * 5) % WORDS.length]).join(' ') + ` item ${i}`;

/** A `ws` WebSocket that counts the bytes of the frames it sends and receives. */
const counted = { sent: 0, received: 0 };
class CountingSocket extends WebSocket {
  constructor(url) {
    super(url);
    this.on('message', (data) => { counted.received += data.length; });
  }
  send(data, ...rest) {
    counted.sent += Buffer.byteLength(data);
    return super.send(data, ...rest);
  }
}

async function until(check, ms = 300_000) {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`not within ${ms / 1000} s`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const server = await hosting({});
const pkg = await importPackage();
const results = { perStore: [], catchUp: [], receivedPerChange: [] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    const id = `bench-${round}-${Date.now()}`;
    const p = await proxy(Number(new URL(server.url).port));
    const sync = { url: `ws://127.0.0.1:${p.port}/r/${id}/ws`, memory: id, WebSocket: CountingSocket };
    const a = await pkg.openMemory({ key: KEY, sync });
    await a.sync.now();
    p.cut();
    await until(() => a.sync.status === 'offline');
    const agent = a.agent('bench');
    for (let i = 0; i < N; i++) {
      const args = { content: content(i) };
      if (i % 4 === 0) {
        const [x, y] = [`Entity ${i % 50}`, `Entity ${(i * 7) % 50}`];
        args.associations = { entities: [{ name: x }], relations: [{ subject: x, predicate: 'works_with', object: y }] };
      }
      await agent.store(args);
    }
    counted.sent = 0;
    p.restore();
    await a.sync.now();
    results.perStore.push(counted.sent / N);
    const head = a.sync.position;
    counted.received = 0;
    const t = performance.now();
    const b = await pkg.openMemory({ key: KEY, sync: { ...sync, url: `ws://127.0.0.1:${new URL(server.url).port}/r/${id}/ws` } });
    await until(() => b.sync.status === 'synced' && b.sync.position === head);
    results.catchUp.push(performance.now() - t);
    results.receivedPerChange.push(counted.received / N);
    await a.close();
    await b.close();
    p.close();
  }
} finally {
  server.stop();
}
console.log(`sync through the relay, ${N} stores (every fourth with an entity and a relation), ${ROUNDS} rounds, Node ${process.version}`);
console.log(`bytes sent per store (sealed, padded to 512, base64 in a JSON frame): median ${median(results.perStore).toFixed(0)} (${results.perStore.map((x) => x.toFixed(0)).join(', ')})`);
console.log(`a new device catching up on ${N} changes, open to synced: median ${median(results.catchUp).toFixed(0)} ms (${results.catchUp.map((x) => x.toFixed(0)).join(', ')}); received ${median(results.receivedPerChange).toFixed(0)} bytes per change`);
process.exit(0);
