// The explorer for everyone (issue 40, "It strands" and "Phones and contrast"), in headless
// Chromium on the built page: an agent picker filled from listAgents with empty states that
// say what to do; axe-core finds no violation on the main states (the History tab with steps
// to undo, and the graph at all time and at an instant with a timeline and the Invalidate
// form, included) at 1440×900 and 390×844;
// on a phone the graph comes first, a tapped node's details rise as a sheet, and every
// interactive target is at least 24×24 px.
//
//   node --test www/test/explorer-a11y.test.mjs      # after scripts/build-wasm.sh
//
// Screenshots go to test-output/explorer-a11y-*.png.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DESKTOP, OUT, PHONE, editFirstMemory, explorerSession, violations } from './explorer-session.mjs';

const PKG = fileURLToPath(new URL('../../pkg/view.js', import.meta.url));

describe('explorer a11y', { skip: existsSync(PKG) ? false : `no package at ${PKG}; run scripts/build-wasm.sh` }, () => {
  const { open } = explorerSession('explorer-a11y');
  const shot = (p, name) => p.screenshot({ path: `${OUT}explorer-a11y-${name}.png` });
  const setAgent = async (p, id) => {
    await p.fill('#agent', id);
    await p.dispatchEvent('#agent', 'change');
  };

  it('lists the agents and names them when the agent typed holds nothing', async () => {
    const p = await open();
    await p.waitForFunction(() => document.querySelector('#status').dataset.agents === '1');
    const options = await p.$$eval('#agent-list option', (os) => os.map((o) => [o.value, o.label]));
    assert.equal(options.length, 1);
    assert.equal(options[0][0], 'team-bot');
    assert.match(options[0][1], /^\d+ memories, \d+ entities$/);
    assert.equal(await p.isHidden('#agent-hint'), true, 'no hint while the agent holds memories');

    await setAgent(p, 'team-bt');
    await p.waitForFunction(() => !document.querySelector('#agent-hint').hidden);
    const hint = await p.textContent('#agent-hint');
    assert.match(hint, /^No memories for agent 'team-bt'\. This memory holds: team-bot \(\d+ memories, \d+ entities\)\.$/);
    assert.equal(await p.getAttribute('#status', 'data-entities'), '0', 'the header counts the agent typed');
    await shot(p, 'agent-empty');
    assert.deepEqual(await violations(p), []);
    await p.setViewportSize(PHONE);
    await shot(p, 'agent-empty-phone');
    assert.deepEqual(await violations(p), []);
    await p.setViewportSize(DESKTOP);

    await p.click('[data-testid="agent-switch"][data-agent="team-bot"]');
    await p.waitForFunction(() => Number(document.querySelector('#status').dataset.entities) > 0 && document.querySelector('#agent-hint').hidden);
    assert.equal(await p.inputValue('#agent'), 'team-bot');
    assert.match(await p.textContent('#status'), /for agent team-bot/);
    await p.waitForFunction(() => window.__explorer.view.state().entities.length > 0);
    await p.close();
  });

  it('says what to do with an empty memory', async () => {
    const p = await open();
    await p.selectOption('#source', 'opfs');
    await p.fill('#opfs-name', `a11y-empty-${Date.now()}`);
    await p.click('#opfs-open');
    await p.waitForSelector('#confirm[open]');
    await p.click('#confirm-cancel');
    await p.waitForFunction(() => document.querySelector('#status').dataset.source === 'opfs' && !document.querySelector('#agent-hint').hidden);
    assert.match(await p.textContent('#agent-hint'), /^This memory is empty\. Import a file/);
    assert.equal(await p.$$eval('#agent-list option', (os) => os.length), 0);
    await shot(p, 'memory-empty');
    assert.deepEqual(await violations(p), []);
    await p.close();
  });

  for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
    it(`axe finds no violation on the main states at ${viewport.width}×${viewport.height}`, async () => {
      const p = await open(viewport);
      const found = {};
      const check = async (state) => {
        await shot(p, `axe-${state}-${size}`);
        found[state] = await violations(p);
      };
      await check('loaded');
      // A selected relation, then a reconstruct answer picked (its button pressed).
      const rel = await p.evaluate(() => window.__explorer.view.state().relations[0].id);
      await p.evaluate((id) => window.__explorer.view.select({ relation: id }), rel);
      await p.waitForSelector('[data-testid="retract-btn"]');
      await check('relation');
      await p.fill('#ask-input', 'Who maintains the ledger service?');
      await p.click('#ask-btn');
      await p.waitForSelector('#answers button.pick');
      await p.click('#answers button.pick');
      await p.waitForSelector('#answers button.pick[aria-pressed="true"]');
      await check('answer');
      await p.click('[data-testid="tab-memories"]');
      await p.waitForSelector('[data-testid="memory"]');
      await check('memories');
      // A record opened from its ref, and the filters unfolded.
      await p.locator('[data-testid="memory"] [data-testid="ref"]').first().click();
      await p.waitForSelector('dialog[data-testid="record-dialog"][open] [data-testid="record-entities"] [data-testid="entity-chip"]');
      await check('record');
      await p.keyboard.press('Escape');
      await p.click('[data-testid="filters-summary"]');
      await check('filters');
      await p.locator('[data-testid="memory-delete"]').first().click();
      await p.waitForSelector('#confirm[open]');
      await check('dialog');
      await p.click('[data-testid="confirm-cancel"]');
      // Two steps in the History tab (history.ts), each with its Undo button.
      await editFirstMemory(p, 'Edited for the history a11y check.');
      await editFirstMemory(p, 'Edited again for the history a11y check.');
      await p.click('[data-testid="tab-history"]');
      await p.waitForSelector('[data-testid="history-undo-to"]');
      await check('history');
      await p.click('[data-testid="history-undo"]');
      await p.waitForSelector('[data-testid="history-done"]:visible');
      await check('undone');
      // Facts in time (time.ts): the graph at all time with a closed relation selected (its
      // reason in the details, the notice over the graph), then at an instant with the
      // start's timeline (a closed relation in it) and an open relation's Invalidate form.
      await p.click('[data-testid="tab-graph"]');
      await p.selectOption('[data-testid="as-of-mode"]', 'all');
      await p.waitForFunction(() => document.querySelector('#time-bar').dataset.asOf === 'all' && document.querySelector('#graph').dataset.state === 'ready');
      const closed = await p.evaluate(() => window.__explorer.view.state().relations.find((r) => r.closed_by).id);
      await p.evaluate((id) => window.__explorer.view.select({ relation: id }), closed);
      await p.waitForSelector('[data-testid="edge-closed-reason"]');
      await check('time-all');
      await p.fill('[data-testid="as-of-input"]', '2026-11-15 12:00');
      await p.press('[data-testid="as-of-input"]', 'Enter');
      await p.waitForFunction(() => document.querySelector('#time-bar').dataset.asOf === '2026-11-15T12:00:00Z' && document.querySelector('#graph').dataset.state === 'ready');
      await p.evaluate(() => { const v = window.__explorer.view; v.select({ entity: v.state().entities.find((e) => e.ring === 0).id }); });
      await p.waitForSelector('[data-testid="timeline-item"][data-closed="true"]');
      await check('time-timeline');
      const current = await p.evaluate(() => window.__explorer.view.state().relations.find((r) => !r.closed_by).id);
      await p.evaluate((id) => window.__explorer.view.select({ relation: id }), current);
      await p.waitForSelector('[data-testid="invalidate-form"]');
      await p.click('[data-testid="invalidate-btn"]');
      await p.waitForSelector('[data-testid="invalidate-error"]:visible');
      await check('time-invalidate');
      if (size === 'phone') found.targets = await smallTargets(p);
      await p.click('[data-testid="as-of-now"]');
      await p.waitForFunction(() => document.querySelector('#time-bar').dataset.asOf === '' && document.querySelector('#graph').dataset.state === 'ready');
      // The OPFS form with its key field, and its error beside it (a made-up name with a key is
      // a new encrypted memory; the same name without the key is refused).
      await p.click('[data-testid="tab-graph"]');
      if (await p.isVisible('#controls-toggle') && (await p.getAttribute('#controls-toggle', 'aria-expanded')) === 'false') await p.click('#controls-toggle');
      const name = `a11y-keyed-${size}-${Date.now()}`;
      await p.selectOption('#source', 'opfs');
      await p.fill('#opfs-name', name);
      await p.fill('#opfs-key', 'a11y passphrase');
      await check('opfs-key');
      await p.click('#opfs-open');
      // The edits above are not exported (discard them), then the new memory is empty (fill it).
      for (const ask of [/not exported/, /Fill it with the demo corpus/]) {
        await p.waitForSelector('#confirm[open]');
        assert.match(await p.textContent('#confirm-text'), ask);
        await p.click('[data-testid="confirm-ok"]');
        await p.waitForSelector('#confirm', { state: 'hidden' });
      }
      await p.waitForFunction((n) => document.querySelector('#status').dataset.state === 'ready' && document.querySelector('#status').textContent.startsWith(`OPFS memory ${n}`), name, { timeout: 60_000 });
      await p.click('#opfs-open');
      await p.waitForSelector('#opfs-error:visible');
      assert.equal(await p.getAttribute('#status', 'data-state'), 'ready', 'the memory open before is open again');
      await check('opfs-error');
      await p.close();
      assert.deepEqual(found, {
        loaded: [], relation: [], answer: [], memories: [], record: [], filters: [], dialog: [], history: [], undone: [],
        'time-all': [], 'time-timeline': [], 'time-invalidate': [], ...(size === 'phone' ? { targets: [] } : {}), 'opfs-key': [], 'opfs-error': [],
      });
    });
  }

  // Dark mode (prefers-color-scheme: dark, from the browser context): the page and the graph
  // turn dark, and their contrast holds, on the loaded and an expanded state at both sizes.
  describe('in dark mode', () => {
    const dark = explorerSession('explorer-a11y-dark', { colorScheme: 'dark' });
    const luminance = (rgb) => {
      const [r, g, b] = rgb.match(/[\d.]+/g).slice(0, 3).map((v) => { const c = Number(v) / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
      it(`is dark and axe finds no violation at ${viewport.width}×${viewport.height}`, async () => {
        const p = await dark.open(viewport);
        const look = await p.evaluate(() => ({
          body: getComputedStyle(document.body).backgroundColor,
          text: getComputedStyle(document.body).color,
          side: getComputedStyle(document.querySelector('#side')).backgroundColor,
          canvas: getComputedStyle(document.querySelector('#graph .amv-canvas')).backgroundColor,
          label: window.__explorer.view.cy.nodes()[0].style('color'),
          edgeLabel: window.__explorer.view.cy.edges()[0].style('color'),
          scheme: document.querySelector('#graph').dataset.scheme,
        }));
        assert.equal(look.scheme, 'dark');
        for (const k of ['body', 'side', 'canvas']) assert.ok(luminance(look[k]) < 0.03, `${k} is dark: ${look[k]}`);
        for (const k of ['text', 'label', 'edgeLabel']) assert.ok(luminance(look[k]) > 0.5, `${k} is light: ${look[k]}`);
        const found = {};
        await shot(p, `dark-loaded-${size}`);
        found.loaded = await violations(p);
        // The start expanded from its panel (on a phone, the sheet opened by a tap on the list).
        if (size === 'phone') await p.evaluate(() => { const v = window.__explorer.view; v.select({ entity: v.state().entities.find((e) => e.ring === 0).id }); });
        await p.click('[data-testid="expand-btn"]');
        await p.waitForSelector('#graph[data-expanded="1"][data-state="ready"]');
        await p.waitForSelector('[data-testid="expand-btn"][disabled]');
        await shot(p, `dark-expanded-${size}`);
        found.expanded = await violations(p);
        if (size === 'phone') found.targets = await smallTargets(p);
        // At all time: the notice, and the ended relations' red on the dark canvas.
        await p.selectOption('[data-testid="as-of-mode"]', 'all');
        await p.waitForFunction(() => document.querySelector('#time-bar').dataset.asOf === 'all' && document.querySelector('#graph').dataset.state === 'ready');
        const ended = await p.evaluate(() => window.__explorer.view.cy.edges('[ended]').map((e) => e.style('color')));
        assert.ok(ended.length > 0 && ended.every((c) => luminance(c) > 0.3), `ended labels are light on dark: ${ended}`);
        await shot(p, `dark-all-${size}`);
        found.all = await violations(p);
        await p.close();
        assert.deepEqual(found, size === 'phone' ? { loaded: [], expanded: [], targets: [], all: [] } : { loaded: [], expanded: [], all: [] });
      });
    }
  });

  /** Interactive targets on screen smaller than 24×24 px, as `selector w×h`. */
  const smallTargets = (p) => p.evaluate(() => {
    const out = [];
    for (const n of document.querySelectorAll('button, input, select, textarea, summary, a[href], [role="button"], [role="tab"]')) {
      const r = n.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue; // not rendered
      if (n.type === 'file' || n.closest('[hidden]')) continue;
      if (r.width < 24 || r.height < 24) out.push(`${n.tagName.toLowerCase()}${n.id ? `#${n.id}` : ''}${n.dataset.testid ? `[${n.dataset.testid}]` : ''} “${(n.textContent || n.value || '').trim().slice(0, 20)}” ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    return out;
  });

  it('on a phone the graph comes first and a tapped node rises as a sheet', async () => {
    const p = await open(PHONE);
    await p.waitForFunction(() => document.querySelector('#graph').dataset.state === 'ready');
    const graph = await p.locator('#graph canvas').first().boundingBox();
    assert.ok(graph.y < 260, `the canvas starts ${Math.round(graph.y)} px down`);
    const box = await p.locator('#graph').boundingBox();
    assert.ok(box.y + box.height <= PHONE.height, `the graph ends ${Math.round(box.y + box.height)} px down, past the first screen`);
    assert.equal(await p.isVisible('#panel'), false, 'no sheet before a tap');
    await shot(p, 'phone-first');
    // The controls open on demand.
    assert.equal(await p.isVisible('#source'), false);
    await p.click('#controls-toggle');
    assert.equal(await p.getAttribute('#controls-toggle', 'aria-expanded'), 'true');
    assert.equal(await p.isVisible('#source'), true);
    assert.equal(await p.isVisible('#max-hops'), true);
    await shot(p, 'phone-controls');
    await p.click('#controls-toggle');
    assert.equal(await p.isVisible('#source'), false);

    // Tap a node that is not selected: its details slide up within the screen.
    const target = await p.evaluate(() => {
      const cy = window.__explorer.view.cy;
      const n = cy.nodes().filter((x) => x.data('name') !== 'Ledger Service' && x.visible())[0];
      const r = cy.container().getBoundingClientRect();
      const pos = n.renderedPosition();
      return { name: n.data('name') ?? n.data('label'), x: r.left + pos.x, y: r.top + pos.y };
    });
    await p.mouse.click(target.x, target.y);
    await p.waitForFunction((name) => document.querySelector('#panel')?.dataset.name === name, target.name);
    const sheet = await p.locator('#panel h2').boundingBox();
    assert.ok(sheet && sheet.y >= 0 && sheet.y + sheet.height <= PHONE.height, `the details title sits at ${sheet && Math.round(sheet.y)} px`);
    assert.equal(await p.isVisible('#sheet-close'), true);
    await shot(p, 'phone-sheet');
    assert.deepEqual(await smallTargets(p), []);
    await p.click('#sheet-close');
    assert.equal(await p.isVisible('#panel'), false, 'the sheet closes');
    await p.close();
  });

  for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
    it(`every interactive target is at least 24×24 px at ${viewport.width}×${viewport.height}`, async () => {
      const p = await open(viewport);
      const found = {};
      if (size === 'phone') await p.click('#controls-toggle');
      found.loaded = await smallTargets(p);
      await p.fill('#ask-input', 'Who maintains the ledger service?');
      await p.click('#ask-btn');
      await p.waitForSelector('#answers button.pick');
      found.answer = await smallTargets(p);
      await p.click('[data-testid="tab-memories"]');
      await p.waitForSelector('[data-testid="memory"]');
      found.memories = await smallTargets(p);
      await p.click('[data-testid="filters-summary"]');
      found.filters = await smallTargets(p);
      await p.locator('[data-testid="memory"] [data-testid="ref"]').first().click();
      await p.waitForSelector('dialog[data-testid="record-dialog"][open] [data-testid="entity-chip"]');
      found.record = await smallTargets(p);
      await p.keyboard.press('Escape');
      if (size === 'phone') assert.equal(await p.isVisible('#panel'), false, 'the answers sheet closes with the Memories tab');
      await shot(p, `targets-memories-${size}`);
      await editFirstMemory(p, 'Edited for the history targets check.');
      await editFirstMemory(p, 'Edited again for the history targets check.');
      await p.click('[data-testid="tab-history"]');
      await p.waitForSelector('[data-testid="history-undo-to"]');
      found.history = await smallTargets(p);
      await shot(p, `targets-history-${size}`);
      await p.close();
      assert.deepEqual(found, { loaded: [], answer: [], memories: [], filters: [], record: [], history: [] });
    });
  }
});
