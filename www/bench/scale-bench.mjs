#!/usr/bin/env node
// recall and reconstruct latency at 1k, 10k and 100k memories in wasm (Node), without
// vectors and with 384-dimension vectors: the same workload, protocol and table as
// `cargo bench --bench scale` (benches/scale.rs), plus wasm/native ratios when given that
// bench's JSON.
//
// The workload generator is a line-for-line port of benches/scale.rs (xoshiro128** seeded
// by splitmix32, only exact float operations), so texts are byte-identical and vectors
// bit-identical; each row carries the same FNV-1a fingerprint as the native row, and the
// ratios refuse to compare rows whose fingerprints differ. Keep GENERATOR in step.
//
// Per size and setting: one fresh in-memory memory, Memory.openInMemory(() => fixedMs) with
// the clock one minute after the last memory; every memory stored with mem.call('store')
// in a loop (timed: the build); a warm-up pass over the first --warmup (50) queries of
// each op; then --rounds
// passes: every recall {query, limit 10}, then every reconstruct {query, count 10} (with
// query_embedding when vectors). Each call timed alone with performance.now(), arguments
// built before. Vectors cross the boundary as plain arrays of numbers, as an app passes them.
// With vectors, plain_scan is timed once per query vector too: `plainVectorScan`, a plain
// SIMD dot-product loop over every stored vector in the memory's own index (no scope,
// ranking or row reads), the floor the vector arm is compared with. Each JSON row has the
// flat fields build_s, recall_mean_ms/p50/p95, reconstruct_mean_ms/p50/p95 and, with
// vectors, plain_scan_ms (its mean), as benches/scale.rs writes them.
//
// Usage (from the crate root, after `bash scripts/build-wasm.sh`):
//   node www/bench/scale-bench.mjs [--sizes 1000,10000,100000] [--settings lexical,vectors]
//        [--queries 200] [--rounds 1] [--warmup 50] [--dim 384] [--json out.json] [--native native.json]
//        [--pkg pkg-node] [--cache-dir DIR] [--storage memory|pages] [--fill-isolate MIB]
//        [--dump FILE]
//   --native FILE    the JSON of `cargo bench --bench scale -- --json FILE`: print wasm/native
//   --cache-dir DIR  import the database cached there (by this bench or benches/scale.rs,
//                    same file names) instead of storing again; without one, store and
//                    cache it; if the import fails, store (and leave the file alone)
//   --pkg DIR        the nodejs-target package (default <crate>/pkg-node: the module built
//                    for speed, which the package runs in Node)
//   --storage pages  open each memory over a page store in a JS Map (Memory.openPages), as a
//                    Durable Object holds one, so that the instance's linear memory holds only
//                    what an object costs it (page cache, indexes, statements); each row then
//                    has wasm_bytes, the growth of the instance's memory from before the
//                    open to after the queries. Run one size and setting per process: the
//                    memory never shrinks, so a later row reuses what an earlier one freed.
//   --dump FILE      write each response of the first measured round, one JSON line per
//                    call, to FILE: two builds' files compare their results line by line.
//   --fill-isolate MIB  with --storage pages: after the queries, copies of the memory (a
//                    copy of its page store, as an object opens its storage) are opened
//                    beside it, each queried once, until the instance's memory passes MIB;
//                    the row says how many were open within it (fits_in_isolate) and the
//                    bytes after each.
// An op that throws code 'unsupported' is reported as skipped.

import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import os from 'node:os';

const GENERATOR = 1;

const here = dirname(fileURLToPath(import.meta.url));
const crateRoot = resolve(here, '..', '..');
const argv = process.argv.slice(2);
const KNOWN = ['--sizes', '--settings', '--queries', '--rounds', '--warmup', '--dim', '--json', '--native', '--pkg', '--cache-dir', '--storage', '--fill-isolate', '--dump'];
for (let i = 0; i < argv.length; i += 2) {
  if (!KNOWN.includes(argv[i])) {
    console.error(`scale-bench: unknown argument ${JSON.stringify(argv[i])}; flags: ${KNOWN.join(' ')}`);
    process.exit(1);
  }
}
const flag = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : undefined;
};
const fromRoot = (p) => (isAbsolute(p) ? p : join(crateRoot, p));
const list = (s) => s.split(',').map((x) => x.trim()).filter(Boolean);

const sizes = list(flag('--sizes') ?? process.env.SCALE_SIZES ?? '1000,10000,100000').map((s) => parseInt(s.replaceAll('_', ''), 10));
const settings = list(flag('--settings') ?? process.env.SCALE_SETTINGS ?? 'lexical,vectors');
const nQueries = parseInt(flag('--queries') ?? '200', 10);
const rounds = Math.max(1, parseInt(flag('--rounds') ?? '1', 10));
const warmup = Math.max(0, parseInt(flag('--warmup') ?? '50', 10));
const dim = parseInt(flag('--dim') ?? '384', 10);
const jsonPath = flag('--json') ?? process.env.SCALE_JSON;
const nativePath = flag('--native');
const pkgDir = fromRoot(flag('--pkg') ?? process.env.BENCH_PKG ?? 'pkg-node');
const cacheDir = flag('--cache-dir') ?? process.env.SCALE_CACHE_DIR;
const dump = flag('--dump') ? [] : null;
const storage = flag('--storage') ?? 'memory';
if (storage !== 'memory' && storage !== 'pages') throw new Error(`--storage takes memory or pages, not ${storage}`);
const fillIsolate = flag('--fill-isolate') ? Number(flag('--fill-isolate')) * 1024 * 1024 : null;
if (fillIsolate !== null && storage !== 'pages') throw new Error('--fill-isolate needs --storage pages');
for (const s of settings) {
  if (s !== 'lexical' && s !== 'vectors') throw new Error(`--settings takes lexical and/or vectors, not ${s}`);
}

// ---- PRNG: xoshiro128** seeded with splitmix32 (as benches/scale.rs) ----------------------

class Rng {
  constructor(seed) {
    let st = seed >>> 0;
    const sm = () => {
      st = (st + 0x9e3779b9) >>> 0;
      let z = st;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s = new Uint32Array([sm(), sm(), sm(), sm()]);
  }
  nextU32() {
    const s = this.s;
    const rotl = (x, k) => ((x << k) | (x >>> (32 - k))) >>> 0;
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }
  uniform() { return (this.nextU32() >>> 8) / 16777216; }
  below(n) { return Math.floor(this.uniform() * n); }
  zipf(n) { const u = this.uniform(); return Math.floor(n * u * u * u); }
  gauss() {
    const a = this.uniform(), b = this.uniform(), c = this.uniform(), d = this.uniform();
    return ((a + b) + (c + d)) - 2;
  }
}

// ---- the workload (as benches/scale.rs) -------------------------------------------------

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tu', 'sa', 'vel', 'dor', 'ni', 'qua', 'ber', 'xi', 'po', 'lan', 'te', 'ru', 'zo',
  'fen', 'gi', 'mar', 'os', 'ul', 'ith', 'ae', 'bro', 'cas', 'dun', 'el', 'hap', 'jor', 'wy', 'ost'];
const FUNCTION_WORDS = ['the', 'a', 'and', 'to', 'of', 'in', 'it', 'is', 'was', 'that', 'for', 'on', 'with', 'my', 'we', 'you', 'i',
  'me', 'at', 'so', 'but', 'this', 'be', 'have', 'had', 'just', 'about', 'really', 'they', 'from', 'our', 'some',
  'yesterday', 'last', 'week', 'new'];
const QUESTION_WORDS = ['what', 'when', 'where', 'who', 'how', 'why'];
const VOCAB = 5000, NAMES = 300, SPEAKERS = 8, TOPICS = 64;
const BASE_MS = Date.parse('2024-01-01T00:00:00Z');

function word(rng, minSyl, maxSyl) {
  const n = minSyl + rng.below(maxSyl - minSyl + 1);
  let w = '';
  for (let i = 0; i < n; i++) w += SYLLABLES[rng.below(SYLLABLES.length)];
  return w;
}

function lexicon() {
  const rng = new Rng(0x5eed0001);
  const vocab = [];
  for (let i = 0; i < VOCAB; i++) vocab.push(word(rng, 2, 4));
  const names = [];
  for (let i = 0; i < NAMES; i++) { const w = word(rng, 2, 3); names.push(w[0].toUpperCase() + w.slice(1)); }
  const token = (r) => {
    const x = r.uniform();
    if (x < 0.35) return FUNCTION_WORDS[r.below(FUNCTION_WORDS.length)];
    if (x < 0.45) return names[r.zipf(NAMES)];
    return vocab[r.zipf(VOCAB)];
  };
  return { vocab, names, token };
}

function memories(lex, n) {
  const rng = new Rng(0x5eed0002);
  const out = [];
  for (let i = 0; i < n; i++) {
    const speaker = lex.names[rng.below(SPEAKERS)];
    const len = 8 + rng.below(25);
    const toks = [];
    for (let k = 0; k < len; k++) toks.push(lex.token(rng));
    out.push([`${speaker}: ${toks.join(' ')}.`, speaker]);
  }
  return out;
}

function queries(lex, count) {
  const rng = new Rng(0x5eed0003);
  const out = [];
  for (let i = 0; i < count; i++) {
    const qw = QUESTION_WORDS[rng.below(QUESTION_WORDS.length)];
    const len = 2 + rng.below(5);
    const toks = [];
    for (let k = 0; k < len; k++) toks.push(rng.uniform() < 0.3 ? lex.names[rng.zipf(NAMES)] : lex.vocab[rng.zipf(VOCAB)]);
    out.push(`${qw} did ${toks.join(' ')}?`);
  }
  return out;
}

function normalise(v) {
  let ss = 0;
  for (let i = 0; i < v.length; i++) ss += v[i] * v[i];
  const norm = Math.sqrt(ss);
  for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

function unit(rng, d) {
  const v = new Float64Array(d);
  for (let i = 0; i < d; i++) v[i] = rng.gauss();
  return normalise(v);
}

function vectors(n, q, d) {
  const crng = new Rng(0x5eed0004);
  const centroids = [];
  for (let t = 0; t < TOPICS; t++) centroids.push(unit(crng, d));
  const scale = Math.sqrt(3 / d);
  const around = (rng) => {
    const c = centroids[rng.below(TOPICS)];
    const v = new Float64Array(d);
    for (let i = 0; i < d; i++) v[i] = c[i] + rng.gauss() * scale;
    return Float32Array.from(normalise(v));
  };
  const mrng = new Rng(0x5eed0005);
  const mem = [];
  for (let i = 0; i < n; i++) mem.push(around(mrng));
  const qrng = new Rng(0x5eed0006);
  const qv = [];
  for (let i = 0; i < q; i++) qv.push(around(qrng));
  return [mem, qv];
}

function fingerprint(texts, qs, vecs) {
  let h = 0x811c9dc5;
  const enc = new TextEncoder();
  const eat = (bytes) => { for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0; };
  const nl = new Uint8Array([10]);
  for (const [t] of texts) { eat(enc.encode(t)); eat(nl); }
  for (const q of qs) { eat(enc.encode(q)); eat(nl); }
  if (vecs) {
    for (const v of [...vecs[0], ...vecs[1]]) eat(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)); // little-endian hosts
  }
  return h.toString(16).padStart(8, '0');
}

// Epoch ms -> YYYY-MM-DDTHH:MM:SS+00:00 (format_iso's spelling for whole seconds).
const formatIso = (ms) => `${new Date(ms).toISOString().slice(0, 19)}+00:00`;

/** Chunks in a Map, as a Durable Object's `pages` table holds them (outside the instance). */
function mapStore() {
  const chunks = new Map();
  let count = 0;
  return {
    read: (i) => chunks.get(i),
    write: (i, bytes) => { chunks.set(i, bytes); count = Math.max(count, i + 1); },
    truncate: (n) => { for (let i = n; i < count; i++) chunks.delete(i); count = Math.min(count, n); },
    count: () => count,
    copy() {
      const other = mapStore();
      for (const [i, bytes] of chunks) other.write(i, bytes);
      return other;
    },
  };
}

// ---- measurement ------------------------------------------------------------------------

function percentile(sorted, p) {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(rank, 1) - 1];
}
function stats(v) {
  if (v.length === 0) return { n: 0 };
  const s = [...v].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return { n: s.length, mean_ms: mean, p50_ms: percentile(s, 50), p95_ms: percentile(s, 95), max_ms: s[s.length - 1] };
}

function runOp(mem, tool, args, warm) {
  const out = { times: [], skipped: null, errors: 0, firstError: null, results: 0 };
  const unsupported = (e) => e && (e.code === 'unsupported' || e.code === 'unknown_tool');
  for (const a of args.slice(0, warm)) {
    try { mem.call(tool, a); } catch (e) {
      if (unsupported(e)) { out.skipped = `${e.code}: ${e.message}`; return out; }
    }
  }
  const key = tool === 'recall' ? 'messages' : 'items';
  for (let r = 0; r < rounds; r++) {
    for (const a of args) {
      const t0 = performance.now();
      let res, err = null;
      try { res = mem.call(tool, a); } catch (e) { err = e; }
      const ms = performance.now() - t0;
      if (r === 0) dump?.push(JSON.stringify({ tool, res: res ?? null, error: err?.code ?? null }));
      if (err === null) {
        out.times.push(ms);
        out.results += Array.isArray(res?.[key]) ? res[key].length : 0;
      } else if (unsupported(err)) {
        out.skipped = `${err.code}: ${err.message}`;
        return out;
      } else {
        out.times.push(ms);
        out.errors += 1;
        out.firstError ??= `${err?.code ?? '(no code)'}: ${err?.message ?? err}`;
      }
    }
  }
  return out;
}

function opJson(t) {
  if (t.skipped) return { skipped: t.skipped };
  const v = stats(t.times);
  v.errors = t.errors;
  if (t.firstError) v.first_error = t.firstError;
  v.mean_results = t.times.length ? t.results / t.times.length : 0;
  return v;
}

// ---- load the package ---------------------------------------------------------------------

const require = createRequire(import.meta.url);
const modulePath = join(pkgDir, 'associative_memory.js');
const l0 = performance.now();
const { Memory } = require(modulePath); // CommonJS nodejs target (pkg-node/package.json says so)
const loadMs = performance.now() - l0;
if (typeof Memory?.openInMemory !== 'function') throw new Error(`${modulePath} has no Memory.openInMemory`);
const schemaVersion = (() => {
  // The cache file name carries the schema version; read it from a fresh memory's export.
  try {
    const m = Memory.openInMemory(() => 0);
    const bytes = m.export();
    m.free?.();
    return new DataView(bytes.buffer, bytes.byteOffset).getUint32(60, false); // SQLite header: user_version
  } catch { return null; }
})();

console.log(`associative-memory scale bench, wasm in Node ${process.version} (v8 ${process.versions.v8}), ` +
  `${os.cpus().length} cpu(s) ${os.cpus()[0]?.model ?? ''}; module load ${loadMs.toFixed(1)} ms`);

const maxN = Math.max(...sizes);
const lex = lexicon();
let t = performance.now();
const allMems = memories(lex, maxN);
const qs = queries(lex, nQueries);
const wantVectors = settings.includes('vectors');
const [allVecs, qVecs] = wantVectors ? vectors(maxN, nQueries, dim) : [[], []];
console.error(`generated ${maxN} memories and ${qs.length} queries${wantVectors ? ` with ${dim}-d vectors` : ''} in ${((performance.now() - t) / 1000).toFixed(1)} s`);

const results = [];
for (const setting of settings) {
  const withVec = setting === 'vectors';
  for (const n of sizes) {
    const fp = fingerprint(allMems.slice(0, n), qs, withVec ? [allVecs.slice(0, n), qVecs] : null);
    const fixedMs = BASE_MS + 60000 * n;
    const wasmBefore = storage === 'pages' ? Memory.wasmMemoryBytes() : null;
    let opened = 0;
    const open = (store = mapStore()) => (storage === 'pages' ? Memory.openPages(`bench-${n}-${opened++}`, store, () => fixedMs, undefined) : Memory.openInMemory(() => fixedMs));
    const firstStore = mapStore();
    const mem = open(firstStore);
    const tag = withVec ? `vec${dim}` : 'lex';
    const cache = cacheDir ? join(cacheDir, `am-scale-g${GENERATOR}-s${schemaVersion}-${n}-${tag}-${fp}.sqlite`) : null;
    let build = null, imported = false, writeCache = Boolean(cache);
    if (cache && existsSync(cache)) {
      t = performance.now();
      const bytes = readFileSync(cache);
      writeCache = false; // never overwrite a cache file, whoever wrote it
      try {
        mem.import(bytes);
        console.error(`n=${n} ${setting}: imported ${cache} (${bytes.length >> 20} MB) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
        imported = true;
      } catch (e) {
        // Seen 2026-12-02: a database exported natively (page size 4096) fails to import in
        // wasm (page size 8192) with `sqlite: attempt to write a readonly database` -- SQLite's
        // backup into an in-memory database refuses differing page sizes. Build instead.
        console.error(`n=${n} ${setting}: cannot import ${cache} (${e.code ?? ''}: ${e.message}); storing instead`);
      }
    }
    if (!imported) {
      const storeMs = [];
      t = performance.now();
      for (let i = 0; i < n; i++) {
        const [content, speaker] = allMems[i];
        const a = { agent_id: 'bench', content, timestamp: formatIso(BASE_MS + 60000 * i), source: { type: 'User', id: speaker, name: speaker } };
        if (withVec) a.embedding = Array.from(allVecs[i]);
        const t0 = performance.now();
        mem.call('store', a);
        storeMs.push(performance.now() - t0);
      }
      const seconds = (performance.now() - t) / 1000;
      console.error(`n=${n} ${setting}: stored in ${seconds.toFixed(1)} s`);
      build = { seconds, store: stats(storeMs) };
      if (writeCache) {
        mkdirSync(cacheDir, { recursive: true });
        writeFileSync(cache, mem.export());
      }
    }
    const qargs = (tool) => qs.map((q, i) => {
      const a = tool === 'recall' ? { agent_id: 'bench', query: q, limit: 10 } : { agent_id: 'bench', query: q, count: 10 };
      if (withVec) a.query_embedding = Array.from(qVecs[i]);
      return a;
    });
    const warm = Math.min(warmup, qs.length);
    const recall = opJson(runOp(mem, 'recall', qargs('recall'), warm));
    const reconstruct = opJson(runOp(mem, 'reconstruct', qargs('reconstruct'), warm));
    let plainScan = null;
    if (withVec && typeof mem.plainVectorScan === 'function') {
      let sink = 0;
      for (const q of qVecs.slice(0, warm)) sink += mem.plainVectorScan(q);
      const times = [];
      for (let r = 0; r < rounds; r++) {
        for (const q of qVecs) {
          const t0 = performance.now();
          sink += mem.plainVectorScan(q);
          times.push(performance.now() - t0);
        }
      }
      plainScan = { ...stats(times), sink };
    }
    let wasm = null;
    if (storage === 'pages') {
      wasm = { wasm_bytes: Memory.wasmMemoryBytes() - wasmBefore, wasm_bytes_before: wasmBefore };
      if (fillIsolate !== null) {
        const copies = [];
        const after = [Memory.wasmMemoryBytes()];
        while (after[after.length - 1] <= fillIsolate) {
          const copy = open(firstStore.copy());
          runOp(copy, 'recall', qargs('recall').slice(0, 1), 0);
          runOp(copy, 'reconstruct', qargs('reconstruct').slice(0, 1), 0);
          copies.push(copy);
          after.push(Memory.wasmMemoryBytes());
        }
        // `after[k]` is the instance with k + 1 memories open; the last passed the limit.
        wasm.fits_in_isolate = after.length - 1;
        wasm.wasm_bytes_with_copies = after;
        for (const c of copies) c.free?.();
      }
      console.error(`n=${n} ${setting}: ${JSON.stringify(wasm)}`);
    }
    mem.free?.();
    const row = { n, setting, ...wasm, dim: withVec ? dim : null, fingerprint: fp, imported, build_s: build ? build.seconds : null,
      recall_mean_ms: recall.mean_ms ?? null, recall_p50_ms: recall.p50_ms ?? null, recall_p95_ms: recall.p95_ms ?? null,
      reconstruct_mean_ms: reconstruct.mean_ms ?? null, reconstruct_p50_ms: reconstruct.p50_ms ?? null,
      reconstruct_p95_ms: reconstruct.p95_ms ?? null, build, recall, reconstruct };
    if (plainScan) { row.plain_scan_ms = plainScan.mean_ms; row.plain_scan = plainScan; }
    console.error(`n=${n} ${setting}: recall ${JSON.stringify(recall)} reconstruct ${JSON.stringify(reconstruct)}`);
    results.push(row);
  }
}

// ---- tables ------------------------------------------------------------------------------

const f = (x, d = 3) => (typeof x === 'number' ? x.toFixed(d) : '-');
const pad = (s, w) => String(s).padStart(w);
console.log(`\nscale: wasm (Node), ${storage === 'pages' ? 'over a page store (Memory.openPages)' : 'in-memory'}; ${nQueries} queries x ${rounds} round(s) after ${Math.min(warmup, nQueries)} warm-up calls; ms; ratio = mean (p95) / the same at the smallest size`);
console.log(`${'setting'.padEnd(8)} ${pad('n', 8)} ${pad('build s', 9)} ${pad('store mean', 11)} | ${pad('rec mean', 9)} ${pad('rec p50', 9)} ${pad('rec p95', 9)} ${pad('rec ratio', 13)} | ${pad('recon mean', 10)} ${pad('recon p50', 9)} ${pad('recon p95', 9)} ${pad('recon ratio', 13)} | ${pad('plain ms', 9)} ${pad('rec÷plain', 9)}${storage === 'pages' ? ` | ${pad('wasm MiB', 9)} ${pad('fit', 4)}` : ''}`);
for (const setting of settings) {
  const rows = results.filter((r) => r.setting === setting);
  const first = rows[0];
  for (const r of rows) {
    const ratio = (op) => (r[op].mean_ms != null && first?.[op]?.mean_ms != null
      ? `${(r[op].mean_ms / first[op].mean_ms).toFixed(2)} (${(r[op].p95_ms / first[op].p95_ms).toFixed(2)})`
      : (r[op].skipped ? 'skipped' : '-'));
    console.log(`${setting.padEnd(8)} ${pad(r.n, 8)} ${pad(r.build ? r.build.seconds.toFixed(1) : 'cached', 9)} ${pad(f(r.build?.store?.mean_ms), 11)} | ` +
      `${pad(f(r.recall.mean_ms), 9)} ${pad(f(r.recall.p50_ms), 9)} ${pad(f(r.recall.p95_ms), 9)} ${pad(ratio('recall'), 13)} | ` +
      `${pad(f(r.reconstruct.mean_ms), 10)} ${pad(f(r.reconstruct.p50_ms), 9)} ${pad(f(r.reconstruct.p95_ms), 9)} ${pad(ratio('reconstruct'), 13)} | ` +
      `${pad(f(r.plain_scan_ms), 9)} ${pad(r.plain_scan_ms ? (r.recall.mean_ms / r.plain_scan_ms).toFixed(2) : '-', 9)}` +
      (storage === 'pages' ? ` | ${pad(f(r.wasm_bytes / 1048576, 1), 9)} ${pad(r.fits_in_isolate ?? '-', 4)}` : ''));
  }
}

let vsNative = null;
if (nativePath) {
  const native = JSON.parse(readFileSync(nativePath, 'utf8'));
  vsNative = [];
  console.log(`\nwasm / native (mean, p95), native from ${nativePath}`);
  console.log(`${'setting'.padEnd(8)} ${pad('n', 8)} | ${pad('recall mean', 12)} ${pad('recall p95', 11)} | ${pad('recon mean', 11)} ${pad('recon p95', 10)} | ${pad('store mean', 11)}`);
  for (const r of results) {
    const nr = native.results?.find((x) => x.n === r.n && x.setting === r.setting);
    if (!nr) { console.log(`${r.setting.padEnd(8)} ${pad(r.n, 8)} | no native row`); continue; }
    if (nr.fingerprint !== r.fingerprint) {
      console.log(`${r.setting.padEnd(8)} ${pad(r.n, 8)} | workload differs (fingerprint ${r.fingerprint} vs native ${nr.fingerprint}); not compared`);
      continue;
    }
    const q = (op, k) => (r[op]?.[k] != null && nr[op]?.[k] != null ? r[op][k] / nr[op][k] : null);
    const row = { n: r.n, setting: r.setting, recall_mean: q('recall', 'mean_ms'), recall_p95: q('recall', 'p95_ms'),
      reconstruct_mean: q('reconstruct', 'mean_ms'), reconstruct_p95: q('reconstruct', 'p95_ms'),
      store_mean: r.build && nr.build ? r.build.store.mean_ms / nr.build.store.mean_ms : null };
    vsNative.push(row);
    const x = (v) => (v == null ? '-' : `${v.toFixed(2)}x`);
    console.log(`${r.setting.padEnd(8)} ${pad(r.n, 8)} | ${pad(x(row.recall_mean), 12)} ${pad(x(row.recall_p95), 11)} | ` +
      `${pad(x(row.reconstruct_mean), 11)} ${pad(x(row.reconstruct_p95), 10)} | ${pad(x(row.store_mean), 11)}`);
  }
}

if (dump) writeFileSync(flag('--dump'), dump.join('\n') + '\n');

if (jsonPath) {
  const out = {
    bench: 'scale', engine: 'wasm-node', generator: GENERATOR, schema_version: schemaVersion,
    node: process.version, v8: process.versions.v8, package: pkgDir,
    queries: nQueries, rounds, warmup, dim,
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? null, os: process.platform, arch: process.arch },
    results, vs_native: vsNative,
  };
  writeFileSync(jsonPath, JSON.stringify(out, null, 1) + '\n');
  console.error(`wrote ${jsonPath}`);
}
