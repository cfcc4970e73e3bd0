#!/usr/bin/env node
// A hundred crash trials (www/test/crash.mjs) through the installed package in headless
// Chromium: half with the OPFS worker terminate()d mid-stream, half with its page closed,
// each killing after a different number of acknowledged stores. Prints the tally
// (BENCHMARKS.md, "Crash trials"); --json FILE saves every trial; --key PASSPHRASE runs
// them on encrypted memories. Not part of `make test` (package-crash.test.mjs runs eight).
//
//   make build && node www/test/pack.mjs && node www/bench/crash-bench.mjs [--trials 100] [--key K]

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, preview } from 'vite';
import { chromium } from 'playwright-core';
import { CONSUMER } from '../test/pack.mjs';
import { CHROMIUM, CHROMIUM_ARGS, watch } from '../test/harness.mjs';
import { crashTrial } from '../test/crash.mjs';

const argv = process.argv.slice(2);
const arg = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : null);
const trials = Number(arg('--trials') ?? 100);
const key = arg('--key') ?? undefined;

const root = join(CONSUMER, 'driver');
await build({ root, logLevel: 'warn', build: { outDir: 'dist', emptyOutDir: true } });
const server = await preview({ root, logLevel: 'warn', preview: { port: 0, host: '127.0.0.1' } });
const url = server.resolvedUrls.local[0];
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const context = await browser.newContext();
const problems = [];
const results = [];
const tally = { trials: 0, integrity_ok: 0, acked: 0, lost: 0, half: 0, unacked_but_present: 0, by_mode: {} };
for (let i = 0; i < trials; i++) {
  const mode = i % 2 ? 'close' : 'terminate';
  const after = 3 + ((i * 7) % 40);
  const r = await crashTrial(context, url, { mode, name: `crash-bench-${Date.now()}-${i}`, after, key, watch: (p) => watch(p, problems) });
  results.push({ mode, after, ...r });
  tally.trials++;
  tally.integrity_ok += r.integrity.ok ? 1 : 0;
  tally.acked += r.acked;
  tally.lost += r.lost.length;
  tally.half += r.half.length;
  tally.unacked_but_present += r.present - r.acked;
  const m = (tally.by_mode[mode] ??= { trials: 0, ok: 0 });
  m.trials++;
  m.ok += r.integrity.ok && !r.lost.length && !r.half.length ? 1 : 0;
  console.log(`trial ${i + 1} ${mode} after ${after}: integrity ${r.integrity.ok ? 'ok' : JSON.stringify(r.integrity.problems)}, ${r.acked} acknowledged, ${r.present} present, lost ${r.lost.length}, half ${r.half.length}`);
}
await browser.close();
await server.close();
console.log(JSON.stringify({ ...tally, page_problems: problems }, null, 1));
const out = arg('--json');
if (out) writeFileSync(out, JSON.stringify({ tally, results, problems }, null, 1));
