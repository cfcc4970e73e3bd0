#!/usr/bin/env node
// Replays a conformance bench workload (default bench/bench_1000.json) against the
// wasm build of associative-memory in Node and prints per-op-kind latency:
// n, mean, p50, p95, max, total (ms) -- the same table as `cargo bench --bench ops`.
//
// The replay (replay.mjs) follows the reference driver (cpersona_driver.py --timing): one
// fresh in-memory memory, the ops in file order, once, no warm-up (cold numbers are what
// they are); a clock function starting at the file's clock.start that moves on by
// clock.step_seconds after every write op (store / episode / declare / retract); a store
// without a timestamp is given the clock's current time; an explicit later timestamp
// first moves the clock to it. Each op's time is performance.now() around the one
// mem.call (arguments built before).
//
// An op kind whose first call throws code 'unsupported' (or 'unknown_tool') is reported
// as skipped and not called again. Any other error is counted per kind.
//
// Usage (from the crate root, after scripts/build-wasm.sh):
//   node www/bench/node-bench.mjs [--json out.json] [--runs N] [--workload file] [--pkg dir]
// Environment (flags win):
//   BENCH_WORKLOAD  workload (default ../shared/conformance/bench/bench_1000.json, relative
//                   to the crate root)
//   BENCH_JSON      write the results as JSON to this path
//   BENCH_RUNS      replay this many times in this process, each on a fresh memory
//                   (default 1; runs after the first are JIT-warm)
//   BENCH_PKG       directory of the nodejs-target package (default <crate>/pkg-node: the
//                   module built for speed, which the package runs in Node)

import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, statSync } from 'node:fs';
import { dirname, join, resolve, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import vm from 'node:vm';
import { replay, workloadClock } from './replay.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const crateRoot = resolve(here, '..', '..');
const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : undefined;
};
const fromRoot = (p) => (isAbsolute(p) ? p : join(crateRoot, p));

const workloadPath = fromRoot(flag('--workload') ?? process.env.BENCH_WORKLOAD ?? '../shared/conformance/bench/bench_1000.json');
const jsonPath = flag('--json') ?? process.env.BENCH_JSON;
const runs = Math.max(1, parseInt(flag('--runs') ?? process.env.BENCH_RUNS ?? '1', 10));
const pkgDir = fromRoot(flag('--pkg') ?? process.env.BENCH_PKG ?? 'pkg-node');

async function replayOnce(Memory, workload) {
  const clock = workloadClock(workload);
  const t0 = performance.now();
  let mem = Memory.openInMemory(() => clock.now());
  if (mem !== null && typeof mem.then === 'function') mem = await mem;
  const openMs = performance.now() - t0;
  const run = await replay((tool, args) => mem.call(tool, args), workload, clock);
  if (typeof mem.free === 'function') mem.free();
  return { ops: run.ops, openMs, wallMs: run.wall_ms };
}

function printRun(run, label) {
  console.log(`${label}: open ${run.openMs.toFixed(3)} ms, whole replay ${run.wallMs.toFixed(1)} ms`);
  const pad = (v, w) => String(v).padStart(w);
  console.log(`  ${'op'.padEnd(13)} ${pad('n', 6)} ${pad('mean ms', 10)} ${pad('p50 ms', 10)} ${pad('p95 ms', 10)} ${pad('max ms', 10)} ${pad('total ms', 11)}`);
  for (const [kind, s] of Object.entries(run.ops)) {
    if (s.skipped) { console.log(`  ${kind.padEnd(13)} skipped (${s.skipped})`); continue; }
    const f = (key, d = 4) => pad((s[key] ?? NaN).toFixed(d), key === 'total_ms' ? 11 : 10);
    const err = s.errors ? `   ERRORS ${s.errors} (first: ${s.first_error})` : '';
    console.log(`  ${kind.padEnd(13)} ${pad(s.n, 6)} ${f('mean_ms')} ${f('p50_ms')} ${f('p95_ms')} ${f('max_ms')} ${f('total_ms', 2)}${err}`);
  }
}

const workload = JSON.parse(readFileSync(workloadPath, 'utf8'));
const require = createRequire(import.meta.url);
const modulePath = join(pkgDir, 'associative_memory.js');
// The nodejs target is CommonJS. Under a package.json with "type": "module" (this crate's
// dev manifest) and no package.json of its own in pkg-node/, Node treats it as ESM and
// `exports` is undefined; then load it as CommonJS by hand.
function loadCommonJs(path) {
  const module = { exports: {} };
  const src = readFileSync(path, 'utf8');
  const fn = vm.compileFunction(src, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: path });
  fn(module.exports, createRequire(path), module, path, dirname(path));
  return module.exports;
}
const l0 = performance.now();
let pkg, loadedAs = 'require';
try {
  pkg = require(modulePath); // nodejs target: compiles and instantiates the wasm synchronously
} catch (e) {
  if (!(e instanceof ReferenceError && /exports is not defined|require is not defined/.test(e.message)) && e.code !== 'ERR_REQUIRE_ESM') throw e;
  pkg = loadCommonJs(modulePath);
  loadedAs = 'CommonJS by hand (pkg-node/ is read as ESM under the root "type": "module"; give it a package.json {"type":"commonjs"})';
}
const loadMs = performance.now() - l0;
const { Memory } = pkg;
if (typeof Memory?.openInMemory !== 'function') {
  throw new Error(`${modulePath} has no Memory.openInMemory; exports: ${Object.keys(pkg).join(', ')}`);
}
let wasmBytes = null;
try { wasmBytes = statSync(join(pkgDir, 'associative_memory_bg.wasm')).size; } catch { /* absent */ }

console.log(`associative-memory node-wasm replay of ${workloadPath} (${workload.ops.length} ops), ${runs} run(s)`);
console.log(`node ${process.version} (v8 ${process.versions.v8}), ${os.cpus().length} cpu(s) ${os.cpus()[0]?.model ?? ''}; ` +
  `module load+instantiate ${loadMs.toFixed(1)} ms${wasmBytes ? `, wasm ${wasmBytes} bytes` : ''}`);
if (loadedAs !== 'require') console.log(`note: loaded ${loadedAs}`);

const results = [];
for (let r = 0; r < runs; r++) {
  const run = await replayOnce(Memory, workload);
  printRun(run, `run ${r + 1}${r === 0 ? ' (cold)' : ' (JIT-warm)'}`);
  results.push({ open_ms: run.openMs, wall_ms: run.wallMs, ops: run.ops });
}

if (jsonPath) {
  const out = {
    impl: 'node-wasm',
    node: process.version,
    v8: process.versions.v8,
    workload: workloadPath,
    package: pkgDir,
    wasm_bytes: wasmBytes,
    load_ms: loadMs,
    loaded_as: loadedAs,
    timer: 'performance.now() around mem.call; fresh in-memory memory per run; no warm-up (run 1 is cold)',
    runs: results,
  };
  writeFileSync(jsonPath, JSON.stringify(out, null, 1) + '\n');
  console.log(`wrote ${jsonPath}`);
}
