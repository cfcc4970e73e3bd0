// The explorer's drawing controls (issue 40, "View controls people expect"), in headless
// Chromium on the built page: a choice of layout (force, rings around the start, a tree from
// the start) that expansions keep, node size by degree, the whole graph as a PNG download,
// dark mode following prefers-color-scheme live, and edge labels readable around a hub.
//
//   node --test www/test/explorer-drawing.test.mjs      # after scripts/build-wasm.sh
//
// Screenshots go to test-output/explorer-drawing-*.png.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DESKTOP, OUT, PHONE, explorerSession } from './explorer-session.mjs';

const PKG = fileURLToPath(new URL('../../pkg/view.js', import.meta.url));

/** Relative luminance of a CSS `rgb()` / `rgba()` colour (WCAG 2). */
const luminance = (rgb) => {
  const [r, g, b] = rgb.match(/[\d.]+/g).slice(0, 3).map((v) => { const c = Number(v) / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

describe('explorer drawing controls', { skip: existsSync(PKG) ? false : `no package at ${PKG}; run scripts/build-wasm.sh` }, () => {
  const { open, problems } = explorerSession('explorer-drawing');
  const shot = (p, name) => p.screenshot({ path: `${OUT}explorer-drawing-${name}.png` });
  /** Each drawn node: ring, centre, and its box with its label. */
  const placed = (p) => p.evaluate(() => window.__explorer.view.cy.nodes().map((n) => ({
    name: n.data('name'), ring: n.data('ring'), ...n.position(), box: n.boundingBox({ includeLabels: true, includeOverlays: false }),
  })));
  const overlaps = (nodes) => {
    const out = [];
    for (const [i, a] of nodes.entries()) for (const b of nodes.slice(i + 1)) {
      if (a.box.x1 < b.box.x2 && b.box.x1 < a.box.x2 && a.box.y1 < b.box.y2 && b.box.y1 < a.box.y2) out.push(`${a.name}/${b.name}`);
    }
    return out;
  };
  /** Distances from the start of each ring's nodes. */
  const radii = (nodes) => {
    const start = nodes.find((n) => n.ring === 0);
    const out = new Map();
    for (const n of nodes) out.set(n.ring, [...(out.get(n.ring) ?? []), Math.hypot(n.x - start.x, n.y - start.y)]);
    return out;
  };
  const ringsHold = (nodes) => {
    const r = radii(nodes);
    const rings = [...r.keys()].sort((a, b) => a - b);
    assert.ok(rings.length >= 3, `rings ${rings}`);
    for (const k of rings) assert.ok(Math.max(...r.get(k)) - Math.min(...r.get(k)) < 1, `ring ${k} is a circle`);
    for (const k of rings.slice(1)) assert.ok(Math.min(...r.get(k)) > Math.max(...r.get(k - 1)) + 10, `ring ${k} lies outside ring ${k - 1}`);
  };
  const rowsHold = (nodes) => {
    const ys = new Map();
    for (const n of nodes) ys.set(n.ring, [...(ys.get(n.ring) ?? []), n.y]);
    const rings = [...ys.keys()].sort((a, b) => a - b);
    for (const k of rings) assert.ok(Math.max(...ys.get(k)) - Math.min(...ys.get(k)) < 1, `ring ${k} is one row`);
    for (const k of rings.slice(1)) assert.ok(Math.min(...ys.get(k)) > Math.max(...ys.get(k - 1)) + 20, `row ${k} lies under row ${k - 1}`);
  };
  /** Expands a drawn node of ring 2 from the side panel, as a person would; resolves to its name. */
  async function expandOuter(p) {
    const target = await p.evaluate(() => window.__explorer.view.state().entities.find((e) => e.ring === 2 && !e.expanded));
    const before = Number(await p.getAttribute('#graph', 'data-expanded') ?? 0);
    await p.evaluate((id) => window.__explorer.view.select({ entity: id }), target.id);
    await p.waitForFunction((name) => document.querySelector('#panel').dataset.name === name, target.name);
    await p.click('[data-testid="expand-btn"]');
    await p.waitForFunction((n) => Number(document.querySelector('#graph').dataset.expanded ?? 0) > n, before);
    await p.waitForSelector('#graph[data-state="ready"]');
    return target.name;
  }

  it('lays the graph out in rings around the start or as a tree from it, and expansions keep the choice', async () => {
    const p = await open();
    assert.equal(await p.getAttribute('#graph', 'data-layout'), 'force');
    assert.equal(await p.textContent('label:has(#layout) > span'), 'Layout');
    await p.selectOption('#layout', 'concentric');
    await p.waitForSelector('#graph[data-layout="concentric"]');
    ringsHold(await placed(p));
    assert.deepEqual(overlaps(await placed(p)), []);
    await shot(p, 'concentric');
    // Expanding ring 2 until a node three hops out is drawn.
    const expanded = [];
    while (!(await placed(p)).some((n) => n.ring === 3) && expanded.length < 6) expanded.push(await expandOuter(p));
    assert.equal(await p.getAttribute('#graph', 'data-layout'), 'concentric');
    const after = await placed(p);
    assert.ok(after.some((n) => n.ring === 3), `expanding ${expanded.join(', ')} brought ring 3`);
    ringsHold(after);
    assert.deepEqual(overlaps(after), []);
    await shot(p, 'concentric-expanded');

    await p.selectOption('#layout', 'hierarchical');
    await p.waitForSelector('#graph[data-layout="hierarchical"]');
    rowsHold(await placed(p));
    assert.deepEqual(overlaps(await placed(p)), []);
    await shot(p, 'hierarchical');
    await expandOuter(p);
    rowsHold(await placed(p));
    await p.setViewportSize(PHONE);
    await p.click('#layout');
    await p.keyboard.press('Escape');
    await shot(p, 'hierarchical-phone');
    await p.setViewportSize(DESKTOP);

    await p.selectOption('#layout', 'force');
    await p.waitForSelector('#graph[data-layout="force"]');
    assert.deepEqual(overlaps(await placed(p)), []);
    // Under force an expansion places only the new nodes.
    const before = await placed(p);
    await expandOuter(p);
    const now = await placed(p);
    for (const b of before) {
      const n = now.find((x) => x.name === b.name);
      assert.ok(Math.hypot(n.x - b.x, n.y - b.y) < 0.5, `${b.name} kept its place under force`);
    }
    await p.close();
  });

  it('sizes nodes by their relations when asked', async () => {
    const p = await open();
    const sizes = () => p.evaluate(() => window.__explorer.view.cy.nodes().map((n) => [n.data('name'), n.width(), n.connectedEdges().length]));
    const sizeOf = (n) => Math.round(Math.min(64, 18 + 7 * Math.sqrt(n)));
    const mentions = await p.evaluate(() => Object.fromEntries(window.__explorer.view.state().entities.map((e) => [e.name, e.mention_count])));
    for (const [name, w] of await sizes()) assert.equal(w, sizeOf(mentions[name]), `${name} by mentions`);
    await p.selectOption('#node-size', 'degree');
    await p.waitForSelector('#graph[data-node-size="degree"]');
    const byDegree = await sizes();
    for (const [name, w, edges] of byDegree) assert.equal(w, sizeOf(edges), `${name}: ${edges} relations`);
    assert.ok(byDegree.some(([name, w]) => w !== sizeOf(mentions[name])), 'some node changed size');
    assert.deepEqual(overlaps(await placed(p)), [], 'grown nodes moved off their neighbours');
    await shot(p, 'degree');
    // An expansion recounts.
    await expandOuter(p);
    for (const [name, w, edges] of await sizes()) assert.equal(w, sizeOf(edges), `${name} after the expansion: ${edges} relations`);
    await p.close();
  });

  it('downloads the whole graph as a PNG', async () => {
    const p = await open();
    // Zoomed out so far that the canvas draws no label: the image still has them all.
    await p.evaluate(() => { window.__explorer.view.cy.zoom(0.2); });
    const [download] = await Promise.all([p.waitForEvent('download'), p.click('#png-btn')]);
    await download.saveAs(`${OUT}explorer-drawing-graph.png`);
    assert.match(download.suggestedFilename(), /^team-bot-graph-\d{4}-\d\d-\d\d\.png$/);
    const bytes = readFileSync(await download.path());
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'the PNG signature');
    assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
    const [w, h] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
    const drawn = await p.evaluate(() => { const b = window.__explorer.view.cy.elements().boundingBox(); return { w: b.w, h: b.h }; });
    assert.ok(Math.abs(w - 2 * drawn.w) <= 4 && Math.abs(h - 2 * drawn.h) <= 4, `${w}×${h} for a drawing of ${drawn.w}×${drawn.h}`);
    assert.ok(w >= 300 && h >= 200 && w <= 4096 && h <= 4096, `${w}×${h}`);
    assert.ok(bytes.length > 10_000, `${bytes.length} bytes`);
    assert.equal(await p.isHidden('#drawing-error'), true);
    // Nothing drawn: the error says so beside the button.
    await p.fill('#entity-input', 'no such entity at all');
    await p.click('#search-btn');
    await p.waitForSelector('#graph[data-state="missing"]');
    await p.click('#png-btn');
    await p.waitForSelector('#drawing-error:not([hidden])');
    assert.equal(await p.textContent('#drawing-error'), 'No PNG: nothing is drawn to export');
    await p.close();
  });

  it('shows edge labels at 11 px or not at all; a selected node shows its own', async () => {
    const p = await open();
    await expandOuter(p);
    const labels = () => p.evaluate(() => {
      const cy = window.__explorer.view.cy;
      return cy.edges().map((e) => {
        const size = parseFloat(e.style('font-size'));
        // drawn: cytoscape's own test, which the renderer runs before drawing a label
        return { id: e.id(), size, screen: size * cy.zoom(), drawn: cy.renderer().eleTextBiggerThanMin(e) };
      });
    });
    // A label sized 11 px ÷ the zoom is 11 px on screen up to float rounding (10.999999999999998).
    for (const l of await labels()) {
      assert.ok(l.size >= 11, `${l.id}: ${l.size}px`);
      if (l.drawn) assert.ok(l.screen > 11 - 0.01, `${l.id} drawn at ${l.screen}px`);
    }
    // The hub (most relations) selected, zoomed out: its edges' labels, and only those, show at 11 px.
    const hub = await p.evaluate(() => {
      const cy = window.__explorer.view.cy;
      const n = cy.nodes().sort((a, b) => b.connectedEdges().length - a.connectedEdges().length)[0];
      return { id: Number(n.data('entity')), edges: n.connectedEdges().map((e) => e.id()).sort() };
    });
    await p.evaluate((id) => { const v = window.__explorer.view; v.select({ entity: id }); v.cy.zoom({ level: 0.45, renderedPosition: { x: v.cy.width() / 2, y: v.cy.height() / 2 } }); }, hub.id);
    const shown = (await labels()).filter((l) => l.drawn);
    assert.deepEqual(shown.map((l) => l.id).sort(), hub.edges);
    for (const l of shown) assert.ok(Math.abs(l.screen - 11) < 0.01, `${l.id} at ${l.screen}px on screen`);
    // The list under the canvas keeps every relation's label.
    const listed = await p.locator('#graph .amv-list ul[aria-label="Relations"] button').count();
    assert.equal(listed, await p.evaluate(() => window.__explorer.view.state().relations.length));
    await shot(p, 'hub-labels');
    await p.close();
  });

  it('follows the system colour scheme, live', async () => {
    const p = await open();
    const look = () => p.evaluate(() => ({
      body: getComputedStyle(document.body).backgroundColor,
      text: getComputedStyle(document.body).color,
      canvas: getComputedStyle(document.querySelector('#graph .amv-canvas')).backgroundColor,
      label: window.__explorer.view.cy.nodes()[0].style('color'),
      scheme: document.querySelector('#graph').dataset.scheme,
    }));
    const light = await look();
    assert.equal(light.scheme, 'light');
    assert.ok(luminance(light.body) > 0.9 && luminance(light.label) < 0.05, JSON.stringify(light));
    await p.emulateMedia({ colorScheme: 'dark' });
    await p.waitForSelector('#graph[data-scheme="dark"]');
    const dark = await look();
    assert.ok(luminance(dark.body) < 0.02, `dark page: ${dark.body}`);
    assert.ok(luminance(dark.canvas) < 0.02, `dark canvas: ${dark.canvas}`);
    assert.ok(luminance(dark.text) > 0.7 && luminance(dark.label) > 0.7, `light text ${dark.text} and labels ${dark.label}`);
    await shot(p, 'dark-live');
    await p.emulateMedia({ colorScheme: 'light' });
    await p.waitForSelector('#graph[data-scheme="light"]');
    assert.deepEqual(await look(), light);
    await p.close();
  });

  it('logged no errors or warnings', () => {
    assert.deepEqual(problems, []);
  });
});
