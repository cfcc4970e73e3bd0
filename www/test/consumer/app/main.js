// A user's app: opens an OPFS memory by name, stores and declares on ?write, and shows the
// graph. Built with `vite build`; driven by www/test/package-vite.test.mjs.
import { openMemory } from 'associative-memory';

const $ = (id) => document.getElementById(id);
const item = (text) => Object.assign(document.createElement('li'), { textContent: text });

async function main() {
  const memory = await openMemory({ storage: 'opfs', name: 'consumer-app' });
  const bot = memory.agent('pm-bot', { project_id: 'ledger' });
  if (new URLSearchParams(location.search).has('write')) {
    const { id } = await bot.store({
      content: 'Kaito Mori took over the ledger service this sprint.',
      associations: { entities: [{ name: 'Kaito Mori', aliases: ['森 海斗'] }, { name: 'Ledger Service', aliases: ['台帳サービス'] }] },
    });
    await bot.declareAssociations({
      anchor_ref: `mem:${id}`,
      associations: { relations: [{ subject: 'Kaito Mori', predicate: 'maintains', object: 'Ledger Service' }, { subject: 'Ledger Service', predicate: 'depends_on', object: 'Ledger DB' }] },
    });
  }
  const graph = await bot.traverse({ entity: '台帳サービス', max_hops: 2 });
  const names = Object.fromEntries(graph.entities.map((e) => [e.id, e.name]));
  $('entities').replaceChildren(...graph.entities.map((e) => item(`${e.name} (hops ${e.hops}) mentioned by ${(e.mentions ?? []).join(', ') || 'nothing'}`)));
  $('relations').replaceChildren(...graph.relations.map((r) => item(`${names[r.subject]} —${r.predicate}→ ${names[r.object]}`)));
  $('status').textContent = `open: storage ${memory.storage}, ${graph.entities.length} entities, ${graph.relations.length} relations`;
  document.body.dataset.state = 'open';
  window.result = { storage: memory.storage, graph };
  window.memory = memory;
}

main().catch((err) => {
  $('status').textContent = `${err.name} ${err.code}: ${err.message}`;
  $('status').className = 'error';
  document.body.dataset.state = 'error';
  window.result = { name: err.name, code: err.code, field: err.field, message: err.message };
});
