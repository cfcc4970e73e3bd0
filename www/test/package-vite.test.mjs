// The packed package in consumer apps built with Vite (no Vite configuration), in headless
// Chromium: storage 'opfs' stores and declares, the page reloads and the memory and its
// graph are still there, a second tab opening the same memory uses it through the first
// (package-tabs.test.mjs tests that in depth), a worker that dies rejects every call with `worker_crashed` instead of
// leaving it hanging, and the README's quick start runs as written. No page may log an error.
// Screenshots: test-output/vite-*.png.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, createServer, preview } from 'vite';
import { chromium } from 'playwright-core';
import { CONSUMER } from './pack.mjs';
import { CHROMIUM, CHROMIUM_ARGS, offline, watch } from './harness.mjs';

const APP = join(CONSUMER, 'app');
const OUT = fileURLToPath(new URL('../../test-output/', import.meta.url));

/** The first ```js block of the npm README's (www/README.md) "Quick start" section, exactly as written. */
function quickStart() {
  const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const match = section.match(/```js\n([\s\S]*?)```/);
  assert.ok(match, 'www/README.md has a js block under ## Quick start');
  return match[1];
}

describe('Vite apps using the package in Chromium', () => {
  const servers = [];
  let browser;
  let context;
  const problems = [];

  /** Builds the app in `root` with Vite and serves it; returns its URL. */
  async function serveBuilt(root) {
    await build({ root, logLevel: 'warn', build: { outDir: 'dist', emptyOutDir: true } });
    const server = await preview({ root, logLevel: 'warn', preview: { port: 0, host: '127.0.0.1', strictPort: false } });
    servers.push(server);
    return server.resolvedUrls.local[0];
  }

  /** A new tab that records every console error, page error and failed or external request. */
  async function tab() {
    const page = await context.newPage();
    watch(page, problems);
    return page;
  }
  async function settled(page) {
    await page.waitForFunction(() => document.body.dataset.state, null, { timeout: 20000 });
    return page.evaluate(() => window.result);
  }

  before(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 900, height: 520 } });
    await offline(context, problems);
  });

  after(async () => {
    await browser?.close();
    for (const server of servers) await server.close();
  });

  it('keeps the memory and its graph across a reload, and shares it with a second tab', async () => {
    const url = await serveBuilt(APP);
    const page = await tab();
    await page.goto(`${url}?write`);
    const first = await settled(page);
    assert.equal(first.storage, 'opfs', JSON.stringify(first));
    assert.deepEqual(first.graph.entities.map((e) => e.name), ['Ledger Service', 'Kaito Mori', 'Ledger DB']);
    await page.screenshot({ path: join(OUT, 'vite-opfs-written.png') });

    await page.goto(url); // a reload without ?write: nothing is stored this time
    const reloaded = await settled(page);
    assert.deepEqual(reloaded.graph, first.graph, 'the graph survived the reload');
    assert.deepEqual(reloaded.graph.entities[0].mentions, ['mem:1']);
    await page.screenshot({ path: join(OUT, 'vite-opfs-reloaded.png') });

    // A second tab uses the memory through the first one's worker.
    const second = await tab();
    await second.goto(url);
    const shared = await settled(second);
    assert.deepEqual(shared.graph, first.graph, JSON.stringify(shared));
    await second.screenshot({ path: join(OUT, 'vite-opfs-second-tab.png') });

    // Once the first tab closes its memory, the second takes it over and carries on.
    await page.evaluate(() => window.memory.close());
    const taken = await second.evaluate(() => window.memory.agent('pm-bot', { project_id: 'ledger' }).traverse({ entity: '台帳サービス', max_hops: 2 }));
    assert.deepEqual(taken, first.graph);
    assert.deepEqual(problems, []);
  });

  it('rejects every pending call, and every later one, when the worker dies', async () => {
    const url = await serveBuilt(APP);
    // Two ways the real worker dies: an uncaught error (the page gets an `error` event) and
    // closing itself (no event; its Web Lock comes free). Each time, the worker is kept busy
    // first, so the calls the page makes meanwhile are waiting in its queue when it dies.
    for (const [how, message] of [['throws', /Uncaught Error: the worker broke/], ['closes itself', /worker ended/]]) {
      const page = await tab();
      const started = page.waitForEvent('worker');
      await page.goto(`${url}?write`);
      assert.equal((await settled(page)).storage, 'opfs');
      await (await started).evaluate((how) => {
        const busy = (ms) => { const end = Date.now() + ms; while (Date.now() < end); };
        setTimeout(() => {
          busy(1000);
          if (how === 'closes itself') self.close();
          // From a microtask, so the worker stays busy (and would then answer) unless the page ends it.
          else { queueMicrotask(() => { throw new Error('the worker broke'); }); queueMicrotask(() => busy(5000)); }
        });
      }, how);
      const { pending, later } = await page.evaluate(async () => {
        const bot = window.memory.agent('pm-bot', { project_id: 'ledger' });
        const settle = (calls) => Promise.race([
          Promise.allSettled(calls).then((rs) => rs.map((r) => (r.status === 'rejected' ? { code: r.reason.code, message: r.reason.message } : r))),
          new Promise((resolve) => { setTimeout(() => resolve('still pending after 10 s'), 10_000); }),
        ]);
        const pending = await settle([bot.store({ content: 'never stored' }), bot.traverse({ entity: 'Kaito Mori' }), window.memory.export()]);
        return { pending, later: await settle([bot.recall({ query: 'ledger' }), window.memory.export()]) };
      });
      for (const outcome of [pending, later]) {
        assert.ok(Array.isArray(outcome), `${how}: ${JSON.stringify(outcome)}`);
        for (const result of outcome) {
          assert.equal(result.code, 'worker_crashed', `${how}: ${JSON.stringify(result)}`);
          assert.match(result.message, message);
        }
      }
      await page.close();
    }
    // The dead workers let go of the memory: a new tab opens it, with nothing lost.
    const page = await tab();
    await page.goto(url);
    assert.deepEqual((await settled(page)).graph.entities.map((e) => e.name), ['Ledger Service', 'Kaito Mori', 'Ledger DB']);
    assert.deepEqual(problems, []);
  });

  it("works under Vite's dev server with the README's one setting", async () => {
    const dev = await createServer({ root: APP, logLevel: 'warn', optimizeDeps: { exclude: ['associative-memory'] }, server: { port: 0, host: '127.0.0.1' } });
    await dev.listen();
    servers.push(dev);
    const page = await tab();
    await page.goto(`${dev.resolvedUrls.local[0]}?write`);
    const result = await settled(page);
    assert.equal(result.storage, 'opfs', JSON.stringify(result));
    assert.equal(result.graph.entities.length, 3);
    await page.close();
  });

  it("runs the README's quick start as written", async () => {
    const root = join(CONSUMER, 'readme');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>README quick start</title>' +
      '<pre id="out">running the quick start…</pre><script type="module" src="./main.js"></script>');
    // The snippet, then a line that shows what it produced.
    writeFileSync(join(root, 'main.js'), `${quickStart()}
window.result = { storage: memory.storage, answer, graph, tools, result };
document.getElementById('out').textContent = JSON.stringify(window.result, null, 1);
document.body.dataset.state = 'done';
`);
    const page = await tab();
    await page.goto(await serveBuilt(root));
    await page.waitForFunction(() => document.body.dataset.state, null, { timeout: 20000 });
    const { storage, answer, graph, tools, result } = await page.evaluate(() => window.result);
    await page.screenshot({ path: join(OUT, 'vite-readme.png') });
    assert.equal(storage, 'opfs');
    assert.equal(answer.items[0].head_ref, 'mem:1', JSON.stringify(answer));
    assert.deepEqual(graph.entities.map((e) => e.name), ['Ledger Service', 'Kaito Mori']);
    assert.deepEqual(tools.map((t) => t.name), ['store', 'recall', 'reconstruct', 'traverse', 'declare_associations', 'get_contents', 'delete_memory', 'list_memories', 'update_memory', 'delete_agent_data', 'list_entities', 'history']);
    assert.deepEqual(result.relations.map((r) => r.predicate), ['maintains']);
    assert.deepEqual(problems, []);
  });
});
