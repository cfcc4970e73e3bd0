// The embedding path of `associative-memory/view`, apart from the explorer: a minimal host
// app of its own (www/view/host/) opens a memory, stores four notes and mounts the view into
// its own element. Also checks the package wiring: the subpath is exported and the core
// entry never imports cytoscape.
//
//   node --test www/test/view.test.mjs      # after scripts/build-wasm.sh
//
// Screenshots: test-output/view-host-*.png.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, offline, watch } from './harness.mjs';
import { buildPage, servePages } from '../explorer/build.mjs';
import { CONSUMER } from './pack.mjs';

const ROOT = new URL('../../', import.meta.url);
const OUT = fileURLToPath(new URL('test-output/', ROOT));
const PKG = fileURLToPath(new URL('pkg/', ROOT));

describe('graph view embedded in a host app', { skip: existsSync(`${PKG}view.js`) ? false : 'no pkg/view.js; run scripts/build-wasm.sh' }, () => {
  let server;
  let browser;
  let page;
  const problems = [];

  const state = () => page.evaluate(() => {
    const s = window.__host.view.state();
    return { entities: s.entities.map((e) => ({ id: e.id, name: e.name, ring: e.ring, mentions: e.mention_count, expanded: e.expanded })), relations: s.relations };
  });
  async function clickNode(name, clicks = 1) {
    const at = await page.evaluate((n) => {
      const cy = window.__host.view.cy;
      const node = cy.nodes().filter((x) => x.data('name') === n);
      const box = cy.container().getBoundingClientRect();
      const p = node.renderedPosition();
      return { x: box.left + p.x, y: box.top + p.y };
    }, name);
    if (clicks === 2) await page.mouse.dblclick(at.x, at.y); else await page.mouse.click(at.x, at.y);
    return at;
  }

  before(async () => {
    await mkdir(OUT, { recursive: true });
    await buildPage('view-host');
    server = await servePages({ port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 900, height: 700 } });
    watch(page, problems, { warnings: true });
    await offline(page, problems);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('is a subpath of the package; the core entry does not import cytoscape', () => {
    const manifest = JSON.parse(readFileSync(`${PKG}package.json`, 'utf8'));
    assert.deepEqual(manifest.exports['./view'], { types: './view.d.ts', default: './view.js' });
    assert.ok(manifest.files.includes('view.js') && manifest.files.includes('view.d.ts'));
    assert.equal(manifest.peerDependenciesMeta?.cytoscape?.optional, true);
    assert.equal(manifest.dependencies?.cytoscape, undefined, 'cytoscape is not a dependency of the core');
    for (const f of ['index.js', 'core.js', 'node.js', 'backend.js', 'worker.js']) {
      assert.doesNotMatch(readFileSync(`${PKG}${f}`, 'utf8'), /cytoscape/, `${f} never mentions cytoscape`);
    }
    // As installed from the tarball (www/test/pack.mjs), when that ran first: the subpath resolves.
    if (existsSync(join(CONSUMER, 'node_modules/associative-memory/package.json'))) {
      const resolved = createRequire(join(CONSUMER, 'index.js')).resolve('associative-memory/view');
      assert.match(resolved, /node_modules\/associative-memory\/view\.js$/);
      assert.ok(existsSync(resolved.replace(/\.js$/, '.d.ts')));
      // The view is several modules: every one view.js and view.d.ts reach is in the tarball.
      const reached = [];
      const follow = (file) => {
        for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from '(\.\/[^']+)'/g)) {
          const next = join(dirname(file), spec.replace(/\.js$/, file.endsWith('.d.ts') ? '.d.ts' : '.js'));
          if (reached.includes(next)) continue;
          assert.ok(existsSync(next), `${file} imports ${spec}, which the tarball lacks`);
          reached.push(next);
          follow(next);
        }
      };
      follow(resolved);
      follow(resolved.replace(/\.js$/, '.d.ts'));
      assert.ok(reached.some((f) => /view-state\.d\.ts$/.test(f)) && reached.some((f) => /view-dom\.js$/.test(f)), reached.join(', '));
    }
    assert.match(readFileSync(`${PKG}view-dom.js`, 'utf8'), /from 'cytoscape'/, 'the view draws with cytoscape');
    assert.match(readFileSync(`${PKG}view.d.ts`, 'utf8'), /export declare function mountGraphView\(element: HTMLElement, memory: TraversingMemory, options\?: GraphViewOptions\): GraphView;/);
  });

  it('draws the neighbourhood the host asked for, found by a Japanese alias', async () => {
    await page.goto(new URL('view-host/', server.url).href);
    await page.waitForSelector('#app-graph[data-state="ready"]', { timeout: 60_000 });
    const { entities, relations } = await state();
    assert.deepEqual(entities.map((e) => `${e.name}:${e.ring}`).sort(), ['Ana Costa:1', 'Atlas:0', 'Ben Ito:1', 'Tile Server:1']);
    const name = (id) => entities.find((e) => e.id === id).name;
    assert.deepEqual(relations.map((r) => `${name(r.subject)} ${r.predicate} ${name(r.object)}`).sort(),
      ['Ana Costa leads Atlas', 'Atlas depends_on Tile Server', 'Ben Ito operates Tile Server', 'Ben Ito reviews Atlas']);
    const drawn = await page.evaluate(() => window.__host.view.cy.edges().map((e) => `${e.source().data('name')}→${e.target().data('name')}:${e.data('predicate')}`).sort());
    assert.deepEqual(drawn, ['Ana Costa→Atlas:leads', 'Atlas→Tile Server:depends_on', 'Ben Ito→Tile Server:operates', 'Ben Ito→Atlas:reviews'].sort());
    // Size by mentions: Atlas is in two notes, Ana Costa in one.
    const width = (n) => page.evaluate((x) => window.__host.view.cy.nodes().filter((y) => y.data('name') === x).width(), n);
    assert.ok(await width('Atlas') > await width('Ana Costa'));
    assert.equal(await page.locator('#app-graph .amv-list summary').textContent(), 'Graph as a list: 4 entities, 4 relations');
    await page.screenshot({ path: `${OUT}view-host-drawn.png` });
  });

  it('shows the aliases on hover', async () => {
    const at = await page.evaluate(() => {
      const cy = window.__host.view.cy;
      const node = cy.nodes().filter((x) => x.data('name') === 'Atlas');
      const box = cy.container().getBoundingClientRect();
      const p = node.renderedPosition();
      return { x: box.left + p.x, y: box.top + p.y };
    });
    await page.mouse.move(at.x, at.y);
    await page.waitForFunction(() => document.querySelector('#app-graph .amv-canvas').title.includes('アトラス'));
    assert.match(await page.locator('#app-graph .amv-canvas').getAttribute('title'), /^Atlas\naliases: アトラス\n2 mentions · 0 hops$/);
  });

  it('tells the host what was clicked without expanding it', async () => {
    await clickNode('Tile Server');
    await page.waitForFunction(() => document.querySelector('#picked').textContent.startsWith('Entity: Tile Server'));
    // Long enough for an expansion to have started and ended, had the click begun one.
    await page.waitForTimeout(400);
    assert.equal(await page.locator('#app-graph').getAttribute('data-expanded'), null, 'nothing was expanded');
    assert.equal(await page.locator('#app-graph').getAttribute('data-state'), 'ready');
    const { entities } = await state();
    assert.equal(entities.length, 4);
    assert.equal(entities.find((e) => e.name === 'Tile Server').expanded, false);
    assert.equal(await page.evaluate(() => window.__host.view.cy.$('node:selected').data('name')), 'Tile Server');
    await page.screenshot({ path: `${OUT}view-host-selected.png` });
  });

  it('expands a double-clicked node in place', async () => {
    const before = await page.evaluate(() => Object.fromEntries(window.__host.view.cy.nodes().map((n) => [n.data('name'), n.position()])));
    await clickNode('Tile Server', 2);
    await page.waitForFunction(() => window.__host.view.state().entities.some((e) => e.name === 'Object Store'));
    await page.waitForSelector('#app-graph[data-state="ready"]');
    const { entities } = await state();
    assert.equal(entities.find((e) => e.name === 'Object Store').ring, 2);
    assert.equal(entities.find((e) => e.name === 'Tile Server').expanded, true);
    const after = await page.evaluate(() => Object.fromEntries(window.__host.view.cy.nodes().map((n) => [n.data('name'), n.position()])));
    for (const [n, p] of Object.entries(before)) assert.ok(Math.abs(after[n].x - p.x) < 0.5 && Math.abs(after[n].y - p.y) < 0.5, `${n} kept its place`);
    assert.equal(await page.evaluate(() => window.__host.view.cy.edges().filter((e) => e.data('predicate') === 'stores_in').length), 1);
    await page.screenshot({ path: `${OUT}view-host-expanded.png` });
  });

  it('selects an edge from the keyboard list and reports it', async () => {
    await page.click('#app-graph .amv-list summary');
    const leads = page.locator('#app-graph .amv-list button', { hasText: 'Ana Costa —leads→ Atlas' });
    await leads.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#picked').dataset.kind === 'relation');
    assert.equal(await page.locator('#picked').textContent(), 'Relation: Ana Costa leads Atlas');
    assert.equal(await leads.getAttribute('aria-pressed'), 'true');
  });

  it('expands a node with Enter on its list button; a click on the button only selects', async () => {
    const ana = page.locator('#app-graph .amv-list button[data-name="Ana Costa"]');
    await ana.click();
    await page.waitForFunction(() => document.querySelector('#picked').textContent.startsWith('Entity: Ana Costa'));
    assert.equal((await state()).entities.find((e) => e.name === 'Ana Costa').expanded, false);
    const count = Number(await page.locator('#app-graph').getAttribute('data-expanded'));
    await ana.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => Number(document.querySelector('#app-graph').dataset.expanded) > n, count);
    await page.waitForSelector('#app-graph[data-state="ready"]');
    assert.equal((await state()).entities.find((e) => e.name === 'Ana Costa').expanded, true);
    assert.match(await page.locator('#picked').textContent(), /^Entity: Ana Costa/);
  });

  it('collapses an expansion: what only it brought in goes, with expansions hanging off it; the start and what is reached another way stay', async () => {
    const id = async (name) => (await state()).entities.find((e) => e.name === name)?.id;
    const names = async () => (await state()).entities.map((e) => e.name).sort();
    const [tile, store, ben] = [await id('Tile Server'), await id('Object Store'), await id('Ben Ito')];
    assert.ok(store, 'Object Store came in with Tile Server’s expansion');
    await page.evaluate((x) => window.__host.view.expand(x), store);
    await page.evaluate((x) => window.__host.view.expand(x), ben);
    // Ben Ito's neighbours (Atlas, Tile Server) were drawn already: collapsing him removes nothing.
    assert.equal(await page.evaluate((x) => window.__host.view.collapse(x), ben), 0);
    assert.deepEqual(await names(), ['Ana Costa', 'Atlas', 'Ben Ito', 'Object Store', 'Tile Server']);
    assert.equal((await state()).entities.find((e) => e.name === 'Ben Ito').expanded, false);
    // Tile Server's expansion alone brought Object Store (and Object Store's own expansion hangs off it).
    await page.evaluate((x) => window.__host.view.select({ entity: x }), store);
    assert.equal(await page.evaluate((x) => window.__host.view.collapse(x), tile), 1);
    assert.deepEqual(await names(), ['Ana Costa', 'Atlas', 'Ben Ito', 'Tile Server']);
    assert.equal((await state()).entities.find((e) => e.name === 'Tile Server').expanded, false);
    assert.equal(await page.locator('#app-graph').getAttribute('data-nodes'), '4');
    assert.equal(await page.locator('#picked').textContent(), 'Nothing selected.', 'the selected node went, so did the selection');
    // Expanding again brings Object Store back, not expanded: its own expansion went with the collapse.
    await page.evaluate((x) => window.__host.view.expand(x), tile);
    assert.equal((await state()).entities.find((e) => e.name === 'Object Store')?.expanded, false);
    // The start cannot be collapsed away.
    const atlas = await id('Atlas');
    await page.evaluate((x) => window.__host.view.collapse(x), atlas);
    assert.ok((await names()).includes('Atlas'));
  });

  it('hides a node and its edges from the canvas and the list, and shows them again', async () => {
    const ben = (await state()).entities.find((e) => e.name === 'Ben Ito').id;
    await page.evaluate((x) => window.__host.view.select({ entity: x }), ben);
    assert.equal(await page.evaluate((x) => window.__host.view.hide(x), ben), true);
    const seen = () => page.evaluate(() => {
      const cy = window.__host.view.cy;
      return { nodes: cy.nodes().filter((n) => n.visible()).map((n) => n.data('name')).sort(), edges: cy.edges().filter((e) => e.visible()).length, hidden: window.__host.view.state().hidden };
    });
    console.log(await page.evaluate((x) => { const cy = window.__host.view.cy; const n = cy.getElementById('e' + x); return [n.visible(), cy.nodes().map((m) => [m.id(), m.data('name'), m.visible(), m.classes().join()])]; }, ben));
    const hidden = await seen();
    assert.ok(!hidden.nodes.includes('Ben Ito'), hidden.nodes.join(', '));
    assert.deepEqual(hidden.hidden, [ben]);
    assert.equal(await page.locator('#app-graph').getAttribute('data-hidden'), '1');
    assert.equal(await page.locator('#app-graph .amv-list button[data-name="Ben Ito"]').count(), 0);
    assert.equal(await page.locator('#app-graph .amv-list button', { hasText: 'Ben Ito' }).count(), 0, 'nor his relations');
    assert.equal(await page.locator('#app-graph .amv-list summary').textContent(), 'Graph as a list: 4 entities, 3 relations');
    assert.equal(await page.locator('#picked').textContent(), 'Nothing selected.');
    await page.screenshot({ path: `${OUT}view-host-hidden.png` });
    assert.equal(await page.evaluate(() => window.__host.view.showHidden()), 1);
    const shown = await seen();
    assert.ok(shown.nodes.includes('Ben Ito'));
    assert.equal(shown.edges, hidden.edges + 2, 'reviews and operates are drawn again');
    assert.deepEqual(shown.hidden, []);
    assert.equal(await page.locator('#app-graph .amv-list button[data-name="Ben Ito"]').count(), 1);
  });

  it('pans and zooms from the keyboard', async () => {
    await page.focus('#app-graph .amv-canvas');
    const before = await page.evaluate(() => ({ zoom: window.__host.view.cy.zoom(), pan: window.__host.view.cy.pan() }));
    await page.keyboard.press('-');
    await page.keyboard.press('ArrowLeft');
    const after = await page.evaluate(() => ({ zoom: window.__host.view.cy.zoom(), pan: window.__host.view.cy.pan() }));
    assert.ok(after.zoom < before.zoom, 'zoomed out');
    await page.keyboard.press('0');
    assert.ok(await page.evaluate(() => window.__host.view.cy.zoom()) > after.zoom, 'fitted again');
  });

  it('has labelled zoom in, zoom out and fit buttons, reached by Tab after the canvas', async () => {
    const zoom = () => page.evaluate(() => window.__host.view.cy.zoom());
    await page.focus('#app-graph .amv-canvas');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Zoom in');
    const z0 = await zoom();
    await page.keyboard.press('Enter');
    const z1 = await zoom();
    assert.ok(z1 > z0, `zoomed in: ${z0} → ${z1}`);
    await page.getByRole('button', { name: 'Zoom out' }).click();
    await page.getByRole('button', { name: 'Zoom out' }).click();
    const z2 = await zoom();
    assert.ok(z2 < z1, `zoomed out: ${z1} → ${z2}`);
    await page.getByRole('button', { name: 'Fit the graph in view' }).click();
    const inView = await page.evaluate(() => {
      const cy = window.__host.view.cy;
      const b = cy.elements().renderedBoundingBox();
      return b.x1 >= 0 && b.y1 >= 0 && b.x2 <= cy.width() && b.y2 <= cy.height();
    });
    assert.ok(inView, 'fit: everything in view');
    assert.notEqual(await zoom(), z2);
    for (const b of await page.locator('#app-graph .amv-controls button').all()) {
      const box = await b.boundingBox();
      assert.ok(box.width >= 24 && box.height >= 24, `${await b.getAttribute('aria-label')}: ${box.width}×${box.height}`);
    }
  });

  it('draws a legend of the relation types drawn, each toggling its edges', async () => {
    const legend = page.locator('#app-graph .amv-predicates button');
    assert.deepEqual(await legend.evaluateAll((bs) => bs.map((b) => b.dataset.predicate)), ['depends_on', 'leads', 'operates', 'reviews', 'stores_in']);
    const shown = (p) => page.evaluate((x) => window.__host.view.cy.edges().filter((e) => e.data('predicate') === x && e.visible()).length, p);
    assert.equal(await shown('reviews'), 1);
    const reviews = page.locator('#app-graph .amv-predicates button[data-predicate="reviews"]');
    assert.equal(await reviews.getAttribute('aria-pressed'), 'true');
    await reviews.click();
    assert.equal(await shown('reviews'), 0);
    assert.equal(await shown('leads'), 1, 'other types stay');
    assert.equal(await reviews.getAttribute('aria-pressed'), 'false');
    assert.deepEqual(await page.evaluate(() => window.__host.view.state().hidden_predicates), ['reviews']);
    assert.equal(await page.locator('#app-graph .amv-list button', { hasText: '—reviews→' }).count(), 0, 'nor in the list');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.predicate), 'reviews', 'focus stays on the toggle');
    await page.screenshot({ path: `${OUT}view-host-legend.png` });
    await page.keyboard.press('Enter');
    assert.equal(await shown('reviews'), 1);
    assert.equal(await reviews.getAttribute('aria-pressed'), 'true');
    assert.deepEqual(await page.evaluate(() => window.__host.view.state().hidden_predicates), []);
  });

  it('still expands on a click for a host that sets expandOnSelect', async () => {
    await page.evaluate(() => {
      const div = document.createElement('div');
      div.id = 'second';
      div.style.height = '300px';
      document.body.append(div);
      window.__second = window.__host.mountGraphView(div, window.__host.memory, { agent_id: 'notes-app', entity: 'Atlas', expandOnSelect: true, list: false });
    });
    await page.waitForSelector('#second[data-state="ready"]', { timeout: 30_000 });
    await page.locator('#second').scrollIntoViewIfNeeded();
    // The view fits once more on the frame after it is ready (labels measured).
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const at = await page.evaluate(() => {
      const cy = window.__second.cy;
      const n = cy.nodes().filter((x) => x.data('name') === 'Tile Server');
      const box = cy.container().getBoundingClientRect();
      const p = n.renderedPosition();
      return { x: box.left + p.x, y: box.top + p.y };
    });
    await page.mouse.click(at.x, at.y);
    await page.waitForSelector('#second[data-expanded="1"]');
    assert.deepEqual(await page.evaluate(() => window.__second.state().entities.filter((e) => e.expanded).map((e) => e.name)), ['Tile Server']);
    assert.ok(await page.evaluate(() => window.__second.state().entities.some((e) => e.name === 'Object Store')));
    await page.evaluate(() => { window.__second.destroy(); document.querySelector('#second').remove(); });
  });

  it('logged no errors or warnings', () => {
    assert.deepEqual(problems, []);
  });
});
