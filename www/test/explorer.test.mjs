// The explorer (www/explorer/) end to end in headless Chromium: how the pages are served, the
// demo corpus (none of its declarations dropped) loaded, search with suggestions, hops / limit
// and what was cut, a name nothing has, expand a node in place, the side panel, edge details,
// operator curation (alias, declare with anchor, retract, delete — with their confirmations),
// export, import (a database file; a JSON file of memories through storeMany, with its progress
// bar; an MCP memory server graph; the reference's JSONL export, and our export in it), the
// memories view (list, search, edit, delete), an OPFS memory, the reconstruct
// highlight, a phone-sized viewport, and no console errors.
//
//   node --test www/test/explorer.test.mjs      # after scripts/build-wasm.sh
//
// The page is bundled first (www/explorer/build.mjs → www/dist/explorer/). Screenshots go to
// test-output/explorer-*.png.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { buildPage, servePages } from '../explorer/build.mjs';
import { CHROMIUM, CHROMIUM_ARGS, offline, watch as watchPage } from './harness.mjs';

const OUT = fileURLToPath(new URL('../../test-output/', import.meta.url));
const PKG = fileURLToPath(new URL('../../pkg/view.js', import.meta.url));
const corpus = JSON.parse(readFileSync(new URL('../explorer/corpus.json', import.meta.url), 'utf8'));

describe('explorer', { skip: existsSync(PKG) ? false : `no package at ${PKG}; run scripts/build-wasm.sh` }, () => {
  let server;
  let browser;
  let context;
  let page;
  let url;
  let exported;
  const problems = [];

  const shot = (name, p = page) => p.screenshot({ path: `${OUT}explorer-${name}.png` });
  const graph = () => page.locator('#graph');
  const nodes = async () => Number(await graph().getAttribute('data-nodes'));
  /** Waits for the graph to settle after an action. */
  const settled = () => page.waitForFunction(() => document.querySelector('#graph')?.dataset.state !== 'loading');
  /** The drawn entities and relations, as the view holds them. */
  const drawn = () => page.evaluate(() => {
    const s = window.__explorer.view.state();
    return { entities: s.entities.map((e) => ({ id: e.id, name: e.name, ring: e.ring, aliases: e.aliases ?? [] })), relations: s.relations, cut: s.cut };
  });
  const byName = async (name) => (await drawn()).entities.find((e) => e.name === name);
  /** Accepts the question a database file asks before it replaces the open memory. */
  const replace = async (p = page) => {
    await p.waitForSelector('#confirm[open]');
    assert.match(await p.locator('#confirm-text').textContent(), /replaces the \d+ entit(y|ies) and \d+ memor(y|ies) of /);
    await p.click('[data-testid="confirm-ok"]');
  };

  const watch = (p) => watchPage(p, problems, { warnings: true });

  async function search(text) {
    await page.fill('#entity-input', text);
    await page.press('#entity-input', 'Enter');
    await page.waitForFunction((t) => {
      const s = window.__explorer.view.state();
      return s.start === t && document.querySelector('#graph').dataset.state !== 'loading';
    }, text);
  }

  /** Clicks a node on the canvas, where cytoscape drew it. */
  async function clickNode(entityId) {
    const at = await page.evaluate((id) => {
      const n = window.__explorer.view.cy.getElementById(`e${id}`);
      const box = window.__explorer.view.cy.container().getBoundingClientRect();
      const p = n.renderedPosition();
      return { x: box.left + p.x, y: box.top + p.y };
    }, entityId);
    await page.mouse.click(at.x, at.y);
  }

  before(async () => {
    await mkdir(OUT, { recursive: true });
    await buildPage('explorer');
    server = await servePages({ port: 0 });
    url = new URL('explorer/', server.url).href;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    // Nothing may leave 127.0.0.1: the page is bundled whole.
    await offline(context, problems);
    page = await context.newPage();
    watch(page);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('is served with the .wasm as application/wasm, and the bare address leads to it', async () => {
    const assets = fileURLToPath(new URL('../dist/explorer/assets/', import.meta.url));
    const wasm = readdirSync(assets).find((f) => f.endsWith('.wasm'));
    assert.ok(wasm, 'the bundle holds the .wasm');
    const res = await fetch(new URL(`assets/${wasm}`, url));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/wasm', 'streaming compilation needs this type');
    const root = await fetch(server.url, { redirect: 'manual' });
    assert.equal(root.status, 302);
    assert.equal(new URL(root.headers.get('location'), server.url).href, url);
  });

  it('stores every declaration of the corpus: none is dropped', async () => {
    const { openMemory } = await import(pathToFileURL(PKG.replace(/view\.js$/, 'node.js')).href);
    const memory = await openMemory({ clock: () => Date.parse('2026-12-11T00:00:00Z') });
    const agent = memory.agent(corpus.agent_id);
    const dropped = [];
    for (const m of corpus.memories) {
      const res = await agent.store({ content: m.content, timestamp: m.timestamp, source: m.source, metadata: m.metadata, associations: m.associations });
      for (const d of res.associations?.dropped ?? []) dropped.push(`${res.id}: ${d.item} (${d.reason})`);
    }
    await memory.close();
    assert.deepEqual(dropped, []);
  });

  it('loads the demo corpus through the package and draws a neighbourhood', async () => {
    await page.goto(url);
    await page.waitForSelector('#status[data-state="ready"], #status[data-state="error"]', { timeout: 60_000 });
    const status = page.locator('#status');
    assert.equal(await status.getAttribute('data-state'), 'ready', await status.textContent());
    assert.ok(corpus.memories.length >= 280, `the corpus has ${corpus.memories.length} memories`);
    assert.equal(Number(await status.getAttribute('data-memories')), corpus.memories.length);
    assert.ok(Number(await status.getAttribute('data-entities')) >= 45);
    await page.waitForFunction(() => Number(document.querySelector('#graph')?.dataset.nodes) > 5);
    // The default search is the Japanese alias of the Ledger Service.
    const start = (await drawn()).entities.find((e) => e.ring === 0);
    assert.equal(start.name, 'Ledger Service');
    assert.ok(start.aliases.includes('台帳サービス'));
    assert.equal(await page.locator('#panel').getAttribute('data-name'), 'Ledger Service');
    // Two hops out, by the shortest way: Amara Okafor maintains it (since Kaito handed it over
    // on 1 Dec: his relation ended, so the current graph leaves it out), it depends on Ledger
    // DB and serves Payments Service; the Wallet Team is one step past Amara.
    const { entities, relations } = await drawn();
    const ring = (name) => entities.find((e) => e.name === name)?.ring;
    assert.deepEqual(['Amara Okafor', 'Ledger DB', 'Payments Service', 'Wallet Team'].map(ring), [1, 1, 1, 2]);
    const id = (name) => entities.find((e) => e.name === name).id;
    const maintains = relations.find((r) => r.subject === id('Amara Okafor') && r.predicate === 'maintains' && r.object === start.id);
    const handover = corpus.memories.findIndex((m) => m.content.startsWith('Handover: Amara maintains the Ledger Service')) + 1;
    assert.equal(maintains?.anchor_ref, `mem:${handover}`);
    assert.equal(relations.some((r) => r.subject === id('Kaito Mori') && r.predicate === 'maintains' && r.object === start.id), false);
    assert.ok(relations.some((r) => r.subject === start.id && r.predicate === 'depends_on' && r.object === id('Ledger DB')));
    assert.ok(relations.length >= entities.length - 1, 'a connected neighbourhood has at least n-1 relations');
    await shot('loaded');
  });

  it('suggests names and aliases from listEntities as one types', async () => {
    await page.fill('#entity-input', '');
    await page.type('#entity-input', 'さくら');
    await page.waitForFunction(() => [...document.querySelectorAll('#entity-suggestions option')].some((o) => o.value === 'さくらマート'));
    const labels = await page.locator('#entity-suggestions option').evaluateAll((os) => os.map((o) => o.value));
    assert.ok(labels.includes('Sakura Mart'), labels.join(', '));
    await page.press('#entity-input', 'Backspace'); // keep the field usable
  });

  it('draws a Japanese alias’s neighbourhood with hop rings, sizes and directed, labelled edges', async () => {
    await page.selectOption('#max-hops', '1');
    await page.fill('#limit', '20');
    await search('さくらマート');
    const { entities, relations } = await drawn();
    const start = entities.find((e) => e.ring === 0);
    assert.equal(start.name, 'Sakura Mart');
    assert.ok(entities.every((e) => e.ring <= 1));
    const ono = entities.find((e) => e.name === 'Takeshi Ono');
    assert.ok(ono, 'Takeshi Ono is one hop from Sakura Mart');
    const worksAt = relations.find((r) => r.subject === ono.id && r.predicate === 'works_at' && r.object === start.id);
    assert.ok(worksAt, 'Takeshi Ono —works_at→ Sakura Mart is drawn');
    const edge = await page.evaluate((id) => {
      const e = window.__explorer.view.cy.getElementById(`r${id}`);
      return { source: e.source().data('name'), target: e.target().data('name'), label: e.style('label'), arrow: e.style('target-arrow-shape') };
    }, worksAt.id);
    assert.deepEqual(edge, { source: 'Takeshi Ono', target: 'Sakura Mart', label: 'works_at', arrow: 'triangle' });
    const style = await page.evaluate(() => {
      const cy = window.__explorer.view.cy;
      const one = cy.nodes('[ring = 1]');
      return {
        startColour: cy.nodes('[ring = 0]').style('background-color'),
        ringColour: one.first().style('background-color'),
        sizes: one.map((n) => [n.data('name'), n.width()]),
      };
    });
    assert.notEqual(style.startColour, style.ringColour, 'hop rings are coloured apart');
    const sizes = new Map(style.sizes);
    assert.ok(sizes.get('QR Checkout') > sizes.get('Takeshi Ono'), 'size follows mention count');
    await shot('sakura');
  });

  it('says what limit and max_hops cut', async () => {
    await page.selectOption('#max-hops', '2');
    await page.fill('#limit', '6');
    await search('Kaito');
    assert.equal(await nodes(), 6);
    const cut = page.locator('#cut');
    assert.ok(await cut.isVisible());
    assert.ok(Number(await cut.getAttribute('data-entities-omitted')) > 0);
    assert.match(await cut.textContent(), /limit 6 cut \d+ more entit/);
    assert.match(await cut.textContent(), /mention lists stop at 6 refs/);
    // The cut keeps the nearest: nothing left out is closer than what was drawn.
    const drawnNow = await drawn();
    const all = await page.evaluate(() => window.__explorer.agent.traverse({ entity: 'Kaito', max_hops: 2, limit: 100 }));
    const left = all.entities.filter((e) => !drawnNow.entities.some((d) => d.id === e.id)).map((e) => e.hops);
    assert.ok(left.length > 0 && Math.max(...drawnNow.entities.map((e) => e.ring)) <= Math.min(...left), `drawn rings ${drawnNow.entities.map((e) => e.ring)}, left out ${left}`);
    // The side panel lists as many of Kaito's records as the limit, and says how many more.
    await page.waitForFunction(() => document.querySelector('#panel')?.dataset.name === 'Kaito Mori' && document.querySelectorAll('#panel [data-testid="record"]').length > 0);
    assert.equal(await page.locator('#panel [data-testid="record"]').count(), 6);
    assert.match(await page.locator('[data-testid="records-omitted"]').textContent(), /^\d+ more not listed \(limit 6\)\.$/);
    await page.fill('#limit', '20');
  });

  it('draws the start alone at max_hops 0, and redraws as soon as max_hops changes', async () => {
    await page.selectOption('#max-hops', '0');
    await page.waitForFunction(() => window.__explorer.view.state().last?.max_hops === 0 && document.querySelector('#graph').dataset.state === 'ready');
    const alone = await drawn();
    assert.deepEqual(alone.entities.map((e) => `${e.name}:${e.ring}`), ['Kaito Mori:0']);
    assert.deepEqual(alone.relations, []);
    assert.equal(await graph().getAttribute('data-edges'), '0');
    assert.match(await page.locator('#cut').textContent(), /more lies beyond max_hops 0/);
    await page.selectOption('#max-hops', '1');
    await page.waitForFunction(() => window.__explorer.view.state().last?.max_hops === 1 && document.querySelector('#graph').dataset.state === 'ready');
    const one = await drawn();
    assert.ok(one.entities.length > 1 && one.entities.every((e) => e.ring <= 1), one.entities.map((e) => `${e.name}:${e.ring}`).join(', '));
  });

  it('says so when no entity has the name', async () => {
    await search('Nonexistent Zebra Service');
    assert.equal(await graph().getAttribute('data-state'), 'missing');
    assert.equal(await nodes(), 0);
    assert.equal(await page.locator('#cut').textContent(), 'No entity is named or aliased “Nonexistent Zebra Service”.');
    assert.equal(await page.locator('#graph .amv-empty').textContent(), 'No entity is named or aliased “Nonexistent Zebra Service”.');
    assert.ok(await page.locator('#graph .amv-empty').isVisible());
    await shot('missing');
  });

  it('selects a clicked node without expanding it; its Expand button adds one hop in place and its records show in the side panel', async () => {
    await page.selectOption('#max-hops', '1');
    await search('Payouts Batch');
    const before = await page.evaluate(() => Object.fromEntries(window.__explorer.view.cy.nodes().map((n) => [n.id(), n.position()])));
    const amara = await byName('Amara Okafor');
    assert.ok(amara, 'Amara Okafor is one hop from the Payouts Batch');
    const expanded = Number((await graph().getAttribute('data-expanded')) ?? 0);
    await clickNode(amara.id);
    await page.waitForFunction(() => document.querySelector('#panel')?.dataset.name === 'Amara Okafor');
    await page.waitForTimeout(400);
    assert.equal(Number((await graph().getAttribute('data-expanded')) ?? 0), expanded, 'a click does not expand');
    assert.equal(await nodes(), Object.keys(before).length);
    await shot('selected');
    await page.click('[data-testid="expand-btn"]');
    await page.waitForFunction((n) => Number(document.querySelector('#graph').dataset.expanded ?? 0) > n, expanded);
    await settled();
    const after = await page.evaluate(() => Object.fromEntries(window.__explorer.view.cy.nodes().map((n) => [n.id(), n.position()])));
    assert.ok(Object.keys(after).length > Object.keys(before).length, 'the expansion added nodes');
    for (const [id, p] of Object.entries(before)) {
      assert.ok(Math.abs(after[id].x - p.x) < 0.5 && Math.abs(after[id].y - p.y) < 0.5, `${id} stayed where it was`);
    }
    const fresh = (await drawn()).entities.filter((e) => !(`e${e.id}` in before));
    assert.ok(fresh.length > 0 && fresh.every((e) => e.ring === 2), `what came in sits on ring 2, one hop past Amara: ${fresh.map((e) => `${e.name}:${e.ring}`).join(', ')}`);
    // The side panel: Amara's mentioning records, with their text, time and source.
    await page.waitForFunction(() => document.querySelector('#panel')?.dataset.name === 'Amara Okafor' && document.querySelectorAll('#panel [data-testid="record"]').length > 0);
    const first = page.locator('#panel [data-testid="record"]').first();
    assert.match(await first.getAttribute('data-ref'), /^mem:\d+$/);
    assert.ok((await first.locator('[data-testid="record-text"]').textContent()).length > 20);
    assert.match(await first.locator('[data-testid="record-time"]').textContent(), /^2026-\d\d-\d\d \d\d:\d\d$/);
    assert.match(await first.locator('[data-testid="record-source"]').textContent(), /^(Slack|Meeting|Jira|Email|Incident)/);
    assert.match(await page.locator('#panel').textContent(), /Amara/);
    await page.waitForFunction(() => document.querySelector('[data-testid="expand-btn"]')?.disabled === true);
    assert.equal(await page.locator('[data-testid="expand-btn"]').textContent(), 'Expanded');
    await shot('expanded');
  });

  it('collapses the expanded node and hides a node from the side panel, and shows it again', async () => {
    const amara = await byName('Amara Okafor');
    const fresh = (await drawn()).entities.filter((e) => e.ring === 2).map((e) => e.id);
    const count = await nodes();
    await page.click('[data-testid="collapse-btn"]');
    await page.waitForFunction((n) => Number(document.querySelector('#graph').dataset.nodes) < n, count);
    const left = (await drawn()).entities.map((e) => e.id);
    assert.ok(fresh.every((id) => !left.includes(id)), 'what the expansion brought in went');
    assert.ok(left.includes(amara.id), 'Amara stays');
    await page.waitForFunction(() => document.querySelector('[data-testid="expand-btn"]')?.disabled === false);
    assert.equal(await page.locator('[data-testid="collapse-btn"]').isDisabled(), true);
    // Hide: off the canvas and the list, the panel cleared, "Show 1 hidden node" offered.
    await page.click('[data-testid="hide-btn"]');
    assert.equal(await graph().getAttribute('data-hidden'), '1');
    assert.equal(await page.evaluate((id) => window.__explorer.view.cy.getElementById(`e${id}`).visible(), amara.id), false);
    assert.equal(await page.locator('[data-testid="show-hidden"]').textContent(), 'Show 1 hidden node');
    assert.equal(await page.locator('#panel').getAttribute('data-kind'), '');
    await shot('hidden');
    await page.click('[data-testid="show-hidden"]');
    assert.equal(await page.evaluate((id) => window.__explorer.view.cy.getElementById(`e${id}`).visible(), amara.id), true);
    assert.ok(await page.locator('[data-testid="show-hidden"]').isHidden());
  });

  it('finds a drawn node by name or alias (any case), rings and centres it, and cycles with Enter', async () => {
    const { entities } = await drawn();
    // An alias its name does not hold, with a letter that has a case, so only the alias can match.
    const only = (e) => (a) => /[a-z]/i.test(a) && !e.name.toLowerCase().includes(a.toLowerCase())
      && entities.filter((x) => [x.name, ...(x.aliases ?? [])].some((n) => n.toLowerCase().includes(a.toLowerCase()))).length === 1;
    const withAlias = entities.find((e) => e.ring > 0 && e.aliases?.some(only(e)));
    assert.ok(withAlias, entities.map((e) => `${e.name} (${e.aliases})`).join(', '));
    const alias = withAlias.aliases.find(only(withAlias));
    await page.fill('#find-input', alias.toUpperCase());
    await page.waitForFunction((id) => document.querySelector('#graph').dataset.found === String(id), withAlias.id);
    const at = await page.evaluate((id) => {
      const cy = window.__explorer.view.cy;
      const n = cy.getElementById(`e${id}`);
      return { p: n.renderedPosition(), w: cy.width(), h: cy.height(), ring: n.hasClass('amv-found') };
    }, withAlias.id);
    assert.ok(at.ring, 'ringed');
    assert.ok(Math.abs(at.p.x - at.w / 2) < 2 && Math.abs(at.p.y - at.h / 2) < 2, `centred: ${JSON.stringify(at)}`);
    assert.match(await page.locator('#find-status').textContent(), new RegExp(`^1 of \\d+: ${withAlias.name}$`));
    await page.waitForFunction((name) => document.querySelector('#panel')?.dataset.name === name, withAlias.name);
    await shot('find');
    // A text many nodes hold: Enter steps through them nearest the start first, then wraps.
    const text = 'A';
    const expected = entities.filter((e) => [e.name, ...(e.aliases ?? [])].some((n) => n.toLowerCase().includes('a')))
      .sort((a, b) => a.ring - b.ring || a.name.localeCompare(b.name)).map((e) => e.id);
    assert.ok(expected.length >= 3, `${expected.length} match`);
    await page.fill('#find-input', text);
    const found = async () => Number(await graph().getAttribute('data-found'));
    await page.waitForFunction((id) => document.querySelector('#graph').dataset.found === String(id), expected[0]);
    const seen = [await found()];
    for (let i = 1; i <= expected.length; i += 1) {
      await page.press('#find-input', 'Enter');
      seen.push(await found());
    }
    assert.deepEqual(seen, [...expected, expected[0]]);
    assert.equal(await page.evaluate(() => window.__explorer.view.cy.nodes('.amv-found').length), 1);
    await page.press('#find-input', 'Shift+Enter');
    assert.equal(await found(), expected[expected.length - 1]);
    await page.fill('#find-input', 'zzzz-nothing');
    assert.equal(await page.locator('#find-status').textContent(), 'no drawn node matches');
    assert.equal(await graph().getAttribute('data-found'), '');
    await page.fill('#find-input', '');
  });

  it('places the nodes each double-click expansion adds without overlapping any drawn node', async () => {
    await page.selectOption('#max-hops', '1');
    await search('Kaito Mori');
    const overlaps = () => page.evaluate(() => {
      const cy = window.__explorer.view.cy;
      const boxes = cy.nodes().filter((n) => n.visible()).map((n) => ({ name: n.data('name'), b: n.boundingBox({ includeLabels: true, includeOverlays: false }) }));
      const out = [];
      for (let i = 0; i < boxes.length; i += 1) for (let j = i + 1; j < boxes.length; j += 1) {
        const [p, q] = [boxes[i].b, boxes[j].b];
        if (p.x1 < q.x2 && q.x1 < p.x2 && p.y1 < q.y2 && q.y1 < p.y2) out.push(`${boxes[i].name} × ${boxes[j].name}`);
      }
      return out;
    });
    for (let round = 0; round < 4; round += 1) {
      const open = await page.evaluate(() => window.__explorer.view.state().entities.filter((e) => !e.expanded)
        .sort((a, b) => b.mention_count - a.mention_count || a.id - b.id).map((e) => ({ id: e.id }))[0]);
      const count = Number((await graph().getAttribute('data-expanded')) ?? 0);
      const at = await page.evaluate((id) => {
        const n = window.__explorer.view.cy.getElementById(`e${id}`);
        const box = window.__explorer.view.cy.container().getBoundingClientRect();
        const p = n.renderedPosition();
        return { x: box.left + p.x, y: box.top + p.y };
      }, open.id);
      await page.mouse.dblclick(at.x, at.y);
      await page.waitForFunction((n) => Number(document.querySelector('#graph').dataset.expanded ?? 0) > n, count);
      await settled();
      assert.equal(await page.evaluate((id) => window.__explorer.view.state().entities.find((e) => e.id === id).expanded, open.id), true);
    }
    assert.ok(await nodes() > 20, `${await nodes()} nodes drawn`);
    assert.deepEqual(await overlaps(), []);
    await shot('no-overlap');
  });

  it('shows an edge’s predicate, declarer, time and anchor record (keyboard: the graph as a list)', async () => {
    await search('INC-0503');
    const { relations, entities } = await drawn();
    const name = (id) => entities.find((e) => e.id === id)?.name;
    const commander = relations.find((r) => r.predicate === 'incident_commander_of' && name(r.subject) === 'Yuki Tanaka');
    assert.ok(commander?.anchor_ref, 'Yuki —incident_commander_of→ INC-0503 is anchored');
    await page.click('#graph details.amv-list summary');
    const button = page.locator(`#graph .amv-list button[data-relation="${commander.id}"]`);
    await button.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((id) => document.querySelector('#panel')?.dataset.relation === String(id), commander.id);
    assert.equal(await page.locator('[data-testid="edge-predicate"]').textContent(), 'incident_commander_of');
    assert.equal(await page.locator('[data-testid="edge-declared-by"]').textContent(), 'agent');
    assert.match(await page.locator('[data-testid="edge-declared-at"]').textContent(), /^2026-11-20 01:40$/);
    assert.equal(await page.locator('[data-testid="edge-anchor"]').textContent(), commander.anchor_ref);
    assert.match(await page.locator('#panel [data-testid="record-text"]').textContent(), /Payout Delay.*incident commander/);
    assert.equal(await page.evaluate(() => window.__explorer.view.cy.$('edge:selected').data('predicate')), 'incident_commander_of');
    await shot('edge');
    await page.click('#graph details.amv-list summary');
  });

  it('adds an alias as operator, reflected at once and searchable', async () => {
    await page.selectOption('#max-hops', '1');
    await search('かいと');
    await page.waitForFunction(() => document.querySelector('#panel')?.dataset.name === 'Kaito Mori');
    await page.fill('[data-testid="alias-input"]', 'カイト');
    await page.click('[data-testid="alias-btn"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="notice"]')?.textContent.includes('カイト'));
    assert.match(await page.locator('[data-testid="panel-aliases"]').textContent(), /カイト/);
    assert.ok((await byName('Kaito Mori')).aliases.includes('カイト'));
    await search('カイト');
    assert.equal((await drawn()).entities.find((e) => e.ring === 0).name, 'Kaito Mori');
  });

  it('declares a relation with an anchor record, drawn at once as the operator’s', async () => {
    await page.waitForFunction(() => document.querySelector('#panel')?.dataset.name === 'Kaito Mori');
    await page.fill('[data-testid="predicate-input"]', 'mentors');
    await page.fill('[data-testid="object-input"]', 'Ren Kobayashi');
    const anchor = await page.locator('[data-testid="anchor-select"] option').nth(1).getAttribute('value');
    await page.selectOption('[data-testid="anchor-select"]', anchor);
    await page.click('[data-testid="declare-btn"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="notice"]')?.textContent.startsWith('Declared'));
    const { relations, entities } = await drawn();
    const kaito = entities.find((e) => e.name === 'Kaito Mori');
    const ren = entities.find((e) => e.name === 'Ren Kobayashi');
    const mentors = relations.find((r) => r.subject === kaito.id && r.object === ren?.id && r.predicate === 'mentors');
    assert.ok(mentors, 'Kaito —mentors→ Ren is drawn');
    assert.equal(mentors.declared_by, 'operator');
    assert.equal(mentors.anchor_ref, anchor);
    assert.equal(await page.evaluate((id) => window.__explorer.view.cy.getElementById(`r${id}`).style('line-style'), mentors.id), 'dashed');
    await shot('declared');
  });

  it('retracts a relation after a confirmation', async () => {
    const { relations, entities } = await drawn();
    const kaito = entities.find((e) => e.name === 'Kaito Mori');
    const mentors = relations.find((r) => r.subject === kaito.id && r.predicate === 'mentors');
    await page.evaluate((id) => window.__explorer.view.select({ relation: id }), mentors.id);
    await page.click('[data-testid="retract-btn"]');
    assert.ok(await page.locator('#confirm').isVisible());
    assert.match(await page.locator('#confirm-text').textContent(), /Retract the relation Kaito Mori —mentors→ Ren Kobayashi/);
    await shot('confirm-retract');
    await page.click('[data-testid="confirm-ok"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="notice"]')?.textContent.startsWith('Retracted'));
    assert.equal((await drawn()).relations.some((r) => r.id === mentors.id), false);
    assert.equal(await page.evaluate((id) => window.__explorer.view.cy.getElementById(`r${id}`).length, mentors.id), 0);
  });

  it('deletes an entity only when confirmed', async () => {
    await search('しらさぎID');
    const shirasagi = (await drawn()).entities.find((e) => e.ring === 0);
    assert.equal(shirasagi.name, 'Shirasagi ID');
    await page.waitForFunction(() => document.querySelector('#panel')?.dataset.name === 'Shirasagi ID');
    await page.click('[data-testid="delete-btn"]');
    await page.click('[data-testid="confirm-cancel"]');
    assert.ok(await byName('Shirasagi ID'), 'cancel keeps it');
    await page.click('[data-testid="delete-btn"]');
    await page.click('[data-testid="confirm-ok"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="notice"]')?.textContent.startsWith('Deleted'));
    assert.equal(await byName('Shirasagi ID'), undefined);
    assert.match(await page.locator('#cut').textContent(), /No entity is named or aliased “しらさぎID”/);
    await search('Merchant Portal');
    assert.equal(await byName('Shirasagi ID'), undefined, 'gone from its neighbours too');
  });

  it('exports the database as a file', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-btn')]);
    assert.match(download.suggestedFilename(), /^team-bot-\d{4}-\d\d-\d\d\.sqlite$/);
    exported = `${OUT}explorer-export.sqlite`;
    await download.saveAs(exported);
    const bytes = readFileSync(exported);
    assert.ok(bytes.length > 100_000);
    assert.equal(bytes.subarray(0, 15).toString('latin1'), 'SQLite format 3');
  });

  it('imports a database file (the export, with the curation in it) into a fresh page', async () => {
    await page.goto(url);
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
    await page.setInputFiles('#file', exported);
    await replace();
    await page.waitForFunction(() => document.querySelector('#status')?.dataset.imported === 'explorer-export.sqlite' && document.querySelector('#status').dataset.state === 'ready');
    assert.match(await page.locator('#status').textContent(), /^file explorer-export\.sqlite: \d+ entities for agent team-bot/);
    // It draws a place to start in what it imported: the most connected entity it lists first.
    await page.waitForFunction(() => window.__explorer.view.state().start && Number(document.querySelector('#graph').dataset.nodes) > 5);
    const start = await page.evaluate(() => window.__explorer.view.state().start);
    const listed = await page.evaluate(async () => (await window.__explorer.agent.listEntities({ limit: 500 })).entities);
    const score = (e) => e.relations + e.mentions;
    assert.equal(score(listed.find((e) => e.name === start)), Math.max(...listed.map(score)), `${start} is the most connected`);
    await search('カイト'); // the alias added before the export
    assert.equal((await drawn()).entities.find((e) => e.ring === 0).name, 'Kaito Mori');
    await page.fill('#entity-input', 'Shirasagi ID');
    await page.press('#entity-input', 'Enter');
    await page.waitForFunction(() => window.__explorer.view.state().missing === 'Shirasagi ID');
  });

  it('imports a database file dropped on the page', async () => {
    await page.goto(url);
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
    const base64 = readFileSync(exported).toString('base64');
    await page.evaluate(async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], 'dropped.sqlite', { type: 'application/octet-stream' }));
      window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, bubbles: true }));
      if (document.querySelector('#drop').hidden) throw new Error('no drop hint while dragging');
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, base64);
    await replace();
    await page.waitForFunction(() => document.querySelector('#status')?.dataset.imported === 'dropped.sqlite' && document.querySelector('#status').dataset.state === 'ready');
    assert.ok(await page.locator('#drop').isHidden());
    assert.equal(await page.locator('#source').inputValue(), 'file');
    await search('カイト');
    assert.equal((await drawn()).entities.find((e) => e.ring === 0).name, 'Kaito Mori');
  });

  it('rejects a file that is not a memory and says so', async () => {
    await page.setInputFiles('#file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a database') });
    await replace();
    await page.waitForSelector('#status[data-state="error"]');
    assert.match(await page.locator('#status').textContent(), /Could not import notes\.txt: not_a_memory/);
  });

  it('opens an encrypted export with its key, and exports it encrypted again', async () => {
    // The export above, encrypted under a passphrase by the package's Node binding.
    const { Memory } = createRequire(import.meta.url)('../../pkg-node/associative_memory.js');
    const keyed = Memory.openInMemory(undefined, 'explorer passphrase');
    keyed.import(readFileSync(exported));
    const encrypted = Buffer.from(keyed.export());
    keyed.free();
    assert.notEqual(encrypted.subarray(0, 15).toString('latin1'), 'SQLite format 3');
    const file = { name: 'encrypted.sqlite', mimeType: 'application/octet-stream', buffer: encrypted };
    const before = await page.evaluate(async () => (await window.__explorer.agent.listEntities({ limit: 1 })).total);
    // a wrong key: a typed error, and the memory it had stays
    await page.setInputFiles('#file', file);
    await replace();
    await page.waitForSelector('#passphrase[open]');
    await page.fill('#passphrase-input', 'not the passphrase');
    await page.click('[data-testid="passphrase-ok"]');
    await page.waitForFunction(() => document.querySelector('#status')?.dataset.state === 'error' && document.querySelector('#status').textContent.includes('encrypted.sqlite'));
    assert.match(await page.locator('#status').textContent(), /Could not import encrypted\.sqlite: wrong_key/);
    assert.equal(await page.evaluate(async () => (await window.__explorer.agent.listEntities({ limit: 1 })).total), before);
    // binary bytes are a database file even when they start as JSON would ('[' here), and
    // cancelling the key changes nothing
    await page.setInputFiles('#file', { ...file, name: 'bracket.sqlite', buffer: Buffer.concat([Buffer.from('['), encrypted.subarray(1)]) });
    await replace();
    await page.waitForSelector('#passphrase[open]');
    await page.click('[data-testid="passphrase-cancel"]');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent.includes('bracket.sqlite needs its key'));
    assert.equal(await page.evaluate(async () => (await window.__explorer.agent.listEntities({ limit: 1 })).total), before);
    // the right one
    await page.setInputFiles('#file', file);
    await replace();
    await page.waitForSelector('#passphrase[open]');
    await page.fill('#passphrase-input', 'explorer passphrase');
    await shot('passphrase');
    await page.click('[data-testid="passphrase-ok"]');
    await page.waitForFunction(() => document.querySelector('#status')?.dataset.imported === 'encrypted.sqlite' && document.querySelector('#status').dataset.state === 'ready');
    await search('カイト');
    assert.equal((await drawn()).entities.find((e) => e.ring === 0).name, 'Kaito Mori');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-btn')]);
    const again = readFileSync(await download.path());
    assert.ok(again.length > 100_000 && again.subarray(0, 15).toString('latin1') !== 'SQLite format 3', 'the export is encrypted');
    assert.ok(!again.includes('Kaito Mori'));
  });

  it('refuses a database file whose schema was edited, says what differed, and keeps the memory it had', async () => {
    // The export with one line of a cascade trigger edited in place (same length, so the file
    // stays valid SQLite): the trigger would then leave aliases behind on every delete.
    const line = Buffer.from('\n    DELETE FROM entity_aliases WHERE entity_id = OLD.id;');
    const edited = Buffer.from('\n   DELETE FROM entity_aliases WHERE entity_id = -OLD.id;');
    const bytes = Buffer.from(readFileSync(exported));
    const at = bytes.indexOf(line);
    assert.ok(at > 0, 'the trigger text is in the export');
    edited.copy(bytes, at);
    const before = await page.evaluate(async () => (await window.__explorer.agent.listEntities({ limit: 1 })).total);
    await page.setInputFiles('#file', { name: 'edited.sqlite', mimeType: 'application/octet-stream', buffer: bytes });
    await replace();
    await page.waitForFunction(() => document.querySelector('#status')?.dataset.state === 'error' && document.querySelector('#status').textContent.includes('edited.sqlite'));
    assert.match(await page.locator('#status').textContent(), /Could not import edited\.sqlite: not_a_memory: .*trigger `entities_cascade` differs from ours/);
    assert.equal(await page.evaluate(async () => (await window.__explorer.agent.listEntities({ limit: 1 })).total), before);
  });

  it('highlights on the graph the records the reconstruct walk reached, with predicate and hops', async () => {
    await page.goto(url);
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
    await page.fill('#ask-input', 'Who resolved INC-0503?');
    await page.press('#ask-input', 'Enter');
    await page.waitForSelector('#answers:not([hidden])');
    assert.ok(Number(await page.locator('#answers').getAttribute('data-items')) > 0);
    assert.ok(Number(await page.locator('#answers').getAttribute('data-walked')) > 0, 'the walk reached records');
    const claim = page.locator('[data-testid="claim"][data-hops="1"]').first();
    assert.match(await claim.getAttribute('data-why'), /^relation:/);
    assert.ok(Number(await graph().getAttribute('data-highlighted')) > 0, 'entities are lit');
    // the entities at the ends of walked paths say what reached them
    const lit = await page.evaluate(() => window.__explorer.view.cy.nodes('.amv-walked').filter((n) => n.data('paths')).map((n) => n.data('label')));
    assert.ok(lit.length > 0);
    assert.ok(lit.every((l) => /\n← [a-z_]+ · \d+ hops?/.test(l)), lit.join(' | '));
    // exactly the relations on the picked item's walked paths (those drawn) are lit, and
    // the far end of every drawn path is labelled with the predicate that reached it
    const { paths, vias, labels, drawn, litEdges, litIds } = await page.evaluate(() => {
      const picked = Number(document.querySelector('#answers').dataset.picked);
      const item = document.querySelectorAll('[data-testid="answer-item"]')[picked];
      const { cy } = window.__explorer.view;
      return {
        paths: [...item.querySelectorAll('[data-testid="claim"]')].filter((li) => li.dataset.path).map((li) => li.dataset.path.split(' ').map(Number)),
        vias: [...item.querySelectorAll('[data-testid="claim"]')].filter((li) => li.dataset.via).map((li) => [Number(li.dataset.via), li.dataset.why.slice('relation:'.length)]),
        labels: Object.fromEntries(cy.nodes().map((n) => [n.data('entity'), n.data('paths') ?? ''])),
        drawn: window.__explorer.view.state().relations.map((r) => r.id),
        litEdges: cy.edges('.amv-walked').map((e) => Number(e.id().slice(1))).sort((a, b) => a - b),
        litIds: document.querySelector('#graph').dataset.highlightedRelations,
      };
    });
    assert.ok(paths.length > 0 && paths.every((p) => p.length >= 1), 'walked claims carry their path');
    const expected = [...new Set(paths.flat().filter((id) => drawn.includes(id)))].sort((a, b) => a - b);
    assert.ok(expected.length > 0, 'the walked relations are on the graph');
    assert.deepEqual(litEdges, expected);
    assert.equal(litIds, expected.join(' '));
    const labelled = vias.filter(([id]) => id in labels);
    assert.ok(labelled.length > 0, 'the ends of the walked paths are on the graph');
    for (const [id, predicate] of labelled) assert.match(labels[id], new RegExp(`(^|; )${predicate} · \\d+ hops?`), `entity ${id}`);
    await shot('reconstruct');
    await page.click('#ask-clear');
    assert.equal(await page.evaluate(() => window.__explorer.view.cy.$('.amv-walked, .amv-dim').length), 0);
  });

  it('adds the memories of a JSON file through storeMany, with a progress bar, and names a malformed item', async () => {
    const p = await context.newPage();
    watch(p);
    await p.goto(url);
    await p.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
    const total = () => p.evaluate(async () => (await window.__explorer.agent.listMemories({ limit: 1 })).total);
    const before = await total();
    // Every value the progress bar showed, as the page drew it.
    await p.evaluate(() => {
      window.__progress = [];
      new MutationObserver(() => {
        const d = document.querySelector('#import-progress').dataset.done;
        if (d !== undefined && window.__progress.at(-1) !== Number(d)) window.__progress.push(Number(d));
      }).observe(document.querySelector('#import-progress'), { attributes: true, attributeFilter: ['data-done'] });
    });
    const n = 20_000; // in memory: twenty transactions of 1,000, the page painting between them
    const items = Array.from({ length: n }, (_, k) => ({
      content: `Imported note ${k}: the ledger batch ran ${k % 7} minutes late.`,
      timestamp: new Date(Date.UTC(2026, 0, 1) + k * 60_000).toISOString(),
      associations: { entities: [{ name: `Import Topic ${k % 40}` }] },
    }));
    await p.setInputFiles('#file', { name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ items })) });
    await p.waitForSelector('#import-progress:not([hidden])');
    await p.screenshot({ path: `${OUT}explorer-import-progress.png` });
    await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'notes.json' && document.querySelector('#status').dataset.state === 'ready', null, { timeout: 120_000 });
    assert.equal(await total(), before + n);
    const shown = await p.evaluate(() => window.__progress);
    assert.ok(shown.length >= 3, `the bar moved: ${shown.join(', ')}`);
    assert.ok(shown.every((d, i) => i === 0 || d > shown[i - 1]), `it only moved forward: ${shown.join(', ')}`);
    assert.equal(shown.at(-1), n, `it reached the end: ${shown.join(', ')}`);
    assert.equal(await p.locator('#import-progress').isHidden(), true);
    assert.match(await p.locator('#status').textContent(), /20,000 memories imported from notes\.json|20000 memories imported from notes\.json/);

    // A malformed item: named by its place in the file, and nothing of its batch stored.
    const bad = items.slice(0, 50).map((m, k) => (k === 37 ? { ...m, content: '  ' } : m));
    await p.setInputFiles('#file', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bad)) });
    await p.waitForSelector('#status[data-state="error"]');
    assert.match(await p.locator('#status').textContent(), /Could not import bad\.json: invalid_value \(items\[37\]\.content\).*nothing was stored/);
    assert.equal(await total(), before + n);
    await p.close();
  });

  it('adds an MCP memory server graph (memory.jsonl) and draws it', async () => {
    const p = await context.newPage();
    watch(p);
    await p.goto(url);
    await p.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
    // The lines the official server writes (package-mcp-import.test.mjs drives the real one).
    const jsonl = [
      { type: 'entity', name: 'Hoshi Rail', entityType: 'project', observations: ['Hoshi Rail moves settlement to a new rail.', '星レールは決済を新しいレールに移す。'] },
      { type: 'entity', name: 'Noor Haddad', entityType: 'person', observations: ['Noor leads Hoshi Rail.'] },
      { type: 'relation', from: 'Noor Haddad', to: 'Hoshi Rail', relationType: 'leads' },
    ].map((l) => JSON.stringify(l)).join('\n');
    await p.setInputFiles('#file', { name: 'memory.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(jsonl) });
    await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'memory.jsonl' && document.querySelector('#status').dataset.state === 'ready', null, { timeout: 60_000 });
    // a memory per entity (2), observation (3) and relation (1), as importMcpMemoryGraph lays a graph out
    assert.match(await p.locator('#status').textContent(), /2 entities, 6 memories and 1 relation imported from memory\.jsonl/);
    await p.fill('#entity-input', 'Hoshi Rail');
    await p.press('#entity-input', 'Enter');
    await p.waitForFunction(() => window.__explorer.view.state().start === 'Hoshi Rail' && document.querySelector('#graph').dataset.state !== 'loading');
    const drawn = await p.evaluate(() => window.__explorer.view.state().relations.map((r) => r.predicate));
    assert.deepEqual(drawn, ['leads']);
    await p.screenshot({ path: `${OUT}explorer-mcp-import.png` });
    await p.close();
  });

  it('exports the agent as the reference\'s JSONL and imports such a file (ours, and the reference\'s own)', async () => {
    const p = await context.newPage();
    watch(p);
    await p.goto(url);
    await p.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
    const [download] = await Promise.all([p.waitForEvent('download'), p.click('#export-jsonl-btn')]);
    assert.match(download.suggestedFilename(), /^team-bot-\d{4}-\d\d-\d\d\.jsonl$/);
    const file = `${OUT}explorer-export.jsonl`;
    await download.saveAs(file);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines[0].version, 'cpersona-export/1.1');
    assert.equal(lines.filter((l) => l._type === 'memory').length, corpus.memories.length);
    // Into another agent of the same page: the same memories, entities and relations.
    await p.fill('#agent', 'copy-bot');
    await p.setInputFiles('#file', file);
    await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'explorer-export.jsonl' && document.querySelector('#status').dataset.state === 'ready', null, { timeout: 60_000 });
    const counts = await p.evaluate(async () => [
      (await window.__explorer.memory.agent('copy-bot').listMemories({ limit: 1 })).total,
      (await window.__explorer.memory.agent('copy-bot').listEntities({ limit: 1 })).total,
      (await window.__explorer.memory.agent('team-bot').listEntities({ limit: 1 })).total,
    ]);
    assert.deepEqual(counts, [corpus.memories.length, counts[2], counts[2]]);
    // The reference implementation's own export (tests/fixtures/reference/).
    const reference = fileURLToPath(new URL('../../tests/fixtures/reference/export.jsonl', import.meta.url));
    await p.fill('#agent', 'from-reference');
    await p.setInputFiles('#file', reference);
    await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'export.jsonl' && document.querySelector('#status').dataset.state === 'ready', null, { timeout: 60_000 });
    assert.match(await p.locator('#status').textContent(), /3 memories, 1 episode, 3 entities and 3 relations imported from export\.jsonl/);
    await p.close();
  });

  it('lists the memories newest first, searches, edits and deletes them (the memories view)', async () => {
    const p = await context.newPage();
    watch(p);
    await p.goto(url);
    await p.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
    const view = p.locator('[data-testid="memories"]');
    const shown = async () => Number(await view.getAttribute('data-shown'));
    const texts = () => p.locator('[data-testid="memory"] [data-testid="memory-text"]').allTextContents();
    /** Everything the agent's entities point at: declarations that must stay through an edit. */
    const mentions = () => p.evaluate(async () => {
      const { entities } = await window.__explorer.agent.listEntities({ limit: 500 });
      return entities.reduce((n, e) => n + e.mentions, 0);
    });
    const loaded = (pred) => p.waitForFunction(pred, null, { timeout: 30_000 });

    // Newest first, a page at a time, the count of all of them.
    await p.click('[data-testid="tab-memories"]');
    assert.equal(await p.locator('#graph-view').isHidden(), true, 'the graph gives way to the memories');
    await loaded(() => Number(document.querySelector('[data-testid="memories"]').dataset.shown) > 0);
    const order = corpus.memories.map((m, i) => ({ m, i })).sort((a, b) => Date.parse(b.m.timestamp) - Date.parse(a.m.timestamp) || b.i - a.i);
    assert.equal(Number(await view.getAttribute('data-total')), corpus.memories.length);
    assert.equal(await shown(), 50);
    assert.deepEqual(await texts(), order.slice(0, 50).map(({ m }) => m.content));
    await p.click('[data-testid="memories-more"]');
    await loaded(() => Number(document.querySelector('[data-testid="memories"]').dataset.shown) === 100);
    assert.deepEqual((await texts()).slice(50), order.slice(50, 100).map(({ m }) => m.content));
    await p.screenshot({ path: `${OUT}explorer-memories.png` });

    // Search goes through recall: every record shown contains the word.
    await p.fill('[data-testid="memories-query"]', 'ledger');
    await p.click('[data-testid="memories-search"]');
    await loaded(() => document.querySelector('[data-testid="memories"]').dataset.query === 'ledger');
    const found = await texts();
    assert.ok(found.length > 0 && found.length <= 100, `${found.length} found`);
    for (const t of found) assert.match(t, /ledger/i);
    assert.match(await p.locator('[data-testid="memories-summary"]').textContent(), /answer “ledger”/);

    // An empty text is refused by the engine, named, and nothing changes.
    const row = p.locator('[data-testid="memory"]').first();
    const ref = await row.getAttribute('data-ref');
    assert.match(ref, /^mem:\d+$/);
    const before = await mentions();
    await row.locator('[data-testid="memory-edit"]').click();
    await row.locator('[data-testid="memory-editor"]').fill('');
    await row.locator('[data-testid="memory-save"]').click();
    await row.locator('[data-testid="memory-error"]').waitFor({ state: 'visible' });
    assert.match(await row.locator('[data-testid="memory-error"]').textContent(), /content/);
    const kept = await p.evaluate((r) => window.__explorer.agent.getContents({ refs: [r] }), ref);
    assert.match(kept.items[0].content, /ledger/i, 'the refused edit changed nothing');

    // An edit: search follows the new text; the declarations resting on the memory stay.
    const edited = 'Zephyrine Okafor now maintains the ledger service (handover, Thursday).';
    await row.locator('[data-testid="memory-editor"]').fill(edited);
    await row.locator('[data-testid="memory-save"]').click();
    await p.waitForFunction((r) => document.querySelector(`[data-testid="memory"][data-ref="${r}"] [data-testid="memory-text"]`)?.textContent.startsWith('Zephyrine'), ref);
    assert.equal(await mentions(), before, 'the mentions on the edited memory stay');
    await p.fill('[data-testid="memories-query"]', 'Zephyrine');
    await p.click('[data-testid="memories-search"]');
    await loaded(() => document.querySelector('[data-testid="memories"]').dataset.query === 'Zephyrine');
    assert.deepEqual(await texts(), [edited]);
    assert.match(await p.locator('#panel [data-testid="notice"]').textContent(), new RegExp(`Updated ${ref}`));

    // Delete asks first; cancelled, nothing happens; confirmed, the memory and its mentions go.
    const target = p.locator(`[data-testid="memory"][data-ref="${ref}"]`);
    await target.locator('[data-testid="memory-delete"]').click();
    await p.waitForSelector('#confirm[open]');
    assert.match(await p.locator('#confirm-text').textContent(), new RegExp(`Delete the memory ${ref}\\?`));
    await p.click('[data-testid="confirm-cancel"]');
    assert.equal((await p.evaluate((r) => window.__explorer.agent.getContents({ refs: [r] }), ref)).items.length, 1);
    await target.locator('[data-testid="memory-delete"]').click();
    await p.waitForSelector('#confirm[open]');
    await p.screenshot({ path: `${OUT}explorer-memories-delete.png` });
    await p.click('[data-testid="confirm-ok"]');
    await loaded(() => Number(document.querySelector('[data-testid="memories"]').dataset.shown) === 0);
    const gone = await p.evaluate((r) => window.__explorer.agent.getContents({ refs: [r] }), ref);
    assert.deepEqual([gone.items.length, gone.missing], [0, [ref]]);
    assert.ok(await mentions() < before, 'its mentions went with it');
    await p.click('[data-testid="memories-all"]');
    await loaded(() => document.querySelector('[data-testid="memories"]').dataset.query === '' && Number(document.querySelector('[data-testid="memories"]').dataset.total) > 0);
    assert.equal(Number(await view.getAttribute('data-total')), corpus.memories.length - 1);

    // Back to the graph, drawn as before.
    await p.click('[data-testid="tab-graph"]');
    assert.equal(await view.isHidden(), true);
    assert.ok(Number(await p.locator('#graph').getAttribute('data-nodes')) > 5);
    await p.close();
  });

  it('opens a named OPFS memory, fills it, and finds it again after a reload', async () => {
    await page.selectOption('#source', 'opfs');
    await page.fill('#opfs-name', 'explorer-test');
    await page.click('#opfs-open');
    const dialog = page.locator('#confirm');
    await page.waitForFunction(() => document.querySelector('#confirm').open || document.querySelector('#status').dataset.state === 'ready' && document.querySelector('#status').textContent.startsWith('OPFS'));
    if (await dialog.isVisible()) await page.click('[data-testid="confirm-ok"]');
    await page.waitForFunction(() => document.querySelector('#status').dataset.state === 'ready' && document.querySelector('#status').textContent.startsWith('OPFS memory explorer-test'), null, { timeout: 60_000 });
    assert.ok(Number(await page.locator('#status').getAttribute('data-entities')) >= 45);
    await page.reload();
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
    await page.selectOption('#source', 'opfs');
    await page.fill('#opfs-name', 'explorer-test');
    await page.click('#opfs-open');
    await page.waitForFunction(() => document.querySelector('#status').dataset.state === 'ready' && document.querySelector('#status').textContent.startsWith('OPFS memory explorer-test'), null, { timeout: 60_000 });
    assert.equal(await dialog.isVisible(), false, 'the memory kept its content');
  });

  it('is readable on a phone (390×844) and reachable by keyboard', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    watch(phone);
    await phone.goto(url);
    await phone.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
    await phone.waitForFunction(() => Number(document.querySelector('#graph')?.dataset.nodes) > 5);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no sideways scrolling (${overflow}px)`);
    const box = await phone.locator('#graph .amv-canvas').boundingBox();
    assert.ok(box.width >= 340 && box.height >= 300, `the graph is ${box.width}×${box.height}`);
    await phone.screenshot({ path: `${OUT}explorer-phone.png` });
    await phone.screenshot({ path: `${OUT}explorer-phone-full.png`, fullPage: true });
    // Tab from the top reaches the search, the controls (folded under "Source & settings",
    // opened with Enter), the time bar and the graph.
    const reached = [];
    for (let i = 0; i < 24; i++) {
      await phone.keyboard.press('Tab');
      reached.push(await phone.evaluate(() => document.activeElement?.id || document.activeElement?.className || document.activeElement?.tagName));
      if (reached.at(-1) === 'controls-toggle') await phone.keyboard.press('Enter');
    }
    for (const id of ['entity-input', 'max-hops', 'limit', 'search-btn', 'as-of-mode', 'as-of-slider', 'as-of-input', 'amv-canvas']) assert.ok(reached.includes(id), `${id} in ${reached.join(', ')}`);
    await phone.close();
  });

  it('logged no errors or warnings', () => {
    assert.deepEqual(problems, []);
  });
});
