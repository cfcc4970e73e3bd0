// One crash trial on an OPFS memory, for package-crash.test.mjs (a handful) and
// www/bench/crash-bench.mjs (a hundred): a page of the driver app (consumer/driver) streams
// stores, four in flight, each with two entities and a relation between them; after the
// `after`-th acknowledged store the memory's worker is killed — `terminate()`d from the page
// (which stops it wherever it is, inside a transaction included), or the whole page is
// closed. Then a fresh page opens the memory again and reports what a crash must not do:
// an integrity_check that is not ok, an acknowledged store missing, or a store half there
// (its memory without its entities and relation, or the other way round).

/** Waits for the driver page at `url` in a new page of `context`; `watch(page)` may record its problems. */
export async function driverPage(context, url, watch = () => {}) {
  const page = await context.newPage();
  watch(page);
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 20000 });
  return page;
}

/**
 * Runs one trial: `mode` 'terminate' or 'close', the memory `name` (fresh), the kill after
 * the `after`-th acknowledgement; with `key` (a passphrase), on an encrypted memory.
 * Returns { acked, integrity, present, lost, half, problems }.
 */
export async function crashTrial(context, url, { mode, name, after, watch, key }) {
  const acked = new Map();
  const page = await driverPage(context, url, watch);
  await page.exposeFunction('acknowledged', (k, id) => { acked.set(k, id); });
  const killed = page.evaluate(async ({ name, mode, after, key }) => {
    const memory = await window.pkg.openMemory({ storage: 'opfs', name, key });
    const bot = memory.agent('crash');
    let count = 0;
    let stop = false;
    const done = new Promise((resolve) => {
      const store = async (k) => {
        const r = await bot.store({
          content: `store ${k}`,
          associations: { entities: [{ name: `E${k}a` }, { name: `E${k}b` }], relations: [{ subject: `E${k}a`, predicate: 'links', object: `E${k}b` }] },
        });
        window.acknowledged(k, r.id);
        if (++count === after) {
          stop = true;
          // A kill at a random moment of the worker's work (it is busy: four stores in flight).
          if (mode === 'terminate') setTimeout(() => { window.workers.at(-1).terminate(); resolve(); }, Math.random() * 4);
          else resolve();
        }
      };
      (async () => {
        const inflight = new Set();
        for (let k = 0; !stop; k++) {
          const p = store(k).catch(() => {}).finally(() => inflight.delete(p));
          inflight.add(p);
          if (inflight.size >= 4) await Promise.race(inflight);
        }
      })();
    });
    await done;
  }, { name, mode, after, key });
  await killed;
  if (mode === 'close') await page.close({ runBeforeUnload: false });

  const checker = mode === 'close' ? await driverPage(context, url, watch) : page;
  const found = await checker.evaluate(async ({ name, key }) => {
    const memory = await window.pkg.openMemory({ storage: 'opfs', name, key });
    const integrity = await memory.check();
    const bot = memory.agent('crash');
    const entities = new Map();
    for (let offset = 0; offset !== undefined && offset !== null;) {
      const page = await bot.listEntities({ limit: 500, offset });
      for (const e of page.entities) entities.set(e.name, e);
      offset = page.next_offset;
    }
    const memories = new Map(); // id → content
    for (let id = 1, empty = 0; empty < 3; id += 20) {
      const refs = Array.from({ length: 20 }, (_, i) => `mem:${id + i}`);
      const { items } = await bot.getContents({ refs });
      for (const item of items) memories.set(Number(item.ref.slice(4)), item.content);
      empty = items.length ? 0 : empty + 1;
    }
    await memory.close();
    return { integrity, entities: [...entities.values()], memories: [...memories] };
  }, { name, key });
  await checker.close();

  const memories = new Map(found.memories);
  const entities = new Map(found.entities.map((e) => [e.name, e]));
  const lost = [...acked].filter(([k, id]) => memories.get(id) !== `store ${k}`).map(([k]) => k);
  const half = [];
  const stored = new Set([...memories.values()].map((c) => Number(c.slice('store '.length))));
  for (const k of stored) {
    const whole = [`E${k}a`, `E${k}b`].every((n) => entities.get(n)?.mentions === 1 && entities.get(n)?.relations === 1);
    if (!whole) half.push(k);
  }
  for (const e of entities.values()) {
    const k = Number(e.name.slice(1, -1));
    if (!stored.has(k)) half.push(k);
  }
  return { acked: acked.size, present: memories.size, integrity: found.integrity, lost, half };
}
