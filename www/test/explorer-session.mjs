// The explorer in Chromium for a test file of its own: the page built into its own copy
// (www/dist/<dir>/, so files running at once never rebuild each other's), served, and a fresh
// browser context that may not reach the network. Registers its `before` and `after` in the
// calling `describe`.
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';
import { buildPage, servePages } from '../explorer/build.mjs';
import { CHROMIUM, CHROMIUM_ARGS, offline, watch } from './harness.mjs';

export const OUT = fileURLToPath(new URL('../../test-output/', import.meta.url));
const AXE = fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url));
export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };

/**
 * `open(viewport)` gives a new page with the demo corpus loaded and its start entity in the
 * panel; `problems` collects what every page logged as an error or a warning.
 */
export function explorerSession(dir, contextOptions = {}) {
  let server;
  let browser;
  let context;
  let url;
  const problems = [];

  before(async () => {
    await mkdir(OUT, { recursive: true });
    await buildPage('explorer', dir);
    server = await servePages({ port: 0 });
    url = new URL(`${dir}/`, server.url).href;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: DESKTOP, ...contextOptions });
    await offline(context, problems);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(viewport = DESKTOP) {
    const p = await context.newPage();
    await p.setViewportSize(viewport);
    watch(p, problems, { warnings: true });
    await p.goto(url);
    await p.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
    await p.waitForFunction(() => document.querySelector('#panel')?.dataset.name === 'Ledger Service');
    return p;
  }

  return { open, problems };
}

/** axe-core's violations on the page as it stands, each as `rule: target…`. */
export async function violations(p) {
  if (!(await p.evaluate(() => 'axe' in window))) await p.addScriptTag({ path: AXE });
  const res = await p.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return res.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1).join(' ')}`).join(' | ')}`);
}

/**
 * Edits the first memory of the Memories tab to `text` through its editor (one step of the
 * page's history), leaving the Memories tab shown.
 */
export async function editFirstMemory(p, text) {
  await p.click('[data-testid="tab-memories"]');
  await p.locator('[data-testid="memory-edit"]').first().click();
  await p.fill('[data-testid="memory-editor"]', text);
  await p.click('[data-testid="memory-save"]');
  await p.waitForSelector(`[data-testid="memory-text"]:text("${text}")`);
}
