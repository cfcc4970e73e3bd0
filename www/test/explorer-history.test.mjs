// The explorer's undo and history (issue 40, "Nothing lost"), in headless Chromium on the
// built page with the real engine: every kind of step undone restores exactly what was there
// (every agent's entities, memories, relations and mentions compared as JSON, and the
// exported bytes), an entity's delete undone brings back its aliases, relations and mentions,
// an OPFS memory's undo outlives a reload, an encrypted memory stays encrypted under its key,
// "Undo back to here" undoes three steps after a confirm naming them, Ctrl+Z undoes the
// newest step (and not while a text field has the focus), a step that changed nothing is not
// listed, a write from outside the page's steps or the cap on what is kept drops older steps
// (and the tab says so), and another source starts a new history.
//
//   node --test www/test/explorer-history.test.mjs      # after scripts/build-wasm.sh
//
// Screenshots go to test-output/explorer-history-*.png, at 1440×900 and 390×844.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DESKTOP, OUT, PHONE, editFirstMemory, explorerSession } from './explorer-session.mjs';

const PKG = fileURLToPath(new URL('../../pkg/view.js', import.meta.url));

describe('explorer undo and history', { skip: existsSync(PKG) ? false : `no package at ${PKG}; run scripts/build-wasm.sh` }, () => {
  const { open, problems } = explorerSession('explorer-history', { acceptDownloads: true });

  /**
   * Everything the memory holds, as JSON: for every agent, its entities (names, aliases,
   * counts), its memories (ids, text, times, sources, metadata) and, from each entity, its
   * relations (ids, who declared them and when, anchors) and mentions.
   */
  const dump = (p) => p.evaluate(async () => {
    const m = window.__explorer.memory;
    const all = async (call, key) => {
      const out = [];
      for (let offset = 0; offset !== undefined;) {
        const page = await call({ offset, limit: 500 });
        out.push(...page[key]);
        offset = page.next_offset;
      }
      return out;
    };
    const agents = await all((o) => m.listAgents(o), 'agents');
    const out = { agents };
    for (const { agent_id } of agents) {
      const a = m.agent(agent_id);
      const entities = await all((o) => a.listEntities(o), 'entities');
      const memories = await all((o) => a.listMemories(o), 'memories');
      const around = [];
      for (const e of entities) around.push(await a.traverse({ entity: e.name, max_hops: 1, limit: 100 }));
      out[agent_id] = { entities, memories, around };
    }
    return JSON.stringify(out);
  });
  /** The page's database, as the Export button downloads it. */
  async function exportDb(p) {
    const [download] = await Promise.all([p.waitForEvent('download'), p.click('#export-btn')]);
    return readFileSync(await download.path());
  }
  const steps = (p) => p.locator('#history').getAttribute('data-steps').then(Number);
  const notice = (p, text) => p.waitForFunction((t) => document.querySelector('#panel [data-testid="notice"]')?.textContent.includes(t), text);
  const select = async (p, name) => {
    const id = await p.evaluate(async (n) => (await window.__explorer.agent.listEntities({ query: n, limit: 1 })).entities[0].id, name);
    await p.fill('#entity-input', name);
    await p.press('#entity-input', 'Enter');
    await p.waitForFunction((i) => document.querySelector('#panel').dataset.entity === String(i), id);
  };
  async function addAlias(p, alias) {
    await p.fill('[data-testid="alias-input"]', alias);
    await p.click('[data-testid="alias-btn"]');
    await notice(p, `Added the alias “${alias}”`);
  }
  async function declare(p, predicate, object) {
    await p.fill('[data-testid="predicate-input"]', predicate);
    await p.fill('[data-testid="object-input"]', object);
    await p.click('[data-testid="declare-btn"]');
    await notice(p, `—${predicate}→ ${object}`);
  }
  /** "Undo back to here…" on the first step showing it (the oldest, with two steps), confirmed, until no step is left. */
  async function undoAll(p) {
    await p.click('[data-testid="tab-history"]');
    await p.click('[data-testid="history-undo-to"]');
    await p.click('[data-testid="confirm-ok"]');
    await p.waitForFunction(() => document.querySelector('#history').dataset.steps === '0');
  }
  /** The History tab's newest step undone with its button. */
  async function undoNewest(p) {
    const n = await steps(p);
    await p.click('[data-testid="tab-history"]');
    await p.click('[data-testid="history-undo"]');
    await p.waitForFunction((k) => document.querySelector('#history').dataset.steps === String(k - 1), n);
    await p.waitForFunction(() => document.querySelector('#panel [data-testid="notice"]')?.textContent.startsWith('Undone'));
    await p.click('[data-testid="tab-graph"]');
  }
  const shots = async (p, name) => {
    await p.setViewportSize(DESKTOP);
    await p.screenshot({ path: `${OUT}explorer-history-${name}.png` });
    await p.setViewportSize(PHONE);
    await p.screenshot({ path: `${OUT}explorer-history-${name}-phone.png`, fullPage: true });
    await p.setViewportSize(DESKTOP);
  };

  it('undoes each kind of step, restoring exactly what was there', async () => {
    const p = await open();
    const start = await dump(p);
    const kinds = {
      alias: async () => addAlias(p, 'Ledger Undo Alias'),
      declare: async () => declare(p, 'audited_by', 'Undo Check Auditor'),
      retract: async () => {
        const rel = await p.evaluate(() => window.__explorer.view.state().relations[0].id);
        await p.evaluate((id) => window.__explorer.view.select({ relation: id }), rel);
        await p.click('[data-testid="retract-btn"]');
        await p.click('[data-testid="confirm-ok"]');
        await notice(p, 'Retracted');
      },
      'delete entity': async () => {
        await select(p, 'Kaito Mori');
        await p.click('[data-testid="delete-btn"]');
        await p.click('[data-testid="confirm-ok"]');
        await notice(p, 'Deleted Kaito Mori');
      },
      'edit memory': async () => {
        await editFirstMemory(p, 'Rewritten to be undone.');
        await p.click('[data-testid="tab-graph"]');
      },
      'delete memory': async () => {
        await p.click('[data-testid="tab-memories"]');
        await p.locator('[data-testid="memory-delete"]').first().click();
        await p.click('[data-testid="confirm-ok"]');
        await notice(p, 'Deleted mem:');
        await p.click('[data-testid="tab-graph"]');
      },
      'JSON import': async () => {
        const items = [{ content: 'Imported to be undone: Ledger Service met Undo Importer.', associations: { entities: [{ name: 'Undo Importer' }], relations: [{ subject: 'Undo Importer', predicate: 'met', object: 'Ledger Service' }] } }];
        await p.setInputFiles('#file', { name: 'undo-items.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ items })) });
        await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'undo-items.json');
      },
    };
    const labels = {};
    for (const [kind, run] of Object.entries(kinds)) {
      await select(p, 'Ledger Service');
      const before = await dump(p);
      await run();
      assert.equal(await steps(p), 1, `${kind}: one step listed`);
      labels[kind] = await p.locator('[data-testid="history-label"]').first().textContent();
      assert.notEqual(await dump(p), before, `${kind} changed the memory`);
      await undoNewest(p);
      assert.equal(await dump(p), before, `${kind} undone restores every record, id, time and declaration`);
      assert.equal(await steps(p), 0);
    }
    assert.deepEqual(labels, {
      alias: 'Added the alias “Ledger Undo Alias” to Ledger Service',
      declare: 'Declared Ledger Service → audited_by → Undo Check Auditor',
      retract: labels.retract.match(/^Retracted .+ —\S+→ .+$/) ? labels.retract : 'Retracted S —p→ O',
      'delete entity': 'Deleted entity Kaito Mori',
      'edit memory': labels['edit memory'].match(/^Edited mem:\d+$/) ? labels['edit memory'] : 'Edited mem:N',
      'delete memory': labels['delete memory'].match(/^Deleted memory mem:\d+$/) ? labels['delete memory'] : 'Deleted memory mem:N',
      'JSON import': 'Imported 1 memory from undo-items.json into agent team-bot',
    });
    assert.equal(await dump(p), start);
    assert.deepEqual(problems, []);
    await p.close();
  });

  it('brings back a deleted entity with its aliases, relations and mentions, and the header count', async () => {
    const p = await open();
    const of = () => p.evaluate(async () => {
      const t = await window.__explorer.agent.traverse({ entity: 'Kaito Mori', max_hops: 1, limit: 100 });
      const me = t.entities.find((e) => e.name === 'Kaito Mori');
      return me && { id: me.id, aliases: me.aliases, mentions: me.mentions, relations: t.relations.filter((r) => r.subject === me.id || r.object === me.id) };
    });
    const before = await of();
    assert.ok(before.aliases.length > 0 && before.mentions.length > 0 && before.relations.length > 0, JSON.stringify(before));
    const count = Number(await p.getAttribute('#status', 'data-entities'));
    await select(p, 'Kaito Mori');
    await p.click('[data-testid="delete-btn"]');
    await p.click('[data-testid="confirm-ok"]');
    await notice(p, 'Deleted Kaito Mori');
    assert.equal(await of(), undefined);
    await p.waitForFunction((n) => document.querySelector('#status').dataset.entities === String(n - 1), count);
    await p.click('[data-testid="tab-history"]');
    assert.equal(await p.locator('[data-testid="history-label"]').textContent(), 'Deleted entity Kaito Mori');
    assert.match(await p.locator('[data-testid="history-summary"]').textContent(), /^1 step since the demo corpus was opened/);
    await shots(p, 'one-step');
    await p.click('[data-testid="history-undo"]');
    await p.waitForFunction(() => document.querySelector('#history').dataset.steps === '0');
    assert.deepEqual(await of(), before);
    await p.waitForFunction((n) => document.querySelector('#status').dataset.entities === String(n) && document.querySelector('#status').textContent.includes(`${n} entities`), count);
    // The graph follows: Kaito Mori is drawn again from the start.
    await p.waitForFunction((id) => window.__explorer.view.state().entities.some((e) => e.id === id), before.id);
    await p.close();
  });

  it('restores the exported bytes exactly', async () => {
    const p = await open();
    // An undo imports the image from before, which lays the pages out anew: from then on the
    // memory's images are the engine's own layout, and a step undone gives the same bytes.
    await addAlias(p, 'Byte Alias');
    await undoNewest(p);
    const before = await exportDb(p);
    await select(p, 'Kaito Mori');
    await p.click('[data-testid="delete-btn"]');
    await p.click('[data-testid="confirm-ok"]');
    await notice(p, 'Deleted Kaito Mori');
    await select(p, 'Ledger Service');
    await addAlias(p, 'Another Byte Alias');
    assert.notDeepEqual(await exportDb(p), before);
    await undoAll(p);
    assert.ok((await exportDb(p)).equals(before), 'the same bytes as before the two steps');
    await p.close();
  });

  it('undoes back to a step, and every later one, after a confirm naming them', async () => {
    const p = await open();
    const before = await dump(p);
    await addAlias(p, 'First Of Three');
    await declare(p, 'reviewed_by', 'Second Of Three');
    await editFirstMemory(p, 'Third of three.');
    await p.click('[data-testid="tab-history"]');
    assert.equal(await steps(p), 3);
    assert.equal(await p.textContent('[data-testid="tab-history"]'), 'History (3)');
    const listed = await p.locator('[data-testid="history-label"]').allTextContents();
    assert.equal(listed[0].startsWith('Edited mem:'), true, 'newest first');
    assert.deepEqual(listed.slice(1), ['Declared Ledger Service → reviewed_by → Second Of Three', 'Added the alias “First Of Three” to Ledger Service']);
    assert.deepEqual(await p.locator('#history button').allTextContents(), ['Undo', 'Undo back to here…', 'Undo back to here…']);
    await shots(p, 'three-steps');
    // Cancelled: nothing changes.
    await p.locator('[data-testid="history-undo-to"]').last().click();
    await p.waitForSelector('#confirm[open]');
    const text = await p.textContent('#confirm-text');
    assert.match(text, /^Undo these 3 steps, newest first\?\n1\. Edited mem:\d+\n2\. Declared Ledger Service → reviewed_by → Second Of Three\n3\. Added the alias “First Of Three” to Ledger Service\nThe memory goes back to what it was before the oldest of them\.$/);
    assert.equal(await p.textContent('#confirm-ok'), 'Undo 3 steps');
    await shots(p, 'confirm');
    await p.click('[data-testid="confirm-cancel"]');
    assert.equal(await steps(p), 3);
    await p.locator('[data-testid="history-undo-to"]').last().click();
    await p.click('[data-testid="confirm-ok"]');
    await p.waitForFunction(() => document.querySelector('#history').dataset.steps === '0');
    assert.equal(await dump(p), before);
    assert.match(await p.textContent('[data-testid="history-summary"]'), /^Nothing to undo: no step has changed the demo corpus since it was opened/);
    assert.equal(await p.textContent('[data-testid="history-done"]'), 'Undone 3 steps, back to before: Added the alias “First Of Three” to Ledger Service.');
    // On a phone the details sheet stays down: the History tab is what is being looked at.
    await p.setViewportSize(PHONE);
    assert.equal(await p.isVisible('#panel'), false);
    await p.setViewportSize(DESKTOP);
    assert.equal(await p.textContent('[data-testid="tab-history"]'), 'History');
    await shots(p, 'empty');
    await p.close();
  });

  it('undoes the newest step with Ctrl+Z, but not while a text field has the focus', async () => {
    const p = await open();
    const before = await dump(p);
    await addAlias(p, 'Ctrl Z One');
    await addAlias(p, 'Ctrl Z Two');
    const middle = await p.evaluate(async () => (await window.__explorer.agent.traverse({ entity: 'Ledger Service', max_hops: 0 })).entities[0].aliases);
    // In the alias field, Ctrl+Z is the field's own.
    await p.focus('[data-testid="alias-input"]');
    await p.keyboard.press('Control+z');
    await new Promise((r) => { setTimeout(r, 300); });
    assert.equal(await steps(p), 2);
    await p.evaluate(() => document.activeElement.blur());
    await p.keyboard.press('Control+z');
    await p.waitForFunction(() => document.querySelector('#history').dataset.steps === '1');
    const after = await p.evaluate(async () => (await window.__explorer.agent.traverse({ entity: 'Ledger Service', max_hops: 0 })).entities[0].aliases);
    assert.deepEqual(after, middle.filter((a) => a !== 'Ctrl Z Two'));
    await p.keyboard.press('Meta+z');
    await p.waitForFunction(() => document.querySelector('#history').dataset.steps === '0');
    assert.equal(await dump(p), before);
    // Nothing left: Ctrl+Z does nothing.
    await p.keyboard.press('Control+z');
    assert.equal(await dump(p), before);
    await p.close();
  });

  it('undoes the MCP memory graph and JSONL export imports', async () => {
    const p = await open();
    const before = await dump(p);
    const graph = [
      { type: 'entity', name: 'Hoshi Rail', entityType: 'project', observations: ['Hoshi Rail moves settlement to a new rail.'] },
      { type: 'relation', from: 'Hoshi Rail', to: 'Ledger Service', relationType: 'feeds' },
    ].map((l) => JSON.stringify(l)).join('\n');
    await p.setInputFiles('#file', { name: 'memory.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(graph) });
    await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'memory.jsonl' && document.querySelector('#status').dataset.state === 'ready');
    // The reference implementation's own export, into another agent of the same memory.
    await p.fill('#agent', 'from-reference');
    await p.setInputFiles('#file', fileURLToPath(new URL('../../tests/fixtures/reference/export.jsonl', import.meta.url)));
    await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'export.jsonl' && document.querySelector('#status').dataset.state === 'ready');
    assert.deepEqual(await p.locator('[data-testid="history-label"]').allTextContents(), [
      'Imported the export export.jsonl into agent from-reference',
      'Imported the MCP memory graph memory.jsonl into agent team-bot',
    ]);
    assert.deepEqual(await p.locator('[data-testid="history-step"] .meta span:first-of-type').allTextContents(), ['agent from-reference', 'agent team-bot']);
    await undoAll(p);
    assert.equal(await dump(p), before);
    await p.close();
  });

  it('keeps an OPFS memory\'s undo across a reload, and undoes a database file that replaced it', async () => {
    const p = await open();
    const name = `history-${Date.now()}`;
    const replacement = { name: 'small.sqlite', mimeType: 'application/octet-stream', buffer: await (async () => {
      await addAlias(p, 'Only In The Replacement');
      return exportDb(p);
    })() };
    await p.selectOption('#source', 'opfs');
    await p.fill('#opfs-name', name);
    await p.click('#opfs-open');
    // The demo was exported, so nothing is lost: the page asks only to fill the new memory.
    await p.waitForSelector('#confirm[open]');
    assert.match(await p.textContent('#confirm-text'), /Fill it with the demo corpus\?/);
    await p.click('[data-testid="confirm-ok"]');
    await p.waitForFunction((n) => document.querySelector('#status').dataset.state === 'ready' && document.querySelector('#status').textContent.startsWith(`OPFS memory ${n}`), name, { timeout: 60_000 });
    assert.equal(await steps(p), 0, 'a new source starts a new history');
    const before = await dump(p);
    await select(p, 'Kaito Mori');
    await p.click('[data-testid="delete-btn"]');
    await p.click('[data-testid="confirm-ok"]');
    await notice(p, 'Deleted Kaito Mori');
    // A database file over it: a step too.
    await p.setInputFiles('#file', replacement);
    await p.waitForSelector('#confirm[open]');
    assert.match(await p.textContent('#confirm-text'), /History can undo it while this page stays open\.$/);
    await p.click('[data-testid="confirm-ok"]');
    await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'small.sqlite' && document.querySelector('#status').dataset.state === 'ready');
    assert.equal(await steps(p), 2);
    assert.equal(await p.locator('[data-testid="history-label"]').first().textContent(), 'Replaced the memory with small.sqlite');
    await undoAll(p);
    assert.equal(await dump(p), before);
    await p.close();
    // Another page, the same OPFS memory: the undo was written to it.
    const q = await open();
    await q.selectOption('#source', 'opfs');
    await q.fill('#opfs-name', name);
    await q.click('#opfs-open');
    await q.waitForFunction((n) => document.querySelector('#status').dataset.state === 'ready' && document.querySelector('#status').textContent.startsWith(`OPFS memory ${n}`), name, { timeout: 60_000 });
    assert.equal(await dump(q), before);
    await q.close();
  });

  it('keeps an encrypted memory encrypted under its key after an undo', async () => {
    const p = await open();
    const { Memory } = createRequire(import.meta.url)('../../pkg-node/associative_memory.js');
    const KEY = 'history passphrase';
    const keyed = Memory.openInMemory(undefined, KEY);
    keyed.import(await exportDb(p));
    const encrypted = Buffer.from(keyed.export());
    keyed.free();
    await p.setInputFiles('#file', { name: 'keyed.sqlite', mimeType: 'application/octet-stream', buffer: encrypted });
    await p.waitForSelector('#confirm[open]');
    await p.click('[data-testid="confirm-ok"]');
    await p.waitForSelector('#passphrase[open]');
    await p.fill('#passphrase-input', KEY);
    await p.press('#passphrase-input', 'Enter');
    await p.waitForFunction(() => document.querySelector('#status').dataset.imported === 'keyed.sqlite' && document.querySelector('#status').dataset.state === 'ready');
    await p.waitForFunction(() => document.querySelector('#panel').dataset.name);
    const before = await dump(p);
    await select(p, 'Kaito Mori');
    await p.click('[data-testid="delete-btn"]');
    await p.click('[data-testid="confirm-ok"]');
    await notice(p, 'Deleted Kaito Mori');
    await undoNewest(p);
    assert.equal(await dump(p), before);
    const out = await exportDb(p);
    assert.notEqual(out.subarray(0, 16).toString('latin1'), 'SQLite format 3\0', 'the export is not plain SQLite');
    // Only the key opens it, and it holds Kaito Mori again.
    const plain = Memory.openInMemory();
    assert.throws(() => plain.import(out));
    plain.free();
    const check = Memory.openInMemory(undefined, KEY);
    check.import(out);
    const t = JSON.parse(JSON.stringify(check.call('traverse', { agent_id: 'team-bot', entity: 'Kaito Mori', max_hops: 0 })));
    check.free();
    assert.equal(t.entities[0]?.name, 'Kaito Mori');
    await p.close();
  });

  it('lists no step that changed nothing, and says when and why older steps were dropped', async () => {
    const p = await open();
    // An alias that names another entity is dropped by the engine: nothing changed, nothing listed.
    await p.fill('[data-testid="alias-input"]', 'Kaito Mori');
    await p.click('[data-testid="alias-btn"]');
    await p.waitForSelector('#panel [data-testid="alias-error"]:visible');
    assert.equal(await steps(p), 0);
    // A write from outside the page's steps (here the console; another tab on an OPFS memory
    // alike): undoing past it would undo it too, so the steps before it go, and the tab says why.
    await addAlias(p, 'Before The Outside Write');
    await p.evaluate(() => window.__explorer.agent.store({ content: 'Written from the console.' }));
    await addAlias(p, 'After The Outside Write');
    assert.equal(await steps(p), 1);
    assert.equal(await p.locator('[data-testid="history-label"]').textContent(), 'Added the alias “After The Outside Write” to Ledger Service');
    assert.equal(await p.textContent('[data-testid="history-dropped"]'),
      '1 older step was dropped because the memory was changed outside this page (another tab, or the console), and undoing them would undo that too; they can no longer be undone.');
    // Past the cap on what the steps keep, the oldest go first.
    await p.evaluate(() => { window.__explorer.history.maxBytes = 40_000; });
    await addAlias(p, 'Cap One');
    await addAlias(p, 'Cap Two');
    await addAlias(p, 'Cap Three');
    const held = Number(await p.getAttribute('#history', 'data-bytes'));
    assert.ok(held <= 40_000, `${held} bytes kept`);
    const labels = await p.locator('[data-testid="history-label"]').allTextContents();
    assert.ok(labels.length >= 1 && labels.length < 4, labels.join(' | '));
    assert.equal(labels[0], 'Added the alias “Cap Three” to Ledger Service');
    const gone = 4 - labels.length;
    assert.match(await p.textContent('[data-testid="history-dropped"]'), new RegExp(`^${1 + gone} older steps were dropped to keep what undo holds within 39 KiB; they can no longer be undone\\.$`));
    await p.click('[data-testid="tab-history"]');
    await shots(p, 'dropped');
    // What is left still undoes exactly.
    const aliases = () => p.evaluate(async () => (await window.__explorer.agent.traverse({ entity: 'Ledger Service', max_hops: 0 })).entities[0].aliases);
    const now = await aliases();
    await p.click('[data-testid="history-undo"]');
    await p.waitForFunction((n) => document.querySelector('#history').dataset.steps === String(n - 1), labels.length);
    assert.deepEqual(await aliases(), now.filter((a) => a !== 'Cap Three'));
    // A write from outside between the last step and an undo: nothing is undone, and the
    // history, which could only undo it too, is cleared, saying why.
    await p.evaluate(() => window.__explorer.agent.store({ content: 'Written from the console again.' }));
    const outside = await dump(p);
    await p.click('[data-testid="history-undo"]');
    await p.waitForSelector('[data-testid="history-error"]:visible');
    assert.equal(await p.textContent('[data-testid="history-error"]'), 'Could not undo: the memory was changed outside this page; nothing was undone');
    assert.match(await p.textContent('[data-testid="history-dropped"]'), /^The history was cleared: the memory was changed outside this page/);
    assert.equal(await steps(p), 0);
    assert.equal(await dump(p), outside);
    await p.close();
  });

  it('starts a new history when the source changes', async () => {
    const p = await open();
    await addAlias(p, 'Before The Switch');
    assert.equal(await steps(p), 1);
    await p.selectOption('#source', 'demo');
    await p.waitForSelector('#confirm[open]');
    await p.click('[data-testid="confirm-ok"]');
    await p.waitForFunction(() => document.querySelector('#history').dataset.steps === '0' && document.querySelector('#status').dataset.state === 'ready');
    await p.waitForFunction(() => document.querySelector('#panel')?.dataset.name === 'Ledger Service');
    // What the last history held is gone with it: Ctrl+Z changes nothing.
    const before = await dump(p);
    await p.keyboard.press('Control+z');
    await new Promise((r) => { setTimeout(r, 300); });
    assert.equal(await dump(p), before);
    await p.close();
  });
});
