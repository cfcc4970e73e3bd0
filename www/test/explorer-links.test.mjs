// The explorer's memories linked to the graph, its filters, the phone sheet's focus and
// messages, and the encryption cue (issue 40, items 4–7), in headless Chromium on the built
// page with the real engine: memories carry chips of the entities they mention (equal to
// what the engine says mentions them), a chip shows its entity on the graph, every ref opens
// its record, reconstruct's claims show their text; project and channel scope traverse and
// the memories list, dates hide records and relations outside them, with empty states that
// say what to do; on a phone a message after a write shows with the sheet closed, and the
// sheet takes the focus and gives it back; an encrypted import shows a lock in the header.
// axe-core runs on each new state.
//
//   node --test www/test/explorer-links.test.mjs      # after scripts/build-wasm.sh
//
// Screenshots go to test-output/explorer-links-*.png, at 1440×900 and 390×844.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DESKTOP, OUT, PHONE, explorerSession, violations } from './explorer-session.mjs';

const PKG = fileURLToPath(new URL('../../pkg/view.js', import.meta.url));

describe('explorer links, filters, sheet and key', { skip: existsSync(PKG) ? false : `no package at ${PKG}; run scripts/build-wasm.sh` }, () => {
  const { open, problems } = explorerSession('explorer-links', { acceptDownloads: true });
  const shot = (p, name) => p.screenshot({ path: `${OUT}explorer-links-${name}.png` });
  /** The state at both sizes, with axe run on each: resolves to the violations found. */
  async function both(p, name) {
    const size = p.viewportSize();
    const found = [];
    for (const [suffix, viewport] of [['', DESKTOP], ['-phone', PHONE]]) {
      await p.setViewportSize(viewport);
      await shot(p, `${name}${suffix}`);
      found.push(...(await violations(p)).map((v) => `${viewport.width}: ${v}`));
    }
    await p.setViewportSize(size);
    return found;
  }
  const memoriesTab = async (p) => {
    await p.click('[data-testid="tab-memories"]');
    await p.waitForSelector('[data-testid="memory"]');
  };
  async function applyFilters(p, values) {
    if (!(await p.locator('[data-testid="filters"]').evaluate((d) => d.open))) await p.click('[data-testid="filters-summary"]');
    for (const [k, v] of Object.entries(values)) await p.fill(`[data-testid="filter-${k}"]`, v);
    await p.click('[data-testid="filters-apply"]');
  }
  const graphIdle = (p) => p.waitForFunction(() => document.querySelector('#graph').dataset.state !== 'loading');

  it('shows on each memory the entities that mention it, and a chip shows its entity on the graph', async () => {
    const p = await open();
    await memoriesTab(p);
    // The kickoff note (the oldest: found by a search) declares seven people and the team.
    await p.fill('[data-testid="memories-query"]', 'Q4 kickoff roster');
    await p.click('[data-testid="memories-search"]');
    const kickoff = p.locator('[data-testid="memory"]', { hasText: 'Q4 kickoff' });
    await kickoff.locator('[data-testid="entity-chip"]').first().waitFor();
    const ref = await kickoff.getAttribute('data-ref');
    const chips = await kickoff.locator('[data-testid="entity-chip"]').evaluateAll((bs) => bs.map((b) => b.firstChild.textContent));
    // What the engine says: the entities whose traverse lists the ref.
    const expected = await p.evaluate(async (r) => {
      const { agent } = window.__explorer;
      const names = [];
      for (let offset = 0; offset !== undefined;) {
        const page = await agent.listEntities({ offset, limit: 500 });
        for (const e of page.entities) {
          const t = await agent.traverse({ entity: e.name, max_hops: 0, limit: 100 });
          if (t.entities[0]?.mentions?.includes(r)) names.push(e.name);
        }
        offset = page.next_offset;
      }
      return names.sort((a, b) => a.localeCompare(b));
    }, ref);
    assert.ok(expected.length >= 7, `${expected.length} entities mention ${ref}`);
    assert.deepEqual(chips, expected);
    // Every listed memory has its chips (none is left reading).
    await p.waitForFunction(() => [...document.querySelectorAll('[data-testid="memory-entities"]')].every((c) => c.dataset.count !== undefined));
    assert.deepEqual(await both(p, 'chips'), []);
    // Its "show on graph": the graph tab, drawn around the entity, its details shown.
    await kickoff.locator('[data-testid="entity-chip"]', { hasText: 'Kaito Mori' }).click();
    await p.waitForFunction(() => !document.querySelector('#graph-view').hidden && window.__explorer.view.state().start === 'Kaito Mori');
    await p.waitForFunction(() => document.querySelector('#panel').dataset.name === 'Kaito Mori');
    assert.equal(await p.getAttribute('[data-testid="tab-graph"]', 'aria-selected'), 'true');
    assert.equal(await p.inputValue('#entity-input'), 'Kaito Mori');
    await p.waitForFunction(() => document.activeElement?.classList.contains('amv-canvas'));
    await p.close();
  });

  it('opens every ref on the page as its record: panel, edge anchor, reconstruct, memories', async () => {
    const p = await open();
    // A memory in a project and a channel, to see them in the record.
    const stored = await p.evaluate(async () => {
      const { memory, agent } = window.__explorer;
      const r = await memory.agent(agent.agentId, { project_id: 'payments', channel: 'ops' }).store({
        content: 'Ops note: the Ledger Service nightly job moved to 02:00 JST.', timestamp: '2026-11-02T03:00:00Z',
        source: { type: 'slack', name: '#ops' }, associations: { entities: [{ name: 'Ledger Service' }] },
      });
      return `mem:${r.id}`;
    });
    // The side panel: the start entity's records.
    await p.fill('#entity-input', 'Ledger Service');
    await p.press('#entity-input', 'Enter');
    await graphIdle(p);
    await p.waitForFunction(() => document.querySelector('#panel').dataset.name === 'Ledger Service');
    const first = p.locator('#panel [data-testid="record"] [data-testid="ref"]').first();
    const firstRef = await first.getAttribute('data-ref');
    await first.click();
    await p.waitForSelector('dialog[data-testid="record-dialog"][open]');
    const want = await p.evaluate(async (r) => (await window.__explorer.agent.getContents({ refs: [r] })).items[0], firstRef);
    assert.equal(await p.textContent('[data-testid="record-content"]'), want.content);
    assert.match(await p.textContent('[data-testid="record-dialog-time"]'), new RegExp(want.timestamp.slice(0, 10)));
    await p.waitForFunction(() => document.querySelector('[data-testid="record-entities"]')?.dataset.count !== undefined);
    assert.ok(await p.locator('[data-testid="record-entities"] [data-testid="entity-chip"]', { hasText: 'Ledger Service' }).count() === 1);
    assert.deepEqual(await both(p, 'record'), []);
    await p.click('[data-testid="record-close"]');
    assert.equal(await p.evaluate(() => document.activeElement?.dataset.ref), firstRef, 'closing gives the focus back to the ref');
    // The stored one, found by a search of the memories: its project, channel and source.
    await memoriesTab(p);
    await p.fill('[data-testid="memories-query"]', 'nightly job moved');
    await p.click('[data-testid="memories-search"]');
    await p.click(`[data-testid="memory"][data-ref="${stored}"] [data-testid="ref"]`);
    await p.waitForFunction(() => document.querySelector('dialog[data-testid="record-dialog"]').open && document.querySelector('[data-testid="record-project"]')?.textContent === 'payments');
    assert.equal(await p.textContent('[data-testid="record-channel"]'), 'ops');
    assert.equal(await p.textContent('[data-testid="record-dialog-source"]'), 'slack · #ops');
    await p.keyboard.press('Escape');
    await p.click('[data-testid="tab-graph"]');
    // An edge's anchor.
    const anchored = await p.evaluate(() => window.__explorer.view.state().relations.find((r) => r.anchor_ref));
    assert.ok(anchored, 'a drawn relation has an anchor');
    await p.evaluate((id) => window.__explorer.view.select({ relation: id }), anchored.id);
    await p.click(`[data-testid="edge-anchor"] [data-testid="ref"]`);
    await p.waitForFunction((r) => document.querySelector('dialog[data-testid="record-dialog"]').open && document.querySelector('dialog[data-testid="record-dialog"]').dataset.ref === r, anchored.anchor_ref);
    await p.waitForSelector('[data-testid="record-content"]');
    await p.keyboard.press('Escape');
    // Reconstruct: each claim shows its text, and its ref opens it.
    await p.fill('#ask-input', 'Who maintains the ledger service?');
    await p.click('#ask-btn');
    await p.waitForSelector('#answers [data-testid="claim"]');
    await p.waitForFunction(() => [...document.querySelectorAll('#answers [data-testid="claim-text"]')].every((t) => t.textContent.length > 0));
    const claims = await p.$$eval('#answers [data-testid="claim"]', (ls) => ls.map((l) => [l.dataset.ref, l.querySelector('[data-testid="claim-text"]').textContent]));
    assert.ok(claims.length > 3, `${claims.length} claims`);
    const texts = await p.evaluate(async (refs) => {
      const out = {};
      for (let i = 0; i < refs.length; i += 20) for (const it of (await window.__explorer.agent.getContents({ refs: refs.slice(i, i + 20) })).items) out[it.ref] = it.content;
      return out;
    }, [...new Set(claims.map(([r]) => r))]);
    for (const [r, text] of claims) assert.ok(texts[r].startsWith(text.replace(/…$/, '')), `${r}: “${text}” is its text`);
    assert.deepEqual(await both(p, 'claims'), []);
    await p.locator('#answers [data-testid="claim"] [data-testid="ref"]').first().click();
    await p.waitForSelector('dialog[data-testid="record-dialog"][open] [data-testid="record-content"]');
    await p.keyboard.press('Escape');
    await p.close();
  });

  it('scopes traverse and the memories list by project and channel', async () => {
    const p = await open();
    await p.evaluate(async () => {
      const { memory, agent } = window.__explorer;
      await memory.agent(agent.agentId, { project_id: 'orion' }).store({ content: 'Orion kickoff: the Orion Gateway feeds the Orion Ledger.', timestamp: '2026-12-20T09:00:00Z',
        associations: { relations: [{ subject: 'Orion Gateway', predicate: 'feeds', object: 'Orion Ledger' }] } });
      await memory.agent(agent.agentId, { channel: 'night-shift' }).store({ content: 'Night shift note: the pager rota changed.', timestamp: '2026-12-21T22:00:00Z',
        associations: { entities: [{ name: 'Pager Rota' }] } });
    });
    const drawn = async (entity) => {
      await p.fill('#entity-input', entity);
      await p.press('#entity-input', 'Enter');
      await p.waitForFunction((e) => window.__explorer.view.state().start === e && document.querySelector('#graph').dataset.state !== 'loading', entity);
      return p.evaluate(() => window.__explorer.view.state().missing ? null : window.__explorer.view.state().entities.map((e) => e.name).sort());
    };
    assert.deepEqual(await drawn('Orion Gateway'), ['Orion Gateway', 'Orion Ledger']);
    // Another project: Orion's entities are not read.
    await applyFilters(p, { project_id: 'atlas' });
    await p.waitForFunction(() => window.__explorer.view.state().missing === 'Orion Gateway');
    assert.match(await p.textContent('[data-testid="filters-summary"]'), /Filters: project atlas/);
    // Its own project and the global pool.
    await applyFilters(p, { project_id: 'orion' });
    await p.waitForFunction(() => !window.__explorer.view.state().missing && window.__explorer.view.state().entities.length === 2);
    const global = await drawn('Ledger Service');
    assert.ok(global?.length > 3, `the global pool is read too: ${JSON.stringify(global)}`);
    // The memories list follows.
    await memoriesTab(p);
    const listed = () => p.$$eval('[data-testid="memory"] [data-testid="memory-text"]', (ts) => ts.map((t) => t.textContent));
    // Orion's note and the night shift's (the newest; with no channel set, every channel is read).
    await p.waitForFunction(() => document.querySelector('[data-testid="memory-text"]')?.textContent.startsWith('Night shift'));
    assert.ok((await listed()).some((t) => t.startsWith('Orion kickoff')));
    await applyFilters(p, { project_id: 'atlas', channel: 'day-shift' });
    await p.waitForFunction(() => JSON.parse(document.querySelector('#filters-bar').dataset.applied).channel === 'day-shift');
    await p.waitForFunction(() => ![...document.querySelectorAll('[data-testid="memory-text"]')].some((t) => /^(Orion|Night)/.test(t.textContent)) && document.querySelectorAll('[data-testid="memory"]').length > 0);
    await applyFilters(p, { project_id: '', channel: 'night-shift' });
    await p.waitForFunction(() => [...document.querySelectorAll('[data-testid="memory-text"]')].some((t) => t.textContent.startsWith('Night shift')));
    assert.ok((await listed()).some((t) => t.startsWith('Orion kickoff')), 'every project with the project field empty');
    await p.close();
  });

  it('hides records and relations dated outside the range, and says what to do when nothing is left', async () => {
    const p = await open();
    await graphIdle(p);
    const all = await p.evaluate(() => window.__explorer.view.state().relations.map((r) => r.declared_at));
    assert.ok(all.some((t) => t < '2026-10-01') || all.some((t) => t >= '2026-11-01'), 'some drawn relations are outside October');
    await applyFilters(p, { from: '2026-10-01', to: '2026-10-31' });
    await p.waitForFunction(() => document.querySelector('#filters-bar').dataset.applied?.includes('2026-10-31') && document.querySelector('#graph').dataset.state !== 'loading');
    await p.waitForFunction(() => window.__explorer.view.state().relations.every((r) => r.declared_at >= '2026-10-01' && r.declared_at < '2026-11-01'));
    const october = await p.evaluate(() => window.__explorer.view.state());
    assert.ok(october.relations.length > 0 && october.relations.length < all.length, `${october.relations.length} of ${all.length} relations drawn`);
    assert.match(await p.textContent('#cut'), /the dates hid \d+ relations?.* \(only relations declared between 2026-10-01 and 2026-10-31 are drawn\)/);
    // The memories list: exactly the October memories, newest first.
    await memoriesTab(p);
    const want = await p.evaluate(async () => {
      const { memories } = await window.__explorer.agent.listMemories({ limit: 500 });
      return memories.filter((m) => m.timestamp >= '2026-10-01' && m.timestamp < '2026-11-01').map((m) => `mem:${m.id}`);
    });
    await p.waitForFunction(() => document.querySelector('#memories').dataset.shown !== undefined && [...document.querySelectorAll('[data-testid="memory"] time')].every((t) => t.dateTime.startsWith('2026-10')));
    while (await p.isVisible('[data-testid="memories-more"]')) {
      const n = await p.locator('[data-testid="memory"]').count();
      await p.click('[data-testid="memories-more"]');
      await p.waitForFunction((k) => document.querySelectorAll('[data-testid="memory"]').length > k, n);
    }
    assert.deepEqual(await p.$$eval('[data-testid="memory"]', (ls) => ls.map((l) => l.dataset.ref)), want);
    assert.match(await p.textContent('[data-testid="memories-summary"]'), new RegExp(`^${want.length} memories dated between 2026-10-01 and 2026-10-31, newest first`));
    // A range with nothing in it: the list and the graph say to widen the dates.
    await applyFilters(p, { from: '2020-01-01', to: '2020-01-31' });
    await p.waitForFunction(() => document.querySelector('#memories').dataset.empty === 'true');
    assert.equal(await p.textContent('[data-testid="memories-summary"]'), 'No memories between 2020-01-01 and 2020-01-31 — widen the dates.');
    assert.deepEqual(await both(p, 'dates-empty-memories'), []);
    await p.click('[data-testid="tab-graph"]');
    await p.waitForFunction(() => /widen the dates/.test(document.querySelector('#cut').textContent));
    assert.match(await p.textContent('#cut'), /\(only relations declared between 2020-01-01 and 2020-01-31 are drawn\): none around .+ is left — widen the dates\.$/);
    assert.match(await p.textContent('#panel [data-testid="records-dated-out"]'), /dated outside the filter's dates hidden — widen the dates/);
    assert.deepEqual(await both(p, 'dates-empty-graph'), []);
    // A range that ends before it starts is refused beside the fields.
    await applyFilters(p, { from: '2026-12-01', to: '2026-11-01' });
    assert.match(await p.textContent('[data-testid="filters-error"]'), /ends \(2026-11-01\) before it starts \(2026-12-01\)/);
    // Clear: everything again.
    await p.click('[data-testid="filters-clear"]');
    await p.waitForFunction((n) => window.__explorer.view.state().relations.length === n && document.querySelector('#graph').dataset.state !== 'loading', all.length);
    await p.close();
  });

  it('on a phone, shows a message with the sheet closed, and moves focus into the sheet and back', async () => {
    const p = await open(PHONE);
    await graphIdle(p);
    // A memory edited from the list: the sheet is closed, the notice shows over the page.
    await memoriesTab(p);
    assert.equal(await p.isVisible('#panel'), false);
    await p.locator('[data-testid="memory-edit"]').first().click();
    await p.fill('[data-testid="memory-editor"]', 'Edited on a phone: the ledger cutover moved to Friday.');
    await p.click('[data-testid="memory-save"]');
    await p.waitForSelector('[data-testid="toast"]:not([hidden])');
    assert.match(await p.textContent('[data-testid="toast-text"]'), /^Updated mem:\d+\.$/);
    const box = await p.locator('[data-testid="toast"]').boundingBox();
    assert.ok(box.y >= 0 && box.y + box.height <= PHONE.height, `the message sits at ${Math.round(box.y)} px, on screen`);
    assert.deepEqual(await violations(p), []);
    await shot(p, 'toast-phone');
    await p.click('[data-testid="toast-dismiss"]');
    assert.equal(await p.isVisible('[data-testid="toast"]'), false);
    // From the graph's list of entities by keyboard: the sheet takes the focus, and gives it back.
    await p.click('[data-testid="tab-graph"]');
    await p.click('#graph .amv-list > summary');
    const button = p.locator('#graph .amv-list button[data-entity]').nth(1);
    await button.focus();
    await p.keyboard.press('Space');
    await p.waitForFunction(() => document.body.classList.contains('sheet-open'));
    assert.equal(await p.evaluate(() => document.querySelector('#side').contains(document.activeElement)), true, 'focus is in the sheet');
    await shot(p, 'sheet-focus-phone');
    await p.keyboard.press('Tab');
    assert.equal(await p.evaluate(() => document.activeElement?.id), 'sheet-close');
    await p.keyboard.press('Enter');
    assert.equal(await p.isVisible('#panel'), false, 'the sheet closed');
    assert.equal(await p.evaluate(() => document.activeElement?.dataset.entity), await button.getAttribute('data-entity'), 'focus is back on the button that opened it');
    // Escape closes it too.
    await p.keyboard.press('Space');
    await p.waitForFunction(() => document.body.classList.contains('sheet-open') && document.querySelector('#side').contains(document.activeElement));
    await p.keyboard.press('Escape');
    await p.waitForFunction(() => !document.body.classList.contains('sheet-open'));
    assert.equal(await p.evaluate(() => document.activeElement?.dataset.entity), await button.getAttribute('data-entity'));
    // Typing in the find box keeps the focus while the found node's sheet rises.
    await p.click('#find-input');
    await p.keyboard.type('Kai');
    await p.waitForFunction(() => document.body.classList.contains('sheet-open'));
    assert.equal(await p.evaluate(() => document.activeElement?.id), 'find-input');
    assert.equal(await p.inputValue('#find-input'), 'Kai');
    // Wide, nothing moves: the details are beside the graph.
    await p.setViewportSize(DESKTOP);
    await button.focus();
    await p.keyboard.press('Space');
    assert.equal(await p.evaluate(() => document.activeElement?.dataset.entity), await button.getAttribute('data-entity'));
    await p.close();
  });

  it('shows a lock and "encrypted" in the header while the open memory has a key', async () => {
    const p = await open();
    assert.equal(await p.isVisible('[data-testid="keyed"]'), false, 'the demo has no key');
    const [download] = await Promise.all([p.waitForEvent('download'), p.click('#export-btn')]);
    const { Memory } = createRequire(import.meta.url)('../../pkg-node/associative_memory.js');
    const keyed = Memory.openInMemory(undefined, 'links passphrase');
    keyed.import(readFileSync(await download.path()));
    const encrypted = Buffer.from(keyed.export());
    keyed.free();
    await p.setInputFiles('#file', { name: 'locked.sqlite', mimeType: 'application/octet-stream', buffer: encrypted });
    await p.waitForSelector('#confirm[open]');
    await p.click('[data-testid="confirm-ok"]');
    await p.waitForSelector('#passphrase[open]');
    await p.fill('#passphrase-input', 'links passphrase');
    await p.press('#passphrase-input', 'Enter');
    await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'locked.sqlite' && document.querySelector('#status').dataset.state === 'ready');
    const badge = p.locator('[data-testid="keyed"]');
    assert.equal(await badge.isVisible(), true);
    assert.equal((await badge.textContent()).trim(), 'encrypted');
    assert.equal(await badge.locator('svg[aria-hidden="true"]').count(), 1, 'a lock beside the word');
    assert.deepEqual(await both(p, 'keyed'), []);
    // The demo again: no key, no lock.
    await p.selectOption('#source', 'demo');
    await p.waitForFunction(() => document.querySelector('#confirm').open || document.querySelector('#status').textContent.startsWith('demo corpus'));
    if (await p.locator('#confirm').evaluate((d) => d.open)) await p.click('[data-testid="confirm-ok"]');
    await p.waitForFunction(() => document.querySelector('#status').dataset.state === 'ready' && document.querySelector('#status').textContent.startsWith('demo corpus'));
    assert.equal(await badge.isVisible(), false);
    await p.close();
  });

  it('logged no errors or warnings', () => {
    assert.deepEqual(problems, []);
  });
});
