#!/usr/bin/env node
// The npm package's benchmarks, in one sitting: native (`cargo bench --bench ops`), then
// the packed package (www/test/pack.mjs) in Node, a Chromium page (storage 'memory'), a
// Chromium page with storage 'opfs' (the engine in the package's worker, each call a
// postMessage round trip; in a browser profile on disk, and off the record), and workerd.
// Each runtime: cold start (load + instantiate + open) and per-op latency over
// ../shared/conformance/bench/bench_1000.json, as ratios to native. Also the sizes of the
// .wasm and the tarball. Prints markdown; --json FILE saves everything.
//
//   make build && node www/test/pack.mjs && node www/bench/package-bench.mjs [--json out.json]

import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { build, preview } from 'vite';
import { chromium } from 'playwright-core';
import { CONSUMER, PACKS, importPackage } from '../test/pack.mjs';
import { CHROMIUM, CHROMIUM_ARGS, startWorkerd } from '../test/harness.mjs';
import { replay, workloadClock } from './replay.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKLOAD = join(ROOT, '../shared/conformance/bench/bench_1000.json');
const APP = join(CONSUMER, 'bench');
const argv = process.argv.slice(2);
const jsonOut = argv.includes('--json') ? argv[argv.indexOf('--json') + 1] : null;

if (argv[0] === '--node-child') {
  // A fresh process: the first import of the package is cold.
  const workload = JSON.parse(readFileSync(WORKLOAD, 'utf8'));
  const clock = workloadClock(workload);
  const t0 = performance.now();
  const { openMemory } = await importPackage();
  const memory = await openMemory({ clock: () => clock.now() });
  const cold_ms = performance.now() - t0;
  const run = await replay((tool, args) => memory.call(tool, args), workload, clock);
  process.stdout.write(JSON.stringify({ cold_ms, ...run }));
  process.exit(0);
}

const results = {};

// Sizes.
// The module pages, workers and workerd load, and the one Node runs (built for speed).
const wasm = readFileSync(join(CONSUMER, 'node_modules/associative-memory/associative_memory_bg.wasm'));
const nodeWasm = readFileSync(join(CONSUMER, 'node_modules/associative-memory/associative_memory_node_bg.wasm'));
const tarball = join(PACKS, readdirSync(PACKS).find((f) => f.endsWith('.tgz')));
const unpacked = readdirSync(join(CONSUMER, 'node_modules/associative-memory')).reduce((n, f) => n + statSync(join(CONSUMER, 'node_modules/associative-memory', f)).size, 0);
results.sizes = {
  wasm_bytes: wasm.length, wasm_gzip_bytes: gzipSync(wasm, { level: 9 }).length,
  node_wasm_bytes: nodeWasm.length, node_wasm_gzip_bytes: gzipSync(nodeWasm, { level: 9 }).length,
  tarball_bytes: statSync(tarball).size, unpacked_bytes: unpacked,
};

// Native, same sitting.
const nativeJson = join(CONSUMER, 'native.json');
execFileSync('cargo', ['bench', '--bench', 'ops', '--', '--json', nativeJson], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
const native = JSON.parse(readFileSync(nativeJson, 'utf8'));
results.native = { cold_ms: native.runs?.[0]?.open_ms ?? native.open_ms, ops: native.runs?.[0]?.ops ?? native.ops };

// Node.
results.node = JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--node-child'], { encoding: 'utf8' }));

// Chromium: a Vite build of the bench page.
mkdirSync(APP, { recursive: true });
cpSync(fileURLToPath(new URL('./app/', import.meta.url)), APP, { recursive: true });
copyFileSync(fileURLToPath(new URL('./replay.mjs', import.meta.url)), join(APP, 'replay.mjs'));
mkdirSync(join(APP, 'public'), { recursive: true });
copyFileSync(WORKLOAD, join(APP, 'public/workload.json'));
copyFileSync(WORKLOAD, join(APP, 'workload.json'));
await build({ root: APP, logLevel: 'warn', build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' } });
const server = await preview({ root: APP, logLevel: 'warn', preview: { port: 0, host: '127.0.0.1' } });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
// OPFS twice: in a browser profile on disk, as people use it (SyncAccessHandle writes are
// write(2) calls, flush() an fsync), and in Playwright's default off-the-record context,
// where OPFS lives in the browser process's memory and every SyncAccessHandle read and
// write is an IPC to it (BENCHMARKS.md).
// And OPFS encrypted (a raw key), on disk, right after the plain run: the cipher's cost.
for (const [key, storage, profile, encrypted] of [['chromium_memory', 'memory', false], ['chromium_opfs', 'opfs', true], ['chromium_opfs_encrypted', 'opfs', true, true], ['chromium_opfs_incognito', 'opfs', false]]) {
  const context = profile
    ? await chromium.launchPersistentContext(join(APP, `profile-${process.pid}-${Date.now()}`), { executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    : await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.resolvedUrls.local[0]}?storage=${storage}${encrypted ? '&key=1' : ''}`);
  await page.waitForFunction(() => window.result, null, { timeout: 300000 });
  results[key] = await page.evaluate(() => window.result);
  await context.close();
}
await browser.close();
await server.close();

// workerd.
const edge = await startWorkerd(join(APP, 'edge.js'));
try {
  results.workerd = await (await fetch(edge.url)).json();
} finally {
  edge.child.kill();
}

// Markdown.
const label = { native: 'native (in-memory)', node: 'Node 20', chromium_memory: 'Chromium page, storage memory', chromium_opfs: 'Chromium, storage opfs (worker), profile on disk', chromium_opfs_encrypted: 'Chromium, storage opfs (worker), profile on disk, encrypted', chromium_opfs_incognito: 'Chromium, storage opfs (worker), off-the-record context', workerd: 'workerd' };
const kinds = ['store', 'traverse', 'reconstruct'];
const f = (x, d = 3) => (x === undefined ? '—' : x.toFixed(d));
console.log(`| runtime | cold start ms | ${kinds.map((k) => `${k} mean ms (× native)`).join(' | ')} | ${kinds.map((k) => `${k} p95 ms`).join(' | ')} |`);
console.log(`|---|---|${kinds.map(() => '---').join('|')}|${kinds.map(() => '---').join('|')}|`);
for (const [key, name] of Object.entries(label)) {
  const r = results[key];
  const cells = kinds.map((k) => {
    const mean = r.ops[k]?.mean_ms;
    const ratio = key === 'native' ? '' : ` (${f(mean / results.native.ops[k]?.mean_ms, 1)}×)`;
    return `${f(mean)}${ratio}`;
  });
  const errors = kinds.reduce((n, k) => n + (r.ops[k]?.errors ?? 0), 0);
  console.log(`| ${name} | ${f(r.cold_ms, 1)} | ${cells.join(' | ')} | ${kinds.map((k) => f(r.ops[k]?.p95_ms)).join(' | ')} |${errors ? ` ${errors} errors` : ''}`);
}
const s = results.sizes;
console.log(`\nwasm ${s.wasm_bytes} bytes (gzip -9 ${s.wasm_gzip_bytes}), Node's ${s.node_wasm_bytes} (gzip -9 ${s.node_wasm_gzip_bytes}); tarball ${s.tarball_bytes} bytes (unpacked ${s.unpacked_bytes})`);
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 1));
