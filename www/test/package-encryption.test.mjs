// Encryption at rest through the packed package in Chromium (a Vite build of
// consumer/driver): an OPFS memory opened with a key is written with Japanese text and a
// marker, closed, and its raw OPFS files are read back from the page — neither appears in
// them, while they do in a plain memory's files written the same way. It reopens with its
// key, and fails with `wrong_key` / `encrypted` (changing nothing) with another key or none,
// from its own tab and from a second one; exports are encrypted, `rekey` encrypts and
// decrypts in place. No page may log an error.

import { describe, it } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { driverSuite } from './harness.mjs';
import { importPackage } from './pack.mjs';

const MARKER = 'ZEBRA-7f3a-MARKER';
const JAPANESE = '海斗はインジェストのキューを直した';

describe('an encrypted memory in Chromium', () => {
  // Helpers every page of this suite gets: the raw bytes of an OPFS memory's files, whether
  // a text is among them, and a memory filled with the texts.
  const { page, problems } = driverSuite(() => {
    window.rawKey = (n) => new Uint8Array(32).fill(n);
    window.opfsFiles = async (name) => {
      const root = await navigator.storage.getDirectory();
      const dir = await (await root.getDirectoryHandle('.associative-memory')).getDirectoryHandle(name);
      const files = [];
      const walk = async (d) => {
        for await (const handle of d.values()) {
          if (handle.kind === 'file') files.push(new Uint8Array(await (await handle.getFile()).arrayBuffer()));
          else await walk(handle);
        }
      };
      await walk(dir);
      return files;
    };
    window.holds = (chunks, text) => {
      const needle = new TextEncoder().encode(text);
      return chunks.some((bytes) => {
        outer: for (let i = 0; i + needle.length <= bytes.length; i++) {
          for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
          return true;
        }
        return false;
      });
    };
    window.fill = async (memory, marker, japanese) => {
      const bot = memory.agent('enc');
      await bot.store({ content: `${marker} the ingestion service drops events`, associations: { entities: [{ name: 'Kaito Mori', aliases: ['海斗'] }] } });
      await bot.storeMany([{ content: japanese }, { content: `${marker} again, in a batch` }]);
    };
  });

  /** Opens OPFS memory `name` in page `p` as `window.memory`; returns the error code, or null. */
  const open = (p, name, key) => p.evaluate(async ({ name, key }) => {
    try {
      window.memory = await window.pkg.openMemory({ storage: 'opfs', name, ...(key === undefined ? {} : { key: typeof key === 'number' ? window.rawKey(key) : key }) });
      return null;
    } catch (e) { return e.code; }
  }, { name, key });
  /** What the page finds of the marker, the Japanese text and SQLite's header in the memory's files. */
  const scan = (p, name) => p.evaluate(async ({ name, MARKER, JAPANESE }) => {
    const files = await window.opfsFiles(name);
    return {
      bytes: files.reduce((n, f) => n + f.length, 0),
      marker: window.holds(files, MARKER), japanese: window.holds(files, JAPANESE), header: window.holds(files, 'SQLite format 3'),
    };
  }, { name, MARKER, JAPANESE });
  const count = (p) => p.evaluate(async () => (await window.memory.agent('enc').listMemories()).total);

  it('keeps no plaintext in OPFS, and opens only with its key', async () => {
    const stamp = Date.now();
    const p = await page();
    // The control: a plain memory written the same way holds the texts, so the scan finds them.
    assert.equal(await open(p, `plain-${stamp}`), null);
    await p.evaluate(async ({ MARKER, JAPANESE }) => { await window.fill(window.memory, MARKER, JAPANESE); await window.memory.close(); }, { MARKER, JAPANESE });
    const plain = await scan(p, `plain-${stamp}`);
    assert.deepEqual(plain, { bytes: plain.bytes, marker: true, japanese: true, header: true });

    const name = `enc-${stamp}`;
    assert.equal(await open(p, name, 7), null);
    await p.evaluate(async ({ MARKER, JAPANESE }) => { await window.fill(window.memory, MARKER, JAPANESE); await window.memory.close(); }, { MARKER, JAPANESE });
    const atRest = await scan(p, name);
    assert.ok(atRest.bytes > 8192, JSON.stringify(atRest));
    assert.deepEqual(atRest, { bytes: atRest.bytes, marker: false, japanese: false, header: false });

    // Another key, or none: a typed error, and the memory is as it was (and free to open).
    assert.equal(await open(p, name, 8), 'wrong_key');
    assert.equal(await open(p, name, 'a passphrase'), 'wrong_key');
    assert.equal(await open(p, name), 'encrypted');
    assert.deepEqual(await scan(p, name), atRest);
    assert.equal(await open(p, name, 7), null);
    assert.equal(await count(p), 3);
    const recalled = await p.evaluate(() => window.memory.agent('enc').recall({ query: 'キュー' }));
    assert.equal(recalled.messages[0].content, JAPANESE);
    await p.screenshot({ path: new URL('../../test-output/encryption-reopened.png', import.meta.url).pathname });

    // A second tab uses the memory through the first only with the same key.
    const q = await page();
    assert.equal(await open(q, name, 9), 'wrong_key');
    assert.equal(await open(q, name), 'encrypted');
    assert.equal(await open(q, name, 7), null);
    assert.equal(await count(q), 3);
    await q.evaluate(() => window.memory.close());
    await p.evaluate(() => window.memory.close());
    await q.close();
    await p.close();
    assert.deepEqual(problems, []);
  });

  it('exports encrypted bytes, imports them only with the key, and decrypts when asked', async () => {
    const p = await page();
    const name = `export-${Date.now()}`;
    assert.equal(await open(p, name, 'correct horse battery staple'), null);
    const out = await p.evaluate(async ({ MARKER, JAPANESE }) => {
      await window.fill(window.memory, MARKER, JAPANESE);
      const encrypted = await window.memory.export();
      const plain = await window.memory.export({ decrypt: true });
      const copy = await window.pkg.openMemory();
      const code = (promise) => promise.then(() => null, (e) => e.code);
      const refused = {
        noKey: await code(copy.import(encrypted)),
        notAsked: await code(copy.import(encrypted, { key: 'correct horse battery staple' })),
        wrongKey: await code(copy.import(encrypted, { key: 'another passphrase', decrypt: true })),
        badKey: await code(copy.import(encrypted, { key: new Uint8Array(5) })),
      };
      await copy.import(encrypted, { key: 'correct horse battery staple', decrypt: true });
      const total = (await copy.agent('enc').listMemories()).total;
      // An in-memory memory with a key exports encrypted bytes too.
      const keyed = await window.pkg.openMemory({ key: window.rawKey(3) });
      await keyed.import(plain);
      const keyedBytes = await keyed.export();
      const back = await window.pkg.openMemory();
      await back.import(keyedBytes, { key: window.rawKey(3), decrypt: true });
      return {
        refused, total, backTotal: (await back.agent('enc').listMemories()).total,
        encrypted: { marker: window.holds([encrypted], MARKER), japanese: window.holds([encrypted], JAPANESE), header: window.holds([encrypted], 'SQLite format 3') },
        keyed: { marker: window.holds([keyedBytes], MARKER), header: window.holds([keyedBytes], 'SQLite format 3') },
        plain: { marker: window.holds([plain], MARKER), header: window.holds([plain], 'SQLite format 3') },
      };
    }, { MARKER, JAPANESE });
    assert.deepEqual(out.refused, { noKey: 'not_a_memory', notAsked: 'invalid_value', wrongKey: 'wrong_key', badKey: 'invalid_value' });
    assert.equal(out.total, 3);
    assert.equal(out.backTotal, 3);
    assert.deepEqual(out.encrypted, { marker: false, japanese: false, header: false });
    assert.deepEqual(out.keyed, { marker: false, header: false });
    assert.deepEqual(out.plain, { marker: true, header: true });
    // Plain bytes imported into the encrypted OPFS memory are encrypted there too.
    const total = await p.evaluate(async () => {
      const plain = await window.memory.export({ decrypt: true });
      await window.memory.agent('enc').store({ content: 'replaced by the import' });
      await window.memory.import(plain);
      const { total } = await window.memory.agent('enc').listMemories();
      await window.memory.close();
      return total;
    });
    assert.equal(total, 3);
    const atRest = await scan(p, name);
    assert.deepEqual(atRest, { bytes: atRest.bytes, marker: false, japanese: false, header: false });
    await p.close();
    assert.deepEqual(problems, []);
  });

  it('rekeys in place: encrypts a plain memory, changes its key, decrypts it', async () => {
    const p = await page();
    const name = `rekey-${Date.now()}`;
    assert.equal(await open(p, name), null);
    await p.evaluate(async ({ MARKER, JAPANESE }) => {
      await window.fill(window.memory, MARKER, JAPANESE);
      await window.memory.rekey(window.rawKey(1));
      await window.memory.agent('enc').store({ content: 'after the rekey' });
      await window.memory.close();
    }, { MARKER, JAPANESE });
    const encrypted = await scan(p, name);
    assert.deepEqual(encrypted, { bytes: encrypted.bytes, marker: false, japanese: false, header: false });
    assert.equal(await open(p, name), 'encrypted');
    assert.equal(await open(p, name, 1), null);
    assert.equal(await count(p), 4);
    await p.evaluate(async () => { await window.memory.rekey('a new passphrase'); await window.memory.close(); });
    assert.equal(await open(p, name, 1), 'wrong_key');
    assert.equal(await open(p, name, 'a new passphrase'), null);
    const refused = await p.evaluate(() => window.memory.rekey(undefined).then(() => null, (e) => [e.code, e.field]));
    assert.deepEqual(refused, ['invalid_value', 'key']);
    await p.evaluate(async () => { await window.memory.rekey(null); await window.memory.close(); });
    assert.equal((await scan(p, name)).marker, true);
    assert.equal(await open(p, name), null);
    assert.equal(await count(p), 4);
    await p.evaluate(() => window.memory.close());
    await p.close();
    assert.deepEqual(problems, []);
  });
});

// The import rules of "Encryption at rest" in Node, storage 'memory' and 'file': a memory with
// a key imports with it unless given another; a memory without one takes encrypted bytes only
// with `decrypt: true`, so ciphertext never becomes a plain export unasked.
describe('importing encrypted bytes in Node', () => {
  const header = (bytes) => new TextDecoder().decode(bytes.subarray(0, 15)) === 'SQLite format 3';
  const refusal = (promise) => promise.then(() => null, (e) => ({ code: e.code, field: e.field, instance: e instanceof pkg.AssociativeMemoryError }));
  let pkg;
  let dir;
  let opened = 0;
  const path = () => join(dir, `enc-${++opened}.sqlite3`);
  it('sets up', async () => {
    pkg = await importPackage();
    dir = await mkdtemp(join(tmpdir(), 'am-enc-import-'));
  });

  for (const storage of ['memory', 'file']) {
    const open = (key) => pkg.openMemory(storage === 'file' ? { storage, path: path(), ...(key ? { key } : {}) } : key ? { key } : {});
    it(`storage '${storage}': a keyed memory imports with its own key, another with key, and stays encrypted`, async () => {
      const source = await open('one passphrase');
      await source.agent('a').store({ content: `${MARKER} from the source` });
      const bytes = await source.export();
      assert.equal(header(bytes), false);
      await source.close();

      const keyed = await open('one passphrase');
      await keyed.import(bytes);
      assert.equal((await keyed.agent('a').listMemories()).total, 1);
      const other = await open('another passphrase');
      await other.agent('a').store({ content: 'kept when an import fails' });
      assert.deepEqual(await refusal(other.import(bytes)), { code: 'wrong_key', field: undefined, instance: true });
      assert.equal((await other.agent('a').listMemories()).memories[0].content, 'kept when an import fails');
      await other.import(bytes, { key: 'one passphrase' });
      assert.equal((await other.agent('a').listMemories()).memories[0].content, `${MARKER} from the source`);
      const again = await other.export();
      assert.equal(header(again) || Buffer.from(again).includes(MARKER), false, 'the export of a keyed memory after an import is encrypted');
      await keyed.close();
      await other.close();
    });

    it(`storage '${storage}': a memory without a key takes encrypted bytes only with decrypt`, async () => {
      const source = await pkg.openMemory({ key: 'one passphrase' });
      await source.agent('a').store({ content: `${MARKER} from the source` });
      const bytes = await source.export();
      const plain = await open();
      await plain.agent('a').store({ content: 'kept when an import fails' });
      assert.deepEqual(await refusal(plain.import(bytes, { key: 'one passphrase' })), { code: 'invalid_value', field: 'decrypt', instance: true });
      assert.deepEqual(await refusal(plain.import(bytes)), { code: 'not_a_memory', field: undefined, instance: true });
      const kept = await plain.export();
      assert.ok(header(kept) && !Buffer.from(kept).includes(MARKER), 'a refused import changed nothing');
      await plain.import(bytes, { key: 'one passphrase', decrypt: true });
      const decrypted = await plain.export();
      assert.ok(header(decrypted) && Buffer.from(decrypted).includes(MARKER), 'asked, the memory holds the plaintext');
      await plain.close();
      await source.close();
    });
  }

  it('cleans up', async () => {
    await rm(dir, { recursive: true, force: true });
  });
});
