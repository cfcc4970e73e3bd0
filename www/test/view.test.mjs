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
    assert.match(await page.locator('#app-graph .amv-canvas').getAttribute('title'), /^Atlas\naliases: アトラス\n2 mentions · 3 relations · 0 hops$/);
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

  /** Mounts another view of the host's memory into a new element `id` (300 px high) and waits until it is drawn. */
  async function mountAnother(id, options) {
    await page.evaluate(([x, o]) => {
      const div = document.createElement('div');
      div.id = x;
      div.style.height = '360px';
      div.style.maxWidth = '760px';
      document.body.append(div);
      window[`__${x}`] = window.__host.mountGraphView(div, window.__host.memory, { agent_id: 'notes-app', ...o });
    }, [id, options]);
    await page.waitForSelector(`#${id}[data-state="ready"]`, { timeout: 30_000 });
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  }
  const unmount = (id) => page.evaluate((x) => { window[`__${x}`].destroy(); document.getElementById(x).remove(); }, id);
  /** Each drawn node: name, ring, centre and box with its label. */
  const placed = (id) => page.evaluate((x) => window[`__${x}`].cy.nodes().map((n) => ({
    name: n.data('name'), ring: n.data('ring'), ...n.position(), box: n.boundingBox({ includeLabels: true, includeOverlays: false }),
  })), id);
  const overlaps = (nodes) => {
    const out = [];
    for (const [i, a] of nodes.entries()) for (const b of nodes.slice(i + 1)) {
      if (a.box.x1 < b.box.x2 && b.box.x1 < a.box.x2 && a.box.y1 < b.box.y2 && b.box.y1 < a.box.y2) out.push(`${a.name}/${b.name}`);
    }
    return out;
  };

  it('lays out in rings around the start or in rows under it, expansions keeping the layout', async () => {
    await mountAnother('layouts', { entity: 'Ana Costa', max_hops: 1, layout: 'concentric', list: false });
    const expand = (name) => page.evaluate((n) => {
      const v = window.__layouts;
      return v.expand(v.state().entities.find((e) => e.name === n).id);
    }, name);
    assert.equal(await page.getAttribute('#layouts', 'data-layout'), 'concentric');
    await expand('Atlas');
    await expand('Tile Server');
    /** Rings around the start: each ring's nodes at one distance from it, every ring farther out than the one inside it. */
    const ringsHold = async () => {
      const nodes = await placed('layouts');
      const start = nodes.find((n) => n.ring === 0);
      const radii = new Map();
      for (const n of nodes) radii.set(n.ring, [...(radii.get(n.ring) ?? []), Math.hypot(n.x - start.x, n.y - start.y)]);
      const rings = [...radii.keys()].sort();
      assert.deepEqual(rings, [0, 1, 2, 3], JSON.stringify(nodes));
      for (const r of rings) assert.ok(Math.max(...radii.get(r)) - Math.min(...radii.get(r)) < 1, `ring ${r} is a circle: ${radii.get(r)}`);
      for (const r of rings.slice(1)) assert.ok(Math.min(...radii.get(r)) > Math.max(...radii.get(r - 1)) + 10, `ring ${r} lies outside ring ${r - 1}`);
      assert.deepEqual(overlaps(nodes), [], 'no two nodes (with their labels) overlap');
    };
    await ringsHold();
    await page.screenshot({ path: `${OUT}view-host-concentric.png`, clip: await page.locator('#layouts').boundingBox() });

    await page.evaluate(() => window.__layouts.setLayout('hierarchical'));
    assert.equal(await page.getAttribute('#layouts', 'data-layout'), 'hierarchical');
    /** Rows under the start: one row per ring, each below the one before. */
    const rowsHold = async () => {
      const nodes = await placed('layouts');
      const ys = new Map();
      for (const n of nodes) ys.set(n.ring, [...(ys.get(n.ring) ?? []), n.y]);
      const rings = [...ys.keys()].sort();
      for (const r of rings) assert.ok(Math.max(...ys.get(r)) - Math.min(...ys.get(r)) < 1, `ring ${r} is one row: ${ys.get(r)}`);
      for (const r of rings.slice(1)) assert.ok(Math.min(...ys.get(r)) > Math.max(...ys.get(r - 1)) + 20, `row ${r} lies under row ${r - 1}`);
      assert.deepEqual(overlaps(nodes), [], 'no two nodes (with their labels) overlap');
      return rings;
    };
    assert.deepEqual(await rowsHold(), [0, 1, 2, 3]);
    await page.screenshot({ path: `${OUT}view-host-hierarchical.png`, clip: await page.locator('#layouts').boundingBox() });
    // Collapsing and expanding again under hierarchical: the rows hold.
    await page.evaluate(() => { const v = window.__layouts; return v.collapse(v.state().entities.find((e) => e.name === 'Tile Server').id); });
    assert.deepEqual(await rowsHold(), [0, 1, 2], 'the rows close up over what the collapse left');
    await expand('Tile Server');
    assert.deepEqual(await rowsHold(), [0, 1, 2, 3]);
    // Everything stays in view after a re-layout.
    const inView = () => page.evaluate(() => {
      const cy = window.__layouts.cy;
      const b = cy.nodes().renderedBoundingBox({ includeLabels: false });
      return b.x1 >= 0 && b.y1 >= 0 && b.x2 <= cy.width() && b.y2 <= cy.height();
    });
    assert.ok(await inView(), 'the hierarchy is in view');

    // Back to force: fcose lays out everything again, nothing on top of another.
    const before = await placed('layouts');
    await page.evaluate(() => window.__layouts.setLayout('force'));
    assert.equal(await page.getAttribute('#layouts', 'data-layout'), 'force');
    const after = await placed('layouts');
    assert.ok(after.some((n) => { const b = before.find((x) => x.name === n.name); return Math.hypot(b.x - n.x, b.y - n.y) > 5; }), 'the nodes moved');
    assert.deepEqual(overlaps(after), []);
    assert.ok(await inView(), 'the force layout is in view');
    await assert.rejects(page.evaluate(() => window.__layouts.setLayout('spiral')), /layout must be one of force, concentric, hierarchical, not spiral/);
    await unmount('layouts');
  });

  it('sizes nodes by degree when asked, recounted as the drawing changes', async () => {
    await mountAnother('sizes', { entity: 'Atlas', max_hops: 2, nodeSize: 'degree', list: false });
    const sizeOf = (n) => Math.round(Math.min(64, 18 + 7 * Math.sqrt(n)));
    const widths = () => page.evaluate(() => Object.fromEntries(window.__sizes.cy.nodes().map((n) => [n.data('name'), n.width()])));
    assert.equal(await page.getAttribute('#sizes', 'data-node-size'), 'degree');
    // Atlas: leads, reviews, depends_on; Tile Server: depends_on, operates, stores_in; Ben Ito: reviews, operates.
    assert.deepEqual(await widths(), { Atlas: sizeOf(3), 'Ana Costa': sizeOf(1), 'Ben Ito': sizeOf(2), 'Tile Server': sizeOf(3), 'Object Store': sizeOf(1) });
    // A relation type turned off in the legend is not drawn: it no longer counts.
    await page.evaluate(() => window.__sizes.showPredicate('leads', false));
    assert.deepEqual(await widths(), { Atlas: sizeOf(2), 'Ana Costa': sizeOf(0), 'Ben Ito': sizeOf(2), 'Tile Server': sizeOf(3), 'Object Store': sizeOf(1) });
    await page.evaluate(() => window.__sizes.showPredicate('leads', true));
    // By mentions: Atlas is in two notes, Tile Server in three, Ana Costa in one.
    await page.evaluate(() => window.__sizes.setNodeSize('mentions'));
    assert.equal(await page.getAttribute('#sizes', 'data-node-size'), 'mentions');
    assert.deepEqual(await widths(), { Atlas: sizeOf(2), 'Ana Costa': sizeOf(1), 'Ben Ito': sizeOf(2), 'Tile Server': sizeOf(3), 'Object Store': sizeOf(1) });
    assert.deepEqual(overlaps(await placed('sizes')), []);
    await unmount('sizes');
  });

  it('exports the whole drawing as a PNG', async () => {
    await mountAnother('png', { entity: 'Atlas', max_hops: 2, list: false });
    // Zoomed in on a corner: the image still holds everything.
    await page.evaluate(() => { const cy = window.__png.cy; cy.zoom({ level: 3, position: cy.nodes()[0].position() }); });
    const out = await page.evaluate(async () => {
      const cy = window.__png.cy;
      const blob = await window.__png.png();
      const bytes = new Uint8Array(await blob.arrayBuffer());
      const bb = cy.elements().boundingBox();
      return { type: blob.type, head: [...bytes.slice(0, 8)], ihdr: String.fromCharCode(...bytes.slice(12, 16)), view: new DataView(bytes.buffer).getUint32(16), h: new DataView(bytes.buffer).getUint32(20), w: bb.w, bh: bb.h };
    });
    assert.equal(out.type, 'image/png');
    assert.deepEqual(out.head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'the PNG signature');
    assert.equal(out.ihdr, 'IHDR');
    // Twice the drawing's size (scale 2), whatever the zoom.
    assert.ok(Math.abs(out.view - 2 * out.w) <= 4 && Math.abs(out.h - 2 * out.bh) <= 4, `${out.view}×${out.h} for a drawing of ${out.w}×${out.bh}`);
    const small = await page.evaluate(async () => { const b = await window.__png.png({ scale: 1 }); return new DataView(await b.arrayBuffer()).getUint32(16); });
    assert.ok(Math.abs(small - out.view / 2) <= 3, `scale 1: ${small} px wide`);
    await page.evaluate(() => window.__png.clear());
    await assert.rejects(page.evaluate(() => window.__png.png()), /nothing is drawn to export/);
    await unmount('png');
  });

  it('draws edge labels at 11 px or not at all; the selected and hovered node keep theirs', async () => {
    await mountAnother('labels', { entity: 'Atlas', max_hops: 2, list: false });
    /** Each edge's label: its font size in the drawing, on screen at this zoom, and whether cytoscape draws it. */
    const labels = () => page.evaluate(() => {
      const cy = window.__labels.cy;
      return Object.fromEntries(cy.edges().map((e) => {
        const size = parseFloat(e.style('font-size'));
        const screen = size * cy.zoom();
        // drawn: cytoscape's own test, which the renderer runs before drawing a label
        return [e.data('predicate'), { size, screen, drawn: cy.renderer().eleTextBiggerThanMin(e) }];
      }));
    });
    for (const [p, l] of Object.entries(await labels())) {
      assert.ok(l.size >= 11, `${p}: ${l.size}px`);
      if (l.drawn) assert.ok(l.screen > 11 - 0.01, `${p} drawn at ${l.screen}px on screen`);
    }
    // Zoomed in past 1, every label is drawn (over 11 px); at 1 or below, where some would be under 11 px, none is.
    await page.evaluate(() => { window.__labels.cy.zoom(1.2); });
    assert.equal(Object.values(await labels()).filter((l) => l.drawn).length, 5);
    for (const zoom of [0.8, 0.5]) {
      await page.evaluate((z) => { window.__labels.cy.zoom(z); }, zoom);
      assert.deepEqual(Object.values(await labels()).filter((l) => l.drawn), [], `at zoom ${zoom}`);
    }
    // The selected node's edges show theirs, at 11 px on screen, at this zoom and the next.
    const tile = await page.evaluate(() => window.__labels.state().entities.find((e) => e.name === 'Tile Server').id);
    await page.evaluate((id) => window.__labels.select({ entity: id }), tile);
    const near = ['depends_on', 'operates', 'stores_in'];
    for (const zoom of [0.5, 0.3]) {
      await page.evaluate((z) => { window.__labels.cy.zoom(z); }, zoom);
      const now = await labels();
      assert.deepEqual(Object.keys(now).filter((p) => now[p].drawn).sort(), near, `at zoom ${zoom}`);
      for (const p of near) assert.ok(Math.abs(now[p].screen - 11) < 0.01, `${p} at ${now[p].screen}px on screen, zoom ${zoom}`);
    }
    // A selected edge shows its label too; the list under the canvas keeps every one.
    await page.evaluate(() => { const v = window.__labels; v.select({ relation: v.state().relations.find((r) => r.predicate === 'leads').id }); });
    assert.deepEqual(Object.entries(await labels()).filter(([, l]) => l.drawn).map(([p]) => p), ['leads']);
    // Hovering a node shows its edges' labels while the pointer is on it.
    await page.evaluate(() => { window.__labels.select(null); window.__labels.fit(); window.__labels.cy.zoom({ level: 0.5, renderedPosition: { x: 380, y: 180 } }); });
    const at = await page.evaluate(() => {
      const cy = window.__labels.cy;
      const n = cy.nodes().filter((x) => x.data('name') === 'Ben Ito');
      const box = cy.container().getBoundingClientRect();
      const p = n.renderedPosition();
      return { x: box.left + p.x, y: box.top + p.y };
    });
    await page.mouse.move(at.x - 30, at.y - 30);
    await page.mouse.move(at.x, at.y, { steps: 4 });
    await page.waitForFunction(() => window.__labels.cy.edges('.amv-hover').length > 0, null, { timeout: 5_000 });
    const hovered = await labels();
    assert.deepEqual(Object.keys(hovered).filter((p) => hovered[p].drawn).sort(), ['operates', 'reviews']);
    await page.mouse.move(at.x, at.y + 400, { steps: 4 });
    assert.deepEqual(Object.values(await labels()).filter((l) => l.drawn), [], 'the pointer left: the labels go');
    await unmount('labels');
  });

  it('follows the system colour scheme live, unless the host fixes one', async () => {
    const lum = (rgb) => {
      const [r, g, b] = rgb.match(/[\d.]+/g).slice(0, 3).map((v) => { const c = Number(v) / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    await mountAnother('fixed', { entity: 'Atlas', colorScheme: 'light', list: false });
    const look = (sel, v) => page.evaluate(([s, x]) => {
      const cy = x === 'host' ? window.__host.view.cy : window[`__${x}`].cy;
      return {
        scheme: document.querySelector(s).dataset.scheme,
        canvas: getComputedStyle(document.querySelector(`${s} .amv-canvas`)).backgroundColor,
        label: cy.nodes()[0].style('color'), edge: cy.edges()[0].style('line-color'), button: getComputedStyle(document.querySelector(`${s} .amv-controls button`)).color,
      };
    }, [sel, v]);
    const light = await look('#app-graph', 'host');
    assert.equal(light.scheme, 'light');
    assert.ok(lum(light.canvas) > 0.8 && lum(light.label) < 0.05, JSON.stringify(light));
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForSelector('#app-graph[data-scheme="dark"]');
    const dark = await look('#app-graph', 'host');
    assert.ok(lum(dark.canvas) < 0.05, `dark canvas: ${dark.canvas}`);
    assert.ok(lum(dark.label) > 0.7, `light node labels: ${dark.label}`);
    assert.ok(lum(dark.button) > 0.7, `light button text: ${dark.button}`);
    assert.notEqual(dark.edge, light.edge);
    assert.deepEqual(await look('#fixed', 'fixed'), await look('#fixed', 'fixed'));
    assert.equal((await look('#fixed', 'fixed')).scheme, 'light', 'a host that fixes light keeps it');
    await page.locator('#app-graph').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${OUT}view-host-dark.png` });
    await page.evaluate(() => window.__fixed.setColorScheme('dark'));
    assert.equal(await page.getAttribute('#fixed', 'data-scheme'), 'dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForSelector('#app-graph[data-scheme="light"]');
    assert.deepEqual(await look('#app-graph', 'host'), light);
    assert.equal(await page.getAttribute('#fixed', 'data-scheme'), 'dark');
    await unmount('fixed');
  });

  it('reads at the instant the host gives (as_of), and draws a relation with an end dashed, labelled until when', async () => {
    // A relation that held from January to March 2026: over before the clock's now.
    await page.evaluate(() => window.__host.memory.declareAssociations({ agent_id: 'notes-app', associations: { relations: [
      { subject: 'Atlas', predicate: 'hosted_on', object: 'Old Rack', valid_from: '2026-01-01T00:00:00Z', valid_to: '2026-03-01T00:00:00Z' }] } }));
    await mountAnother('timed', { entity: 'Atlas', max_hops: 1, as_of: 'all' });
    const hosted = () => page.evaluate(() => {
      const v = window.__timed;
      const e = v.cy.edges().filter((x) => x.data('predicate') === 'hosted_on');
      return e.empty() ? null : { ended: e.data('ended'), line: e.style('line-style'), label: e.style('label'), list: document.querySelector(`#timed button[data-relation="${e.data('relation')}"]`)?.textContent, as_of: v.state().as_of, data: document.querySelector('#timed').dataset.asOf };
    });
    assert.deepEqual(await hosted(), { ended: 'until 2026-03-01', line: 'dashed', label: 'hosted_on (until 2026-03-01)', list: 'Atlas —hosted_on→ Old Rack (until 2026-03-01)', as_of: 'all', data: 'all' });
    // Now (no as_of): it ended, so it is not drawn; in February it held.
    await page.evaluate(() => window.__timed.setAsOf(undefined));
    assert.equal(await hosted(), null);
    assert.equal(await page.evaluate(() => 'as_of' in window.__timed.state()), false);
    await page.evaluate(() => window.__timed.setAsOf('2026-02-01T00:00:00Z'));
    assert.equal((await hosted())?.data, '2026-02-01T00:00:00Z');
    await page.screenshot({ path: `${OUT}view-host-as-of.png` });
    await unmount('timed');
  });

  it('logged no errors or warnings', () => {
    assert.deepEqual(problems, []);
  });
});
