#!/usr/bin/env node
// Cold start, from process or page start to the first result (BENCHMARKS.md, "Package size and cold start"):
// the time from a fresh Node process's start (`performance.timeOrigin`), or a fresh Chromium
// page's navigation start, to the answer of the first recall, after importing the packed
// package, `openMemory`, and one `store`. Each run is a fresh process, or a page in a fresh
// browser context (no HTTP or code cache: a first visit); the browser itself is started once.
//
//   Node, storage 'memory' and 'file' (a new file each run)
//   Chromium, a page with storage 'memory'
//   Chromium, storage 'opfs' in a fresh off-the-record context (OPFS in the browser's memory)
//     and in a fresh profile on disk (a browser started per run, as a first visit)
//
// Also, as the floor nothing in the package can lower: Node's own start (an empty script's
// first line) and a page's (an empty module script's first line).
//
// Runs take turns across targets and packages, RUNS rounds (default 10); each figure is the
// median, with the range. With `--consumer label=DIR` (repeatable) it times other installs of
// the package side by side (a consumer project as www/test/pack.mjs makes, say a copy taken
// before a change); by default, www/test/pack.mjs's. Prints markdown; --json FILE saves it.
//
//   make build && node www/test/pack.mjs && node www/bench/cold-start-bench.mjs [--runs N] [--json out.json]

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CONSUMER } from '../test/pack.mjs';

const argv = process.argv.slice(2);
const arg = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);

/** What each run does, the same before and after any change: one store, one recall. */
const FIRST = { agent_id: 'a', content: 'Kaito maintains the ledger service since the migration.' };
const QUERY = { agent_id: 'a', query: 'who maintains the ledger' };

if (argv[0] === '--node-child') {
  // A fresh process. performance.now() counts from the process's start.
  const [, consumer, storage, path] = argv;
  const marks = { script: performance.now() };
  if (storage === 'none') {
    const cpu = process.cpuUsage();
    marks.cpu = (cpu.user + cpu.system) / 1000;
    process.stdout.write(JSON.stringify(marks));
    process.exit(0);
  }
  const entry = createRequire(join(consumer, 'index.js')).resolve('associative-memory');
  const { openMemory } = await import(pathToFileURL(entry).href);
  marks.imported = performance.now();
  const memory = await openMemory(storage === 'file' ? { storage, path } : {});
  marks.opened = performance.now();
  await memory.store(FIRST);
  marks.stored = performance.now();
  const { messages } = await memory.recall(QUERY);
  marks.first_result = performance.now();
  // CPU time (every thread's: V8 compiles wasm on background threads) to the first result:
  // less moved by other processes than the time is.
  const cpu = process.cpuUsage();
  marks.cpu = (cpu.user + cpu.system) / 1000;
  if (messages.length !== 1) throw new Error(`the first recall found ${messages.length} memories`);
  await memory.close();
  process.stdout.write(JSON.stringify(marks));
  process.exit(0);
}

const RUNS = Number(arg('--runs', 10));
const jsonOut = arg('--json', null);
const consumers = argv.flatMap((a, i) => (a === '--consumer' ? [argv[i + 1]] : [])).map((spec) => {
  const at = spec.indexOf('=');
  return { label: spec.slice(0, at), dir: resolve(spec.slice(at + 1)) };
});
if (consumers.length === 0) consumers.push({ label: 'this tree', dir: CONSUMER });

const only = arg('--only', null)?.split(',');
const pages = !only || only.some((key) => key.startsWith('page_'));
// Imported only by the parent: the child's start path stays the package's alone.
const { chromium } = await import('playwright-core');
const { build, preview } = await import('vite');
const { CHROMIUM, CHROMIUM_ARGS } = await import('../test/harness.mjs');

const scratch = mkdtempSync(join(tmpdir(), 'am-cold-'));

/** The page: static imports, as an app bundles the package. `?storage=none` is the empty page. */
const PAGE = `
import { openMemory } from 'associative-memory';
const storage = new URLSearchParams(location.search).get('storage');
const marks = { script: performance.now() };
if (storage !== 'none') {
  const memory = await openMemory({ storage, name: 'cold-' + Date.now() + '-' + Math.random().toString(36).slice(2) });
  marks.opened = performance.now();
  await memory.store(${JSON.stringify(FIRST)});
  marks.stored = performance.now();
  const { messages } = await memory.recall(${JSON.stringify(QUERY)});
  marks.first_result = performance.now();
  if (messages.length !== 1) throw new Error('the first recall found ' + messages.length + ' memories');
  await memory.close();
}
window.result = marks;
`;
const EMPTY = 'window.result = { script: performance.now() };';

// A Vite build of the page against each consumer's installed package, each served on its own port.
for (const c of pages ? consumers : []) {
  const app = join(c.dir, 'cold-start');
  rmSync(app, { recursive: true, force: true });
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>cold start</title><script type="module" src="./main.js"></script>');
  writeFileSync(join(app, 'empty.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>empty</title><script type="module" src="./empty.js"></script>');
  writeFileSync(join(app, 'main.js'), PAGE);
  writeFileSync(join(app, 'empty.js'), EMPTY);
  await build({
    root: app, logLevel: 'warn',
    build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', rollupOptions: { input: { main: join(app, 'index.html'), empty: join(app, 'empty.html') } } },
  });
  c.server = await preview({ root: app, logLevel: 'warn', preview: { port: 0, host: '127.0.0.1' } });
  c.url = c.server.resolvedUrls.local[0];
}

const browser = pages ? await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }) : null;

async function inPage(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => window.result || document.title === 'failed', null, { timeout: 60000 }).catch((e) => { throw new Error(`${url}: ${errors.join('; ') || e.message}`); });
  return page.evaluate(() => window.result);
}

const targets = {
  node_empty: { name: 'Node: an empty script (the floor)', run: (c) => nodeRun(c, 'none') },
  node_memory: { name: "Node, storage 'memory'", run: (c) => nodeRun(c, 'memory') },
  node_file: { name: "Node, storage 'file' (a new file)", run: (c) => nodeRun(c, 'file', join(scratch, `${c.label.replace(/\W/g, '_')}-${Date.now()}.sqlite3`)) },
  page_empty: { name: 'Chromium: an empty page (the floor)', run: (c) => fresh((ctx) => inPage(ctx, `${c.url}empty.html`)) },
  page_memory: { name: "Chromium page, storage 'memory'", run: (c) => fresh((ctx) => inPage(ctx, `${c.url}?storage=memory`)) },
  page_opfs: { name: "Chromium, storage 'opfs', a fresh off-the-record context", run: (c) => fresh((ctx) => inPage(ctx, `${c.url}?storage=opfs`)) },
  page_opfs_disk: { name: "Chromium, storage 'opfs', a fresh profile on disk", run: (c) => onDisk((ctx) => inPage(ctx, `${c.url}?storage=opfs`)) },
};

function nodeRun(c, storage, path = '') {
  return JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--node-child', c.dir, storage, path], { encoding: 'utf8' }));
}
async function fresh(f) {
  const context = await browser.newContext();
  try {
    return await f(context);
  } finally {
    await context.close();
  }
}
async function onDisk(f) {
  const profile = mkdtempSync(join(scratch, 'profile-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    return await f(context);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

for (const key of Object.keys(targets)) if (only && !only.includes(key)) delete targets[key];

const results = {};
for (let round = 0; round < RUNS; round++) {
  for (const [key, target] of Object.entries(targets)) {
    // Alternate which package goes first, so neither always follows the other.
    const order = round % 2 ? [...consumers].reverse() : consumers;
    for (const c of order) {
      const marks = await target.run(c);
      ((results[key] ??= {})[c.label] ??= []).push(marks);
    }
  }
  process.stderr.write(`round ${round + 1}/${RUNS}\n`);
}
await browser?.close();
for (const c of consumers) await c.server?.close();
rmSync(scratch, { recursive: true, force: true });

// Markdown: each target's first result (process or page start to the recall's answer),
// median and range, then the phases' medians (each from the mark before it).
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const f = (x) => x.toFixed(0);
const summary = {};
const labels = consumers.map((c) => c.label);
console.log(`Cold start, ms from process or page start to the first result (median of ${RUNS}, range)\n`);
console.log(`| target | ${labels.join(' | ')}${labels.length > 1 ? ` | ${labels.slice(1).map((l) => `${l} ÷ ${labels[0]}`).join(' | ')}` : ''} | phases: ${labels.join(' / ')} |`);
console.log(`|---|${labels.map(() => '---').join('|')}|${labels.slice(1).map(() => '---|').join('')}---|`);
for (const [key, target] of Object.entries(targets)) {
  const cells = [];
  const medians = [];
  const phases = [];
  for (const label of labels) {
    const runs = results[key][label];
    const end = runs.map((m) => m.first_result ?? m.script);
    const m = median(end);
    medians.push(m);
    const names = Object.keys(runs[0]).filter((n) => n !== 'cpu');
    const phase = Object.fromEntries(names.map((n, i) => [n, median(runs.map((r) => r[n] - (i ? r[names[i - 1]] : 0)))]));
    const cpu = runs[0].cpu === undefined ? undefined : median(runs.map((r) => r.cpu));
    (summary[key] ??= {})[label] = { median_ms: m, min_ms: Math.min(...end), max_ms: Math.max(...end), phases_ms: phase, cpu_ms: cpu, runs };
    cells.push(`${f(m)} (${f(Math.min(...end))}–${f(Math.max(...end))})${cpu === undefined ? '' : `, CPU ${f(cpu)}`}`);
    phases.push(names.map((n) => `${n} ${f(phase[n])}`).join(', '));
  }
  const ratios = medians.slice(1).map((m) => `${(m / medians[0]).toFixed(2)}×`);
  console.log(`| ${target.name} | ${cells.join(' | ')}${ratios.length ? ` | ${ratios.join(' | ')}` : ''} | ${phases.join(' / ')} |`);
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ runs: RUNS, consumers, results: summary }, (k, v) => (k === 'server' ? undefined : v), 1));
