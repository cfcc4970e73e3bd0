// Facts in time in the explorer (issue 39, item 6), in headless Chromium on the built page
// with the real engine: the time bar's reads carry `as_of` (all time, an instant typed or
// slid to with the keyboard; traverse, and reconstruct on the same page) and the graph changes with it, a notice says so whenever the
// graph is not now; a relation that ended is drawn dashed, labelled until when, and its
// details say who closed it and why; an entity's timeline lists its relations, current and
// closed, oldest first, a page at a time; a relation invalidated from the page with a reason
// leaves the current graph, stays at all time, and its undo brings it back as it was; a
// memory that expires says when, and one that no longer holds opens saying since when and why;
// a declaration of a single-valued predicate names the current relation it may contradict.
//
//   node --test www/test/explorer-time.test.mjs      # after scripts/build-wasm.sh
//
// The demo corpus ends two relations (make-corpus.mjs, `ENDED`): Kaito maintained the Ledger
// Service until 1 Dec 2026, when Amara took it over, and Fraud Scoring until 13 Oct 2026.
// Screenshots go to test-output/explorer-time-*.png, at 1440×900 and 390×844.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OUT, PHONE, explorerSession } from './explorer-session.mjs';

const PKG = fileURLToPath(new URL('../../pkg/view.js', import.meta.url));
const LEDGER_REASON = 'Handed over to Amara Okafor from 1 Dec (handover note of 30 Nov).';

describe('explorer facts in time', { skip: existsSync(PKG) ? false : `no package at ${PKG}; run scripts/build-wasm.sh` }, () => {
  const { open, problems } = explorerSession('explorer-time');
  const shot = (p, name, fullPage = false) => p.screenshot({ path: `${OUT}explorer-time-${name}.png`, fullPage });

  /** Every traverse the page makes from now on, by its options, kept in `window.__traverses`. */
  const spy = (p) => p.evaluate(() => {
    const agent = window.__explorer.agent;
    const real = agent.traverse.bind(agent);
    window.__traverses = [];
    agent.traverse = (o) => { window.__traverses.push(o); return real(o); };
  });
  /** The drawn relation `subject —predicate→ object`, with its edge's data and style, or null. */
  const drawn = (p, subject, predicate, object) => p.evaluate(([s, pr, o]) => {
    const v = window.__explorer.view;
    const st = v.state();
    const name = (id) => st.entities.find((e) => e.id === id)?.name;
    const r = st.relations.find((x) => x.predicate === pr && name(x.subject) === s && name(x.object) === o);
    if (!r) return null;
    const edge = v.cy.getElementById(`r${r.id}`);
    return { id: r.id, valid_to: r.valid_to, closed_reason: r.closed_reason, ended: edge.data('ended'), label: edge.style('label'), line: edge.style('line-style') };
  }, [subject, predicate, object]);
  /** Sets "Graph as of" and waits until the graph was read at `asOf`. */
  const mode = async (p, value, asOf) => {
    await p.selectOption('[data-testid="as-of-mode"]', value);
    await p.waitForFunction((a) => document.querySelector('#time-bar').dataset.asOf === a && document.querySelector('#graph').dataset.state === 'ready', asOf);
  };

  it('reads the graph at all time, at an instant typed or slid to, and says it is not now', async () => {
    const p = await open();
    await spy(p);
    assert.equal(await p.isHidden('[data-testid="time-notice"]'), true, 'no notice at now');
    assert.equal(await p.getAttribute('#time-bar', 'data-as-of'), '');
    // Now (the default): Amara maintains the Ledger Service, Kaito no longer does.
    assert.ok(await drawn(p, 'Amara Okafor', 'maintains', 'Ledger Service'), 'the current maintainer is drawn');
    assert.equal(await drawn(p, 'Kaito Mori', 'maintains', 'Ledger Service'), null, 'the ended relation is not drawn at now');

    await mode(p, 'all', 'all');
    let calls = await p.evaluate(() => window.__traverses);
    assert.ok(calls.length >= 1 && calls.every((o) => o.as_of === 'all'), JSON.stringify(calls));
    const kaito = await drawn(p, 'Kaito Mori', 'maintains', 'Ledger Service');
    assert.ok(kaito, 'at all time the ended relation is drawn');
    assert.equal(kaito.valid_to.slice(0, 10), '2026-12-01');
    assert.equal(await p.isVisible('[data-testid="time-notice"]'), true);
    assert.match(await p.textContent('[data-testid="time-notice"]'), /^Not the current state: every relation of all time/);
    assert.equal(await p.getAttribute('#graph', 'data-as-of'), 'all');

    // An instant typed (UTC): mid-November, before the handover.
    await p.evaluate(() => { window.__traverses = []; });
    await p.fill('[data-testid="as-of-input"]', '2026-11-15 12:00');
    await p.press('[data-testid="as-of-input"]', 'Enter');
    await p.waitForFunction(() => document.querySelector('#time-bar').dataset.asOf === '2026-11-15T12:00:00Z' && document.querySelector('#graph').dataset.state === 'ready');
    calls = await p.evaluate(() => window.__traverses);
    assert.ok(calls.length >= 1 && calls.every((o) => o.as_of === '2026-11-15T12:00:00Z'), JSON.stringify(calls));
    assert.equal(await p.inputValue('[data-testid="as-of-mode"]'), 'at');
    assert.ok(await drawn(p, 'Kaito Mori', 'maintains', 'Ledger Service'), 'Kaito maintained it on 15 Nov');
    assert.equal(await drawn(p, 'Amara Okafor', 'maintains', 'Ledger Service'), null, 'Amara did not yet');
    assert.match(await p.textContent('[data-testid="time-notice"]'), /Not the current state: the graph as it stood at 2026-11-15 12:00 UTC/);
    await shot(p, 'instant');

    // The slider, by the keyboard: an hour earlier per arrow, said as a date.
    await p.focus('[data-testid="as-of-slider"]');
    await p.keyboard.press('ArrowLeft');
    await p.waitForFunction(() => document.querySelector('#time-bar').dataset.asOf === '2026-11-15T11:00:00Z' && document.querySelector('#graph').dataset.state === 'ready');
    assert.equal(await p.getAttribute('[data-testid="as-of-slider"]', 'aria-valuetext'), '2026-11-15 11:00 UTC');
    assert.equal(await p.inputValue('[data-testid="as-of-input"]'), '2026-11-15 11:00');
    assert.equal(await p.getAttribute('[data-testid="as-of-slider"]', 'aria-label'), null);
    assert.equal(await p.locator('label:has([data-testid="as-of-slider"])').count(), 1, 'the slider is labelled');

    // A malformed instant is named beside the field, and nothing is read.
    await p.fill('[data-testid="as-of-input"]', '15 Nov');
    await p.press('[data-testid="as-of-input"]', 'Enter');
    await p.waitForSelector('[data-testid="as-of-error"]:visible');
    assert.match(await p.textContent('[data-testid="as-of-error"]'), /is not a date and time/);
    assert.equal(await p.getAttribute('#time-bar', 'data-as-of'), '2026-11-15T11:00:00Z');

    // Reconstruct on the same page asks at the same instant, and again when it changes.
    await p.evaluate(() => {
      const agent = window.__explorer.agent;
      const real = agent.reconstruct.bind(agent);
      window.__reconstructs = [];
      agent.reconstruct = (o) => { window.__reconstructs.push(o.as_of ?? null); return real(o); };
    });
    await p.fill('#ask-input', 'Who maintains the ledger service?');
    await p.click('#ask-btn');
    await p.waitForSelector('#answers button.pick');
    await mode(p, 'all', 'all');
    await p.waitForFunction(() => window.__reconstructs.length === 2);
    assert.deepEqual(await p.evaluate(() => window.__reconstructs), ['2026-11-15T11:00:00Z', 'all']);

    await p.click('[data-testid="as-of-now"]');
    await p.waitForFunction(() => document.querySelector('#time-bar').dataset.asOf === '' && document.querySelector('#graph').dataset.state === 'ready');
    await p.waitForFunction(() => window.__reconstructs.length === 3);
    assert.equal(await p.evaluate(() => window.__reconstructs[2]), null, 'now asks without as_of');
    calls = await p.evaluate(() => window.__traverses.slice(-1));
    assert.equal('as_of' in calls[0], false, 'now reads without as_of');
    assert.equal(await p.isHidden('[data-testid="time-notice"]'), true);
    assert.equal(await drawn(p, 'Kaito Mori', 'maintains', 'Ledger Service'), null);
    await p.close();
  });

  it('draws a relation that ended dashed, and says who closed it, when and why', async () => {
    const p = await open();
    await mode(p, 'all', 'all');
    const kaito = await drawn(p, 'Kaito Mori', 'maintains', 'Ledger Service');
    assert.equal(kaito.ended, 'until 2026-12-01');
    assert.equal(kaito.line, 'dashed');
    assert.equal(kaito.label, 'maintains (until 2026-12-01)');
    const amara = await drawn(p, 'Amara Okafor', 'maintains', 'Ledger Service');
    assert.equal(amara.ended, undefined);
    assert.equal(amara.line, 'solid', 'a current relation is drawn solid');
    // The list under the canvas says it too.
    assert.match(await p.textContent(`#graph button[data-relation="${kaito.id}"]`), /^Kaito Mori —maintains→ Ledger Service \(until 2026-12-01\)$/);

    // Close up, before it is selected (the selection draws it black).
    await p.evaluate((id) => { const v = window.__explorer.view; v.select(null); v.cy.zoom(2.5); v.cy.center(v.cy.getElementById(`r${id}`)); }, kaito.id);
    await shot(p, 'dashed-edge');
    await p.evaluate((id) => window.__explorer.view.select({ relation: id }), kaito.id);
    await p.waitForSelector('[data-testid="edge-closed-reason"]');
    assert.equal(await p.textContent('[data-testid="edge-closed-reason"]'), LEDGER_REASON);
    assert.equal(await p.textContent('[data-testid="edge-closed-by"]'), 'agent');
    assert.equal(await p.textContent('[data-testid="edge-valid-to"]'), '2026-12-01 00:00 UTC');
    assert.equal(await p.textContent('[data-testid="edge-closed-at"]'), '2026-11-30 10:00 UTC');
    assert.equal(await p.locator('[data-testid="invalidate-form"]').count(), 0, 'a closed relation is not offered to close again');
    await shot(p, 'closed-edge');
    await p.setViewportSize(PHONE);
    await p.evaluate((id) => window.__explorer.view.select({ relation: id }), kaito.id);
    await shot(p, 'closed-edge-phone', true);
    await p.close();
  });

  it('lists an entity\'s timeline, closed relations with their reason, a page at a time', async () => {
    const p = await open();
    // The start's timeline (the Ledger Service's 10 relations) is one page.
    await p.waitForSelector('[data-testid="timeline-item"]');
    assert.equal(await p.locator('[data-testid="timeline-item"]').count(), Number(await p.locator('.timeline-section').getAttribute('data-total')));
    assert.equal(await p.isHidden('[data-testid="timeline-more"]'), true);
    // Kaito Mori's: more than a page, two of them closed.
    await p.evaluate(() => { const v = window.__explorer.view; v.select({ entity: v.state().entities.find((e) => e.name === 'Kaito Mori').id }); });
    await p.waitForFunction(() => document.querySelector('#panel').dataset.name === 'Kaito Mori' && document.querySelectorAll('[data-testid="timeline-item"]').length > 0);
    const section = p.locator('.timeline-section');
    const total = Number(await section.getAttribute('data-total'));
    assert.ok(total > 10, `Kaito Mori has ${total} relations in time`);
    assert.match(await p.textContent('[data-testid="timeline-status"]'), new RegExp(`^${total} relations on Kaito Mori, current and closed, oldest first: 10 shown\\.$`));
    assert.equal(await p.locator('[data-testid="timeline-item"]').count(), 10, 'a page of 10');
    await p.click('[data-testid="timeline-more"]');
    await p.waitForFunction(() => document.querySelectorAll('[data-testid="timeline-item"]').length > 10);
    while (await p.isVisible('[data-testid="timeline-more"]')) {
      const n = await p.locator('[data-testid="timeline-item"]').count();
      await p.click('[data-testid="timeline-more"]');
      await p.waitForFunction((k) => document.querySelectorAll('[data-testid="timeline-item"]').length > k, n);
    }
    assert.equal(await p.locator('[data-testid="timeline-item"]').count(), total);
    const times = await p.$$eval('[data-testid="timeline-item"] time', (ts) => ts.map((t) => t.getAttribute('datetime')));
    assert.deepEqual(times, [...times].sort((a, b) => Date.parse(a) - Date.parse(b)), 'oldest first');
    const all = p.locator('[data-testid="timeline-item"][data-closed="true"]');
    assert.equal(await all.count(), 2);
    // By when each began: the Ledger Service (declared 28 Sep), then Fraud Scoring (2 Oct).
    assert.match(await all.nth(1).textContent(), /Kaito Mori —maintains→ Fraud Scoring.*Closed by agent at 2026-10-13 11:00 UTC: Ownership moved to Yuki Tanaka/);
    const closed = all.nth(0);
    assert.match(await closed.textContent(), /Kaito Mori —maintains→ Ledger Service/);
    assert.match(await closed.locator('[data-testid="timeline-until"]').textContent(), /^until 2026-12-01 00:00 UTC$/);
    assert.equal(await closed.locator('[data-testid="timeline-closure"]').textContent(), `Closed by agent at 2026-11-30 10:00 UTC: ${LEDGER_REASON}`);
    await closed.scrollIntoViewIfNeeded();
    await shot(p, 'timeline');
    await p.setViewportSize(PHONE);
    await p.evaluate(() => { const v = window.__explorer.view; v.select({ entity: v.state().entities.find((e) => e.ring === 0).id }); });
    await p.waitForFunction(() => document.querySelector('#panel').dataset.name === 'Ledger Service');
    await p.waitForSelector('[data-testid="timeline-item"][data-closed="true"]');
    await p.locator('[data-testid="timeline-item"][data-closed="true"]').scrollIntoViewIfNeeded();
    await shot(p, 'timeline-phone');
    await p.close();
  });

  it('shows when a memory expires, and opens one that no longer holds saying since when and why', async () => {
    const p = await open();
    const refs = await p.evaluate(async () => {
      const a = window.__explorer.agent;
      const soon = await a.store({ content: 'Okapi badges for the visitors, valid until the end of the century', expires_at: '2099-01-01T00:00:00Z' });
      const gone = await a.store({ content: 'Okapi night shift rota for the ledger on-call' });
      await a.declareAssociations({ invalidate: [{ ref: `mem:${gone.id}`, reason: 'Replaced by the new rota' }] });
      return { soon: `mem:${soon.id}`, gone: `mem:${gone.id}` };
    });
    await p.click('[data-testid="tab-memories"]');
    await p.fill('[data-testid="memories-query"]', 'Okapi');
    await p.click('[data-testid="memories-search"]');
    const tag = `[data-testid="memory"][data-ref="${refs.soon}"] [data-testid="memory-expires"]`;
    await p.waitForSelector(tag);
    assert.equal(await p.textContent(tag), 'expires 2099-01-01 00:00');
    assert.equal(await p.locator(`[data-testid="memory"][data-ref="${refs.gone}"]`).count(), 0, 'recall leaves out what no longer holds');
    await shot(p, 'memory-expires');
    // The invalidated memory opens whole (read at all time), saying since when and why.
    await p.evaluate((r) => window.__explorer.records.open(r), refs.gone);
    await p.waitForSelector('dialog[data-testid="record-dialog"][open] [data-testid="record-ended"]');
    assert.match(await p.textContent('[data-testid="record-ended"]'), /^No longer holds: invalidated on \d{4}-\d\d-\d\d \d\d:\d\d UTC \(Replaced by the new rota\)\./);
    assert.match(await p.textContent('[data-testid="record-invalid"]'), /^since \d{4}-\d\d-\d\d \d\d:\d\d UTC: Replaced by the new rota$/);
    assert.equal(await p.textContent('[data-testid="record-content"]'), 'Okapi night shift rota for the ledger on-call');
    await shot(p, 'record-ended');
    await p.click('[data-testid="record-close"]');
    // One that expires later: its expiry, and no notice.
    await p.evaluate((r) => window.__explorer.records.open(r), refs.soon);
    await p.waitForFunction((r) => document.querySelector('dialog[data-testid="record-dialog"]').dataset.ref === r && document.querySelector('[data-testid="record-expires"]'), refs.soon);
    assert.equal(await p.textContent('[data-testid="record-expires"]'), '2099-01-01 00:00 UTC');
    assert.equal(await p.locator('[data-testid="record-ended"]').count(), 0);
    await p.close();
    assert.deepEqual(problems, []);
  });

  it('says which current relation a declaration of a single-valued predicate may contradict', async () => {
    const p = await open();
    // Ledger Service is the panel's entity when the page opens.
    await p.waitForFunction(() => document.querySelector('#panel').dataset.name === 'Ledger Service');
    const current = await p.evaluate(async () => {
      const a = window.__explorer.agent;
      await a.declareAssociations({ predicates: [{ name: 'budget_owner', single: true }] });
      const r = await a.declareAssociations({ associations: { relations: [{ subject: 'Ledger Service', predicate: 'budget_owner', object: 'Wallet Team' }] } });
      return r.relations[0];
    });
    await p.fill('[data-testid="predicate-input"]', 'budget_owner');
    await p.fill('[data-testid="object-input"]', 'Payments Guild');
    await p.click('[data-testid="declare-btn"]');
    await p.waitForFunction(() => document.querySelector('#panel [data-testid="notice"]')?.textContent.startsWith('Declared Ledger Service —budget_owner→ Payments Guild.'));
    assert.equal(await p.textContent('#panel [data-testid="notice"]'),
      `Declared Ledger Service —budget_owner→ Payments Guild. It may contradict Ledger Service —budget_owner→ Wallet Team (relation ${current}), which still holds: invalidate the one that no longer does.`);
    await shot(p, 'conflict');
    await p.close();
    assert.deepEqual(problems, []);
  });

  it('invalidates a relation from the page with a reason, and undoes it', async () => {
    const p = await open();
    const before = await drawn(p, 'Amara Okafor', 'maintains', 'Ledger Service');
    assert.ok(before);
    await p.evaluate((id) => window.__explorer.view.select({ relation: id }), before.id);
    await p.waitForSelector('[data-testid="invalidate-form"]');
    // No reason: refused beside the field, nothing written.
    await p.click('[data-testid="invalidate-btn"]');
    await p.waitForSelector('[data-testid="invalidate-error"]:visible');
    assert.match(await p.textContent('[data-testid="invalidate-error"]'), /Say why the relation ended/);
    assert.equal(await p.getAttribute('#history', 'data-steps'), '0');

    await p.fill('[data-testid="invalidate-reason"]', 'Amara moved to the Merchant Portal');
    await p.fill('[data-testid="invalidate-at"]', '2026-12-05 09:00');
    await shot(p, 'invalidate-form');
    await p.click('[data-testid="invalidate-btn"]');
    await p.waitForFunction(() => document.querySelector('#panel [data-testid="notice"]')?.textContent.startsWith('Invalidated Amara Okafor —maintains→ Ledger Service: Amara moved to the Merchant Portal.'));
    assert.equal(await drawn(p, 'Amara Okafor', 'maintains', 'Ledger Service'), null, 'it left the current graph');
    assert.equal(await p.getAttribute('#history', 'data-steps'), '1');
    assert.equal(await p.textContent('[data-testid="history-label"]'), 'Invalidated Amara Okafor —maintains→ Ledger Service: Amara moved to the Merchant Portal');
    const kept = await p.evaluate(async (id) => (await window.__explorer.agent.traverse({ entity: 'Ledger Service', max_hops: 1, limit: 100, as_of: 'all' })).relations.find((r) => r.id === id), before.id);
    assert.equal(kept.closed_by, 'operator');
    assert.equal(kept.closed_reason, 'Amara moved to the Merchant Portal');
    assert.equal(kept.valid_to, '2026-12-05T09:00:00+00:00');

    await mode(p, 'all', 'all');
    const after = await drawn(p, 'Amara Okafor', 'maintains', 'Ledger Service');
    assert.equal(after.ended, 'until 2026-12-05 09:00');
    await p.evaluate((id) => window.__explorer.view.select({ relation: id }), before.id);
    await p.waitForSelector('[data-testid="edge-closed-reason"]');
    assert.equal(await p.textContent('[data-testid="edge-closed-by"]'), 'operator');
    await shot(p, 'invalidated');

    await p.click('[data-testid="tab-history"]');
    await p.click('[data-testid="history-undo"]');
    await p.waitForSelector('[data-testid="history-done"]:visible');
    await p.click('[data-testid="tab-graph"]');
    await p.waitForFunction(() => document.querySelector('#graph').dataset.state === 'ready');
    const undone = await drawn(p, 'Amara Okafor', 'maintains', 'Ledger Service');
    assert.equal(undone.ended, undefined, 'the undo brings it back without an end (the drawing follows)');
    assert.equal(undone.line, 'solid');
    const back = await p.evaluate(async (id) => (await window.__explorer.agent.traverse({ entity: 'Ledger Service', max_hops: 1, limit: 100 })).relations.find((r) => r.id === id), before.id);
    assert.ok(back, 'current again');
    assert.equal(back.closed_by, undefined);
    assert.equal(back.valid_to, undefined);
    await p.close();
    assert.deepEqual(problems, []);
  });
});
