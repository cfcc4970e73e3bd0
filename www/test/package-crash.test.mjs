// Crash trials through the packed package in Chromium (crash.mjs): the OPFS worker is
// terminated, or its page closed, in the middle of a stream of stores; reopened, the memory
// must pass integrity_check, hold every acknowledged store, and no store may be half there.
// A handful here; www/bench/crash-bench.mjs runs a hundred (BENCHMARKS.md).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { build, preview } from 'vite';
import { chromium } from 'playwright-core';
import { CONSUMER } from './pack.mjs';
import { CHROMIUM, CHROMIUM_ARGS, offline, watch } from './harness.mjs';
import { crashTrial } from './crash.mjs';

describe('crash trials on an OPFS memory', () => {
  let browser;
  let context;
  let server;
  let url;
  const problems = [];

  before(async () => {
    const root = join(CONSUMER, 'driver');
    await build({ root, logLevel: 'warn', build: { outDir: 'dist', emptyOutDir: true } });
    server = await preview({ root, logLevel: 'warn', preview: { port: 0, host: '127.0.0.1' } });
    url = server.resolvedUrls.local[0];
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext();
    await offline(context, problems);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const [mode, afters] of [['terminate', [5, 17, 31]], ['close', [9, 23]]]) {
    it(`keeps every acknowledged store whole when the worker is ${mode === 'terminate' ? 'terminated' : 'ended by closing its page'} mid-stream`, async () => {
      for (const after of afters) {
        const r = await crashTrial(context, url, { mode, name: `crash-${mode}-${after}-${Date.now()}`, after, watch: (p) => watch(p, problems) });
        assert.deepEqual(r.integrity, { ok: true, problems: [] }, JSON.stringify(r));
        assert.ok(r.acked >= after, JSON.stringify(r));
        assert.deepEqual(r.lost, [], `acknowledged stores lost: ${JSON.stringify(r)}`);
        assert.deepEqual(r.half, [], `half-applied stores: ${JSON.stringify(r)}`);
        assert.ok(r.present >= r.acked, JSON.stringify(r));
      }
      assert.deepEqual(problems, []);
    });
  }
});
