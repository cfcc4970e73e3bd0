// The explorer benchmarks' memory: `entityCount` entities (a Latin and a Japanese alias each) and
// `relationCount` relations skewed to a few hubs, for agent `bench`, built in Node through the
// package (pkg/node.js) from a seeded generator, so every run and every bench gets the same
// bytes. explorer-bench.mjs and undo-bench.mjs import it into the page.

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const AGENT = 'bench';

/** A seeded PRNG (mulberry32), so every run builds the same graph. */
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PREDICATES = ['depends_on', 'maintains', 'member_of', 'owns', 'uses', 'reviews', 'reports_to', 'affects', 'includes', 'monitors'];
export const name = (i) => `Entity ${String(i).padStart(4, '0')}`;

/** Builds the memory in Node through the package and returns its bytes. */
export async function generate(entityCount = 5000, relationCount = 20000) {
  const { openMemory } = await import(join(ROOT, 'pkg/node.js'));
  const memory = await openMemory({ clock: () => Date.parse('2026-12-01T00:00:00Z') });
  const bot = memory.agent(AGENT);
  const random = rng(42);
  // Records: one per two entities, declaring both with a Latin and a Japanese alias.
  for (let i = 0; i < entityCount; i += 2) {
    const ids = [i, i + 1].filter((x) => x < entityCount);
    await bot.store({
      content: `Note ${i / 2}: ${ids.map(name).join(' and ')} came up in the weekly review.`,
      associations: { entities: ids.map((x) => ({ name: name(x), aliases: [`e${x}`, `エンティティ${x}`] })) },
    });
  }
  // Relations: endpoints drawn with a skew (a few hubs, a long tail), 64 per declaration.
  const pick = () => Math.floor(entityCount * random() ** 2.2);
  const seen = new Set();
  let batch = [];
  let declared = 0;
  while (declared + batch.length < relationCount) {
    const s = pick();
    const o = Math.floor(entityCount * random());
    const p = PREDICATES[Math.floor(random() * PREDICATES.length)];
    const key = `${s}|${p}|${o}`;
    if (s === o || seen.has(key)) continue;
    seen.add(key);
    batch.push({ subject: name(s), predicate: p, object: name(o) });
    if (batch.length === 64) {
      const res = await bot.declareAssociations({ associations: { relations: batch } });
      declared += res.relations.length;
      batch = [];
    }
  }
  if (batch.length) declared += (await bot.declareAssociations({ associations: { relations: batch } })).relations.length;
  const total = (await bot.listEntities({ limit: 1 })).total;
  const bytes = await memory.export();
  await memory.close();
  return { bytes, entities: total, relations: declared };
}

