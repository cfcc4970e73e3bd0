// End-to-end test of the traverse demo in headless Chromium.
//
//   node --test www/test/demo.test.mjs
//
// Needs the wasm package in pkg/ (scripts/build-wasm.sh), playwright-core, and Chromium at
// /usr/bin/chromium (or CHROMIUM_PATH). Screenshots go to test-output/demo-*.png.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../serve.mjs';
import { CHROMIUM, CHROMIUM_ARGS, offline, watch } from './harness.mjs';

const OUT = fileURLToPath(new URL('../../test-output/', import.meta.url));
const PKG = fileURLToPath(new URL('../../pkg/associative_memory.js', import.meta.url));

// The corpus declares "Ledger Service" with the aliases ledger-svc, 台帳サービス and
// "the ledger"; Kaito Mori maintains it (mem:2), and it depends on Ledger DB (mem:3).
const JAPANESE_ALIAS = '台帳サービス';
const START = 'Ledger Service';

describe('traverse demo', { skip: existsSync(PKG) ? false : `no wasm package at ${PKG}; run scripts/build-wasm.sh` }, () => {
  let server;
  let browser;
  let page;
  const problems = [];

  const shot = (name) => page.screenshot({ path: `${OUT}demo-${name}.png`, fullPage: true });
  const rows = () => page.locator('[data-testid="entity-row"]');
  const relationRows = () => page.locator('[data-testid="relation-row"]');

  async function search(text) {
    await page.fill('#entity-input', text);
    await page.press('#entity-input', 'Enter');
  }

  before(async () => {
    await mkdir(OUT, { recursive: true });
    server = await serve({ port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watch(page, problems);
    await offline(page, problems);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('serves the page, the corpus and the wasm with the right types', async () => {
    const base = new URL('/', server.url);
    const wasm = await fetch(new URL('/pkg/associative_memory_bg.wasm', base));
    assert.equal(wasm.headers.get('content-type'), 'application/wasm');
    const root = await fetch(base, { redirect: 'manual' });
    assert.equal(root.status, 302);
    assert.equal(root.headers.get('location'), '/www/demo/');
    const corpus = await (await fetch(new URL('corpus.json', server.url))).json();
    assert.ok(corpus.memories.length >= 80);
  });

  it('loads the corpus into an in-memory database', async () => {
    await page.goto(server.url);
    await page.waitForSelector('#status[data-state="ready"], #status[data-state="error"]', { timeout: 60_000 });
    const status = page.locator('#status');
    assert.equal(await status.getAttribute('data-state'), 'ready', await status.textContent());
    const memories = Number(await status.getAttribute('data-memories'));
    const entities = Number(await status.getAttribute('data-entities'));
    assert.ok(memories >= 50, `status reports ${memories} memories`);
    assert.match(await status.textContent(), new RegExp(`Loaded ${memories} memories, ${entities} entities`));
    assert.ok(entities >= 25, `status reports ${entities} entities`);
    assert.equal(await status.getAttribute('data-dropped'), '0', 'no declaration in the corpus is dropped');
    const options = await page.locator('#entity-suggestions option').count();
    assert.ok(options > entities, `datalist holds names and aliases (${options})`);
    assert.equal(await page.locator(`#entity-suggestions option[value="${JAPANESE_ALIAS}"]`).count(), 1);
    await shot('loaded');
  });

  it('traverses from a Japanese alias', async () => {
    await search(JAPANESE_ALIAS);
    await page.waitForSelector('#result:not([hidden])');
    const start = rows().first();
    assert.equal(await start.getAttribute('data-name'), START);
    assert.equal(await start.getAttribute('data-hops'), '0');
    assert.match(await start.locator('[data-testid="entity-aliases"]').textContent(), /台帳サービス/);

    const hopsOf = async (name) => page.locator(`[data-testid="entity-row"][data-name="${name}"]`).getAttribute('data-hops', { timeout: 2000 });
    assert.equal(await hopsOf('Kaito Mori'), '1');
    assert.equal(await hopsOf('Ledger DB'), '1');
    assert.equal(await hopsOf('Payments Service'), '1');
    // Two hops out: Kaito Mori is a member of the Wallet Team.
    assert.equal(await hopsOf('Wallet Team'), '2');

    const maintains = page.locator('[data-testid="relation-row"][data-subject="Kaito Mori"][data-predicate="maintains"][data-object="Ledger Service"]');
    assert.equal(await maintains.count(), 1);
    assert.match(await maintains.locator('[data-testid="relation-text"]').textContent(), /Kaito Mori\s*—maintains→\s*Ledger Service/);
    assert.match(await maintains.textContent(), /anchor\s*mem:2/);
    assert.match(await maintains.locator('[data-testid="relation-declared-at"]').textContent(), /^2026-09-28 09:10$/);
    assert.equal(await page.locator('[data-testid="relation-row"][data-subject="Ledger Service"][data-predicate="depends_on"][data-object="Ledger DB"]').count(), 1);

    // Two hops from Ledger Service reach 19 entities in this corpus: all fit in limit 20.
    const count = await rows().count();
    assert.ok(count >= 15 && count <= 20, `two hops give ${count} entities`);
    assert.ok(await relationRows().count() >= count - 1, 'a connected neighbourhood has at least n-1 relations');
    assert.match(await page.locator('#result-summary').textContent(), /found by “台帳サービス”/);
    await shot('traverse');
  });

  it('says what a smaller limit cut', async () => {
    await page.fill('#limit', '8');
    await page.click('#search-btn');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="entity-row"]').length === 8);
    const omitted = page.locator('#omitted');
    assert.ok(await omitted.isVisible());
    assert.ok(Number(await omitted.getAttribute('data-entities-omitted')) > 0);
    assert.match(await omitted.textContent(), /more entities not shown/);
    // Entities are cut by hops first, so the whole first ring survives.
    for (const name of ['Ledger Service', 'Kaito Mori', 'Ledger DB', 'Payments Service', 'Payouts Batch', 'Refund Flow v2']) {
      assert.equal(await page.locator(`[data-testid="entity-row"][data-name="${name}"]`).count(), 1, name);
    }
    // limit bounds the refs listed per entity too; Kaito Mori is mentioned far more than 8 times.
    const kaito = page.locator('[data-testid="entity-row"][data-name="Kaito Mori"]');
    assert.equal(await kaito.locator('[data-testid="mention-ref"]').count(), 8);
    assert.match(await kaito.locator('[data-testid="mentions-omitted"]').textContent(), /^\+\d+ more$/);
    await shot('limit');
    await page.fill('#limit', '20');
  });

  it('shows fewer entities at max_hops 0, and more again at 1', async () => {
    const atTwo = await rows().count();
    await page.selectOption('#max-hops', '0');
    await page.click('#search-btn');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="entity-row"]').length === 1);
    assert.equal(await rows().first().getAttribute('data-name'), START);
    assert.equal(await relationRows().count(), 0);
    assert.ok(await page.locator('#no-relations').isVisible());
    await shot('hops0');

    await page.selectOption('#max-hops', '1');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="entity-row"]').length > 1);
    const atOne = await rows().count();
    assert.ok(atOne > 1 && atOne < atTwo + 1, `hop 1 gives ${atOne}`);
    for (const handle of await rows().all()) assert.ok(['0', '1'].includes(await handle.getAttribute('data-hops')));
  });

  it('shows a mentioned record when its ref is clicked', async () => {
    const ref = page.locator('[data-testid="entity-row"][data-name="Ledger Service"] [data-testid="mention-ref"]').first();
    const refText = (await ref.textContent()).trim();
    assert.match(refText, /^mem:\d+$/);
    await ref.click();
    await page.waitForSelector('#content:not([hidden])');
    assert.equal(await page.locator('#content-ref').textContent(), refText);
    const text = await page.locator('#content-text').textContent();
    assert.match(text, /Ledger Service|ledger/i);
    assert.match(await page.locator('#content-time').textContent(), /^2026-\d\d-\d\d \d\d:\d\d$/);
    await shot('mention');
  });

  it('finds a person and a customer by their hiragana aliases', async () => {
    await page.selectOption('#max-hops', '1');
    await search('かいと');
    await page.waitForFunction(() => document.querySelector('[data-testid="entity-row"]')?.dataset.name === 'Kaito Mori');
    assert.equal(await page.locator('[data-testid="relation-row"][data-subject="Kaito Mori"][data-predicate="maintains"][data-object="Fraud Scoring"]').count(), 1);
    await search('さくらマート');
    await page.waitForFunction(() => document.querySelector('[data-testid="entity-row"]')?.dataset.name === 'Sakura Mart');
    assert.equal(await page.locator('[data-testid="entity-row"][data-name="Takeshi Ono"]').count(), 1);
  });

  it('says so when no entity has the name', async () => {
    await search('Nonexistent Zebra Service');
    await page.waitForSelector('#no-such-entity:not([hidden])');
    assert.match(await page.locator('#no-such-entity').textContent(), /No such entity.*Nonexistent Zebra Service/);
    assert.ok(await page.locator('#result').isHidden());
    await shot('missing');
  });

  it('logged no errors', () => {
    assert.deepEqual(problems, []);
  });
});

