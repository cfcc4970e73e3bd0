// Explorer undo benchmark (not a test): what keeping a step to undo costs (www/explorer/
// history.ts), on the demo corpus and on the 5,000-entity memory of explorer-bench.mjs (explorer-memory.mjs) (in the
// page's memory, then in OPFS), in headless Chromium through the page's own controls:
//   - per step, the history's own time (two exports and two page comparisons; the write
//     itself left out) and the bytes it keeps (the step's reverse page delta),
//   - per undo, the time from the click to the restored memory and the page refreshed.
//
//   node www/bench/undo-bench.mjs [--json out.json]
//
// Needs pkg/ (scripts/build-wasm.sh); builds the explorer into www/dist/undo-bench/.

import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { buildPage, servePages } from '../explorer/build.mjs';
import { AGENT, generate } from './explorer-memory.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : fallback; };
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DB = join(ROOT, 'test-output/undo-bench.sqlite');
mkdirSync(join(ROOT, 'test-output'), { recursive: true });
writeFileSync(DB, (await generate()).bytes);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

await buildPage('explorer', 'undo-bench');
const server = await servePages({ port: 0 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'],
});
const results = { chromium: browser.version() };
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => console.error('pageerror', e.message));
  await page.goto(new URL('undo-bench/', server.url).href);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 120_000 });

  const select = async (name) => {
    await page.fill('#entity-input', name);
    await page.press('#entity-input', 'Enter');
    await page.waitForFunction((n) => document.querySelector('#panel').dataset.name === n, name, { timeout: 60_000 });
  };
  const steps = () => page.locator('#history').getAttribute('data-steps').then(Number);
  /** One step through the page's controls; its history overhead and the bytes it keeps. */
  async function step(run) {
    const n = await steps();
    const held = Number(await page.locator('#history').getAttribute('data-bytes'));
    await run();
    await page.waitForFunction((k) => Number(document.querySelector('#history').dataset.steps) === k + 1, n, { timeout: 60_000 });
    return { ms: Number(await page.locator('#history').getAttribute('data-last-step-ms')), bytes: Number(await page.locator('#history').getAttribute('data-bytes')) - held };
  }
  const alias = (name, text) => step(async () => {
    await select(name);
    await page.fill('[data-testid="alias-input"]', text);
    await page.click('[data-testid="alias-btn"]');
  });
  const remove = (name) => step(async () => {
    await select(name);
    await page.click('[data-testid="delete-btn"]');
    await page.click('[data-testid="confirm-ok"]');
  });
  /** The newest step undone from the History tab: click to the page refreshed. */
  async function undo() {
    const n = await steps();
    await page.click('[data-testid="tab-history"]');
    const t = performance.now();
    await page.click('[data-testid="history-undo"]');
    await page.waitForFunction((k) => Number(document.querySelector('#history').dataset.steps) === k - 1
      && document.querySelector('#panel [data-testid="notice"]')?.textContent.startsWith('Undone'), n, { timeout: 60_000 });
    const ms = performance.now() - t;
    await page.click('[data-testid="tab-graph"]');
    return ms;
  }
  async function run(label, names) {
    const size = await page.evaluate(async () => (await window.__explorer.memory.export()).length);
    const base = await steps();
    const taken = [];
    for (let i = 0; i < 5; i++) taken.push(await alias(names[i % names.length], `bench alias ${i}`));
    for (const name of names.slice(0, 3)) taken.push(await remove(name));
    const undos = [];
    while (await steps() > base) undos.push(await undo());
    const out = {
      database_bytes: size,
      step_overhead_ms_median: median(taken.map((s) => s.ms)),
      step_overhead_ms_max: Math.max(...taken.map((s) => s.ms)),
      alias_kept_bytes_median: median(taken.slice(0, 5).map((s) => s.bytes)),
      delete_kept_bytes_median: median(taken.slice(5).map((s) => s.bytes)),
      undo_ms_median: median(undos),
      undo_ms_max: Math.max(...undos),
    };
    results[label] = out;
    console.log(label, out);
  }

  await page.waitForFunction(() => document.querySelector('#panel')?.dataset.name === 'Ledger Service');
  await run('demo', ['Ledger Service', 'Kaito Mori', 'Payments Service']);

  await page.fill('#agent', AGENT);
  await page.setInputFiles('#file', DB);
  await page.waitForSelector('#confirm[open]');
  await page.click('[data-testid="confirm-ok"]');
  await page.waitForFunction(() => document.querySelector('#status').dataset.imported === 'undo-bench.sqlite' && document.querySelector('#status').dataset.state === 'ready', null, { timeout: 120_000 });
  results.entities = Number(await page.locator('#status').getAttribute('data-entities'));
  await run('entities_5000', ['Entity 0000', 'Entity 0001', 'Entity 0002']);

  // The same memory in OPFS: every export and import crosses to the memory's worker.
  await page.selectOption('#source', 'opfs');
  await page.fill('#opfs-name', `undo-bench-${Date.now()}`);
  await page.click('#opfs-open');
  for (;;) {
    await page.waitForSelector('#confirm[open]');
    const fill = /Fill it/.test(await page.textContent('#confirm-text'));
    await page.click(fill ? '[data-testid="confirm-cancel"]' : '[data-testid="confirm-ok"]'); // discard the in-page memory; leave the new one empty
    if (fill) break;
  }
  await page.waitForFunction(() => document.querySelector('#status').dataset.source === 'opfs' && document.querySelector('#status').dataset.state === 'ready', null, { timeout: 60_000 });
  // The in-page import above left the same file's name in `data-imported`: clear it, so the
  // wait below is for this import.
  await page.evaluate(() => { delete document.querySelector('#status').dataset.imported; });
  await page.fill('#agent', AGENT);
  await page.setInputFiles('#file', DB);
  await page.waitForSelector('#confirm[open]');
  await page.click('[data-testid="confirm-ok"]');
  await page.waitForFunction(() => document.querySelector('#status').dataset.imported === 'undo-bench.sqlite' && document.querySelector('#status').dataset.state === 'ready', null, { timeout: 120_000 });
  await run('opfs_entities_5000', ['Entity 0000', 'Entity 0001', 'Entity 0002']);
} finally {
  await browser.close();
  await server.close();
}
if (opt('json', null)) writeFileSync(opt('json'), `${JSON.stringify(results, null, 2)}\n`);
