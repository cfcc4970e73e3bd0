// A user's edge worker: an in-memory memory per request, filled, traversed, and returned as
// SQLite bytes (the traverse result rides in a header). Bundled as wrangler does (esbuild,
// conditions workerd/worker/browser) and served by workerd; see package-workerd.test.mjs.
import { openMemory } from 'associative-memory';

export default {
  async fetch(request) {
    const started = performance.now();
    const memory = await openMemory();
    const bot = memory.agent('edge-bot');
    await bot.store({
      content: 'Kaito Mori took over the ledger service this sprint.',
      associations: {
        entities: [{ name: 'Kaito Mori' }, { name: 'Ledger Service', aliases: ['台帳サービス'] }],
        relations: [{ subject: 'Kaito Mori', predicate: 'maintains', object: 'Ledger Service' }],
      },
    });
    const graph = await bot.traverse({ entity: '台帳サービス' });
    const bytes = await memory.export();
    await memory.close();
    return new Response(bytes, {
      headers: {
        'content-type': 'application/vnd.sqlite3',
        'x-traverse': encodeURIComponent(JSON.stringify(graph)),
        'x-elapsed-ms': String(performance.now() - started),
      },
    });
  },
};
