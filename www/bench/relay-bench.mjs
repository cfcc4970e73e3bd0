#!/usr/bin/env node
// What the sync relay (`MemoryRelay`) stores for a log of sealed changesets, in workerd from npm
// with its SQLite storage on disk: `--pushes` pushes (default 10,000) of `--bytes`-byte random
// payloads (default 300: sealed bytes are incompressible) from two devices, then a snapshot of
// `--snapshot` bytes (default 262,144) at the head and the alarm's compaction. Prints, before
// and after compaction, the relay's `stats()` (entries, sealed bytes kept, the database's
// size) and the bytes of its files on disk (the .sqlite and its WAL). Prints markdown.
//
//   make build && node www/test/pack.mjs && node www/bench/relay-bench.mjs [--pushes 10000] [--bytes 300] [--snapshot 262144]

import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { hosting } from '../test/harness.mjs';

const argv = process.argv.slice(2);
const flag = (name, fallback) => Number(argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const pushes = flag('--pushes', 10000);
const bytes = flag('--bytes', 300);
const snapshotBytes = flag('--snapshot', 262144);
const MEMORY = 'bench';

/** Every file under `dir` with its size. */
const files = (dir) => readdirSync(dir).flatMap((f) => {
  const path = join(dir, f);
  return statSync(path).isDirectory() ? files(path) : [{ path, size: statSync(path).size }];
});

/** A device: `send`, and `next(type)`, the next frame of that type (others are dropped). */
async function device(server) {
  const ws = new WebSocket(new URL(`r/${MEMORY}/ws`, server.url.replace(/^http/, 'ws')));
  const queue = [];
  const waiting = [];
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString());
    if (frame.type === 'error') throw new Error(JSON.stringify(frame));
    const w = waiting.shift();
    if (w) w(frame); else queue.push(frame);
  });
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  const next = () => queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise((r) => waiting.push(r));
  return { ws, send: (f) => ws.send(JSON.stringify(f)), next };
}

const server = await hosting({});
try {
  const stats = async () => (await fetch(new URL(`r/${MEMORY}/stats`, server.url))).json();
  const a = await device(server);
  const b = await device(server);
  // b reads only what a pushes (broadcast): drain it so nothing backs up
  for (const d of [a, b]) {
    d.send({ type: 'hello', token: 'bench token', schema: 1, device: null, after: 0 });
    await d.next();
  }
  let drained = 0;
  b.ws.on('message', () => { drained++; });
  const started = performance.now();
  // a keeps up to 64 pushes in flight; b pushes one in ten, its own seq
  const WINDOW = 64;
  let seqA = 0;
  let seqB = 0;
  let inFlight = [];
  for (let i = 0; i < pushes; i++) {
    const sealed = randomBytes(bytes).toString('base64');
    if (i % 10 === 9) {
      b.send({ type: 'push', seq: ++seqB, sealed });
    } else {
      a.send({ type: 'push', seq: ++seqA, sealed });
      inFlight.push(a.next());
      if (inFlight.length >= WINDOW) {
        await Promise.all(inFlight);
        inFlight = [];
      }
    }
  }
  await Promise.all(inFlight);
  while ((await stats()).head < pushes) await new Promise((r) => setTimeout(r, 50));
  const pushMs = performance.now() - started;
  const disk = () => {
    const all = files(server.storage).filter((f) => f.path.includes('MemoryRelay'));
    return { sqlite: all.filter((f) => f.path.endsWith('.sqlite')).reduce((n, f) => n + f.size, 0), all: all.reduce((n, f) => n + f.size, 0) };
  };
  const before = { ...(await stats()), disk: disk() };
  a.send({ type: 'snapshot', position: before.head, sealed: randomBytes(snapshotBytes).toString('base64') });
  while ((await a.next()).type !== 'stored');
  while ((await stats()).entries > 0) await new Promise((r) => setTimeout(r, 50));
  const compacted = { ...(await stats()), disk: disk() };
  // the WAL is folded into the database when workerd stops (which waits for open sockets): the files at rest
  for (const d of [a, b]) {
    d.ws.close();
    await new Promise((r) => d.ws.once('close', r));
  }
  await server.restart('SIGTERM');
  const rest = { ...(await stats()), disk: disk() };

  console.log(`${pushes} pushes of ${bytes}-byte payloads (two devices, 64 in flight) in ${(pushMs / 1000).toFixed(1)} s; snapshot ${snapshotBytes} bytes`);
  console.log('');
  console.log('| | entries | sealed bytes kept | `databaseSize` | .sqlite on disk | all files (WAL too) |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, s] of [['before compaction', before], ['after compaction', compacted], ['after compaction, workerd restarted', rest]]) {
    console.log(`| ${name} | ${s.entries} | ${s.sealedBytes} | ${s.databaseBytes} | ${s.disk.sqlite} | ${s.disk.all} |`);
  }
  console.log('');
  console.log(`per push before compaction: ${(before.databaseBytes / pushes).toFixed(1)} bytes of database for ${bytes} of payload (${(before.databaseBytes / (pushes * bytes)).toFixed(2)}×); frames b received: ${drained}`);
} finally {
  server.stop();
}
