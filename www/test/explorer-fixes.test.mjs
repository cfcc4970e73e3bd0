// The explorer's fixes for issue 40 (nothing lost, nothing misleading), each in headless
// Chromium on the built page: the key prompt takes Enter, a destructive confirm starts on
// Cancel, a search that finds nothing clears the panel, curation errors sit beside their
// field and go with the next success, the header's count follows every write, hop counts
// are shortest distances, a replace asks first (with "Export first"), leaving unsaved
// in-page changes warns, a JSON import is checked whole before anything is stored, and
// re-importing an export into its own agent says so instead of doubling it.
//
//   node --test www/test/explorer-fixes.test.mjs      # after scripts/build-wasm.sh
//
// Screenshots go to test-output/explorer-fix-*.png, at 1440×900 and 390×844.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DESKTOP, OUT, PHONE, explorerSession } from './explorer-session.mjs';

const PKG = fileURLToPath(new URL('../../pkg/view.js', import.meta.url));

describe('explorer fixes', { skip: existsSync(PKG) ? false : `no package at ${PKG}; run scripts/build-wasm.sh` }, () => {
  const { open, problems } = explorerSession('explorer-fixes', { acceptDownloads: true });
  const shots = async (p, name) => {
    await p.screenshot({ path: `${OUT}explorer-fix-${name}.png` });
  };
  /** The same state at phone size too. */
  const both = async (p, name) => {
    await p.setViewportSize(DESKTOP);
    await shots(p, name);
    await p.setViewportSize(PHONE);
    await p.screenshot({ path: `${OUT}explorer-fix-${name}-phone.png`, fullPage: true });
    await p.setViewportSize(DESKTOP);
  };
  const entities = (p) => p.evaluate(async () => (await window.__explorer.agent.listEntities({ limit: 1 })).total);
  const memories = (p, agent) => p.evaluate(async (a) => (await (a ? window.__explorer.memory.agent(a) : window.__explorer.agent).listMemories({ limit: 1 })).total, agent);
  /** The page's database, as the Export button downloads it. */
  async function exportDb(p) {
    const [download] = await Promise.all([p.waitForEvent('download'), p.click('#export-btn')]);
    return readFileSync(await download.path());
  }
  async function addAlias(p, alias) {
    await p.fill('[data-testid="alias-input"]', alias);
    await p.click('[data-testid="alias-btn"]');
  }
  /** Accepts the replace question when it comes (importing a database file over an open memory). */
  async function replaceIfAsked(p, then) {
    await p.waitForSelector(`#confirm[open], ${then}`);
    if (await p.locator('#confirm').evaluate((d) => d.open)) await p.click('[data-testid="confirm-ok"]');
  }

  it('submits the key of an encrypted file on Enter (the prompt\'s first button is not Cancel)', async () => {
    const p = await open();
    const { Memory } = createRequire(import.meta.url)('../../pkg-node/associative_memory.js');
    const keyed = Memory.openInMemory(undefined, 'enter passphrase');
    keyed.import(await exportDb(p));
    const encrypted = Buffer.from(keyed.export());
    keyed.free();
    await p.setInputFiles('#file', { name: 'enter.sqlite', mimeType: 'application/octet-stream', buffer: encrypted });
    await replaceIfAsked(p, '#passphrase[open]');
    await p.waitForSelector('#passphrase[open]');
    await p.fill('#passphrase-input', 'enter passphrase');
    await both(p, 'passphrase');
    await p.press('#passphrase-input', 'Enter');
    await p.waitForFunction(() => document.querySelector('#status').dataset.state !== 'loading' && !document.querySelector('#passphrase').open);
    await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'enter.sqlite' || /needs its key|Could not/.test(document.querySelector('#status').textContent));
    assert.equal(await p.locator('#status').getAttribute('data-imported'), 'enter.sqlite', await p.locator('#status').textContent());
    // Escape and the Cancel button still cancel.
    await p.setInputFiles('#file', { name: 'again.sqlite', mimeType: 'application/octet-stream', buffer: encrypted });
    await replaceIfAsked(p, '#passphrase[open]');
    await p.waitForSelector('#passphrase[open]');
    await p.fill('#passphrase-input', 'enter passphrase');
    await p.click('[data-testid="passphrase-cancel"]');
    await p.waitForFunction(() => document.querySelector('#status').textContent.includes('again.sqlite needs its key'));
    await p.close();
  });

  it('focuses Cancel, the safe choice, in a destructive confirmation', async () => {
    const p = await open();
    const before = await entities(p);
    await p.click('[data-testid="delete-btn"]');
    await p.waitForSelector('#confirm[open]');
    assert.equal(await p.evaluate(() => document.activeElement?.dataset.testid), 'confirm-cancel');
    await both(p, 'confirm');
    await p.keyboard.press('Enter');
    await p.waitForFunction(() => !document.querySelector('#confirm').open);
    assert.equal(await entities(p), before, 'Enter on the confirmation deleted nothing');
    await p.close();
  });

  it('clears the side panel after a search that finds nothing', async () => {
    const p = await open();
    assert.equal(await p.locator('#panel [data-testid="delete-btn"]').count(), 1);
    await p.fill('#entity-input', 'Nobody By This Name');
    await p.press('#entity-input', 'Enter');
    await p.waitForFunction(() => window.__explorer.view.state().missing === 'Nobody By This Name');
    await p.waitForFunction(() => document.querySelector('#panel').dataset.kind === '');
    assert.equal(await p.locator('#panel [data-testid="delete-btn"]').count(), 0, 'no "Delete entity…" for an entity no longer shown');
    assert.equal(await p.locator('#panel [data-testid="panel-title"]').count(), 0);
    assert.match(await p.locator('#cut').textContent(), /No entity is named or aliased “Nobody By This Name”/);
    await both(p, 'not-found');
    await p.close();
  });

  it('shows a curation error beside its field, and the next success clears it', async () => {
    const p = await open();
    // Kaito Mori is another entity's name: the alias is dropped, and says why.
    await addAlias(p, 'Kaito Mori');
    const error = p.locator('#panel [data-testid="alias-error"]');
    await error.waitFor({ state: 'visible' });
    assert.match(await error.textContent(), /already names another entity/);
    assert.equal(await p.locator('[data-testid="alias-input"]').getAttribute('aria-invalid'), 'true');
    assert.equal(await p.locator('#error').isHidden(), true, 'not in the page\'s error line, far from the form');
    // It sits right under the alias form.
    const [form, line] = await Promise.all([p.locator('[data-testid="alias-form"]').boundingBox(), error.boundingBox()]);
    assert.ok(line.y >= form.y + form.height - 1 && line.y - (form.y + form.height) < 40, `the error is ${line.y - form.y - form.height}px under the form`);
    await both(p, 'curation-error');
    await addAlias(p, 'LS Fix Alias');
    await p.waitForSelector('#panel [data-testid="notice"]');
    assert.match(await p.locator('#panel [data-testid="notice"]').textContent(), /Added the alias “LS Fix Alias”/);
    assert.equal(await p.locator('#panel [data-testid="alias-error"]:visible').count(), 0);
    assert.equal(await p.locator('#error').isHidden(), true);
    await p.close();
  });

  it('keeps the entity count in the header current after every write', async () => {
    const p = await open();
    const count = async () => Number((await p.locator('#status').textContent()).match(/: (\d+) entit/)[1]);
    const before = await count();
    assert.equal(before, await entities(p));
    // A relation to an entity that did not exist adds one.
    await p.fill('[data-testid="predicate-input"]', 'audited_by');
    await p.fill('[data-testid="object-input"]', 'Count Check Auditor');
    await p.click('[data-testid="declare-btn"]');
    await p.waitForFunction((n) => Number(document.querySelector('#status').dataset.entities) === n + 1, before);
    assert.equal(await count(), before + 1);
    // Deleting it takes it away again.
    const id = await p.evaluate(() => window.__explorer.view.state().entities.find((e) => e.name === 'Count Check Auditor').id);
    await p.evaluate((e) => window.__explorer.view.select({ entity: e }), id);
    await p.waitForFunction(() => document.querySelector('#panel').dataset.name === 'Count Check Auditor');
    await p.click('[data-testid="delete-btn"]');
    await p.click('[data-testid="confirm-ok"]');
    await p.waitForFunction((n) => Number(document.querySelector('#status').dataset.entities) === n, before);
    assert.equal(await count(), before);
    await both(p, 'count');
    await p.close();
  });

  it('gives each node its shortest distance from the start, whatever order nodes were expanded in', async () => {
    const p = await open();
    await p.selectOption('#max-hops', '1');
    await p.fill('#entity-input', 'Ledger Service');
    await p.press('#entity-input', 'Enter');
    await p.waitForFunction(() => window.__explorer.view.state().entities.every((e) => e.ring <= 1) && document.querySelector('#graph').dataset.state !== 'loading');
    // Expand outward from the far side first: each time, a node of the largest ring.
    for (let i = 0; i < 6; i++) {
      await p.evaluate(async () => {
        const { view } = window.__explorer;
        const open = view.state().entities.filter((e) => !e.expanded).sort((a, b) => b.ring - a.ring || a.id - b.id);
        if (open[0]) await view.expand(open[0].id);
      });
    }
    const { rings, wrong } = await p.evaluate(() => {
      const s = window.__explorer.view.state();
      const start = s.entities.find((e) => e.name === 'Ledger Service').id;
      const next = new Map();
      for (const r of s.relations) {
        next.set(r.subject, [...(next.get(r.subject) ?? []), r.object]);
        next.set(r.object, [...(next.get(r.object) ?? []), r.subject]);
      }
      const dist = new Map([[start, 0]]);
      const queue = [start];
      while (queue.length) { const at = queue.shift(); for (const n of next.get(at) ?? []) if (!dist.has(n)) { dist.set(n, dist.get(at) + 1); queue.push(n); } }
      return {
        rings: s.entities.length,
        wrong: s.entities.filter((e) => dist.has(e.id) && dist.get(e.id) !== e.ring).map((e) => `${e.name}: ring ${e.ring}, distance ${dist.get(e.id)}`),
      };
    });
    assert.ok(rings > 10, `${rings} nodes drawn`);
    assert.deepEqual(wrong, []);
    // The panel says the same.
    const far = await p.evaluate(() => window.__explorer.view.state().entities.sort((a, b) => b.ring - a.ring)[0]);
    await p.evaluate((e) => window.__explorer.view.select({ entity: e }), far.id);
    await p.waitForFunction((name) => document.querySelector('#panel').dataset.name === name, far.name);
    assert.match(await p.locator('#panel').textContent(), new RegExp(`${far.ring} hops? from the start`));
    await both(p, 'hops');
    await p.close();
  });

  it('asks before a database file replaces the open memory, naming what goes, with Export first', async () => {
    const p = await open();
    const file = { name: 'replacement.sqlite', mimeType: 'application/octet-stream', buffer: await exportDb(p) };
    await addAlias(p, 'Only Here Before Replace');
    await p.waitForSelector('#panel [data-testid="notice"]');
    const [n, m] = [await entities(p), await memories(p)];
    await p.setInputFiles('#file', file);
    await p.waitForSelector('#confirm[open]');
    const text = await p.locator('#confirm-text').textContent();
    assert.match(text, new RegExp(`replacement\\.sqlite replaces the ${n} entities and ${m} memories of the demo corpus`));
    await both(p, 'replace');
    // Export first: a download, and the question stays.
    const [download] = await Promise.all([p.waitForEvent('download'), p.click('[data-testid="confirm-export"]')]);
    assert.match(download.suggestedFilename(), /\.sqlite$/);
    assert.equal(await p.locator('#confirm').evaluate((d) => d.open), true);
    // Cancel: nothing changes.
    await p.click('[data-testid="confirm-cancel"]');
    await p.waitForFunction(() => document.querySelector('#status').dataset.replaceCancelled === 'replacement.sqlite');
    assert.equal(await p.locator('#status').getAttribute('data-imported'), null);
    assert.deepEqual([await entities(p), await memories(p)], [n, m]);
    assert.equal(await p.evaluate(async () => (await window.__explorer.agent.traverse({ entity: 'Only Here Before Replace', max_hops: 0 })).entities.length), 1);
    // Dropped on the page: the same question; confirmed, the file replaces the memory.
    await p.evaluate(async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], 'dropped.sqlite', { type: 'application/octet-stream' }));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, file.buffer.toString('base64'));
    await p.waitForSelector('#confirm[open]');
    assert.match(await p.locator('#confirm-text').textContent(), /dropped\.sqlite replaces the/);
    await p.click('[data-testid="confirm-ok"]');
    await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'dropped.sqlite' && document.querySelector('#status').dataset.state === 'ready');
    assert.equal(await p.evaluate(async () => (await window.__explorer.agent.traverse({ entity: 'Only Here Before Replace', max_hops: 0 })).reason), 'no_such_entity');
    await p.close();
  });

  it('asks before switching away from unsaved changes to an in-page memory, and before replacing an OPFS memory', async () => {
    const p = await open();
    await addAlias(p, 'Kept Through Switches');
    await p.waitForSelector('#panel [data-testid="notice"]');
    const kept = () => p.evaluate(async () => (await window.__explorer.agent.traverse({ entity: 'Kept Through Switches', max_hops: 0 })).entities.length);
    // Another OPFS memory: asked, cancelled, nothing changes.
    await p.selectOption('#source', 'opfs');
    await p.fill('#opfs-name', 'fix-switch');
    await p.click('#opfs-open');
    await p.waitForSelector('#confirm[open]');
    assert.match(await p.locator('#confirm-text').textContent(), /Opening the OPFS memory “fix-switch” closes the demo corpus, whose changes .* are not exported/);
    assert.equal(await p.locator('[data-testid="confirm-export"]').isVisible(), true);
    await p.click('[data-testid="confirm-cancel"]');
    await p.waitForFunction(() => document.querySelector('#source').value === 'demo');
    assert.equal(await kept(), 1);
    // The demo again: asked too.
    await p.selectOption('#source', 'opfs');
    await p.selectOption('#source', 'demo');
    await p.waitForSelector('#confirm[open]');
    assert.match(await p.locator('#confirm-text').textContent(), /Loading the demo corpus again closes the demo corpus/);
    await p.click('[data-testid="confirm-cancel"]');
    await p.waitForFunction(() => document.querySelector('#source').value === 'demo');
    assert.equal(await kept(), 1);
    // Confirmed: the OPFS memory opens (filled with the demo), and a database file over it asks first.
    const file = { name: 'over-opfs.sqlite', mimeType: 'application/octet-stream', buffer: await exportDb(p) };
    await p.selectOption('#source', 'opfs');
    await p.fill('#opfs-name', 'fix-replace');
    await p.click('#opfs-open');
    await p.waitForFunction(() => document.querySelector('#confirm').open || document.querySelector('#status').textContent.startsWith('OPFS memory fix-replace'));
    if (await p.locator('#confirm').evaluate((d) => d.open)) await p.click('[data-testid="confirm-ok"]'); // fill it
    await p.waitForFunction(() => document.querySelector('#status').dataset.state === 'ready' && document.querySelector('#status').textContent.startsWith('OPFS memory fix-replace'), null, { timeout: 60_000 });
    const n = await entities(p);
    await p.setInputFiles('#file', file);
    await p.waitForSelector('#confirm[open]');
    assert.match(await p.locator('#confirm-text').textContent(), new RegExp(`over-opfs\\.sqlite replaces the ${n} entities and \\d+ memories of the OPFS memory “fix-replace”`));
    await p.click('[data-testid="confirm-cancel"]');
    await p.waitForFunction(() => document.querySelector('#status').dataset.replaceCancelled === 'over-opfs.sqlite');
    assert.equal(await entities(p), n);
    await p.close();
  });

  it('warns before leaving the page with unsaved changes to an in-page memory', async () => {
    // Unchanged: the page closes without asking.
    const clean = await open();
    let asked = false;
    clean.on('dialog', (d) => { asked = true; void d.accept(); });
    await clean.close({ runBeforeUnload: true });
    await new Promise((r) => { setTimeout(r, 500); });
    assert.equal(asked, false);
    // Edited: it asks.
    const p = await open();
    await addAlias(p, 'Unsaved Alias');
    await p.waitForSelector('#panel [data-testid="notice"]');
    assert.equal(await p.locator('#status').getAttribute('data-unsaved'), 'true');
    const dialog = new Promise((resolve) => p.once('dialog', resolve));
    await p.close({ runBeforeUnload: true });
    const d = await dialog;
    assert.equal(d.type(), 'beforeunload');
    await d.dismiss(); // stay
    assert.equal(p.isClosed(), false);
    // Exported: nothing would be lost.
    await exportDb(p);
    assert.equal(await p.locator('#status').getAttribute('data-unsaved'), 'false');
    let again = false;
    p.on('dialog', (x) => { again = true; void x.accept(); });
    await p.close({ runBeforeUnload: true });
    await new Promise((r) => { setTimeout(r, 500); });
    assert.equal(again, false);
  });

  it('checks a whole JSON import before storing anything, and names a bad item by its place in the file', async () => {
    const p = await open();
    const before = await memories(p);
    await p.evaluate(() => {
      window.__checked = [];
      new MutationObserver(() => {
        const d = document.querySelector('#import-progress').dataset.checked;
        if (d !== undefined && window.__checked.at(-1) !== Number(d)) window.__checked.push(Number(d));
      }).observe(document.querySelector('#import-progress'), { attributes: true, attributeFilter: ['data-checked'] });
    });
    const items = Array.from({ length: 3_000 }, (_, k) => ({ content: `Checked note ${k}: the batch job ran.`, timestamp: new Date(Date.UTC(2026, 1, 1) + k * 60_000).toISOString() }));
    items[1234] = { content: 1234 };
    await p.setInputFiles('#file', { name: 'bad-1234.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ items })) });
    await p.waitForSelector('#status[data-state="error"]', { timeout: 60_000 });
    const status = await p.locator('#status').textContent();
    assert.match(status, /Could not import bad-1234\.json: wrong_type \(items\[1234\]\.content\): `items\[1234\]\.content` must be a string/);
    assert.doesNotMatch(status, /items\[234\]/);
    assert.match(status, /nothing was stored/);
    assert.equal(await memories(p), before, 'not one item of the file was stored');
    assert.deepEqual(await p.evaluate(() => window.__checked), [0, 1000], 'the check moved the bar, and stopped at the batch holding the bad item');
    await both(p, 'import-refused');
    // The fixed file: all of it.
    items[1234] = { content: 'Checked note 1234: fixed.' };
    await p.setInputFiles('#file', { name: 'fixed.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ items })) });
    await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'fixed.json' && document.querySelector('#status').dataset.state === 'ready', null, { timeout: 60_000 });
    assert.equal(await memories(p), before + items.length);
    await p.close();
  });

  it('says so, instead of doubling it, when a JSONL export goes back into its own agent', async () => {
    const p = await open();
    const [download] = await Promise.all([p.waitForEvent('download'), p.click('#export-jsonl-btn')]);
    const jsonl = readFileSync(await download.path());
    const before = await memories(p);
    await p.setInputFiles('#file', { name: 'own-export.jsonl', mimeType: 'application/jsonl', buffer: jsonl });
    await p.waitForFunction(() => document.querySelector('#status').dataset.alreadyThere !== undefined || document.querySelector('#status').dataset.imported === 'own-export.jsonl', null, { timeout: 60_000 });
    assert.equal(await memories(p), before, 'nothing doubled');
    assert.match(await p.locator('#status').textContent(), new RegExp(`Not imported: all ${before} memories of own-export\\.jsonl are already in agent team-bot`));
    await both(p, 'already-there');
    // Into another agent it goes in whole.
    await p.fill('#agent', 'copy-bot');
    await p.setInputFiles('#file', { name: 'own-export.jsonl', mimeType: 'application/jsonl', buffer: jsonl });
    await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'own-export.jsonl' && document.querySelector('#status').dataset.state === 'ready', null, { timeout: 60_000 });
    assert.equal(await memories(p, 'copy-bot'), before);
    await p.close();
  });

  it('logged no errors or warnings', () => {
    assert.deepEqual(problems, []);
  });
});
