// A minimal host app: its own memory, four notes, and the view mounted into its own element.
import { openMemory } from 'associative-memory';
import { mountGraphView } from 'associative-memory/view';

const memory = await openMemory({ clock: () => Date.parse('2026-11-02T09:00:00Z') });
const notes = memory.agent('notes-app');
await notes.store({
  content: 'Ana Costa leads the Atlas project; Ben Ito reviews its designs.',
  associations: {
    entities: [{ name: 'Ana Costa', aliases: ['Ana', 'アナ'] }, { name: 'Atlas', aliases: ['アトラス'] }, { name: 'Ben Ito', aliases: ['伊藤 ベン'] }],
    relations: [{ subject: 'Ana Costa', predicate: 'leads', object: 'Atlas' }, { subject: 'Ben Ito', predicate: 'reviews', object: 'Atlas' }],
  },
});
await notes.store({
  content: 'Atlas depends on the Tile Server.',
  associations: { entities: [{ name: 'Atlas' }, { name: 'Tile Server' }], relations: [{ subject: 'Atlas', predicate: 'depends_on', object: 'Tile Server' }] },
});
await notes.store({
  content: 'The Tile Server keeps its tiles in the Object Store.',
  associations: { entities: [{ name: 'Tile Server' }, { name: 'Object Store', aliases: ['S3 bucket'] }], relations: [{ subject: 'Tile Server', predicate: 'stores_in', object: 'Object Store' }] },
});
await notes.store({
  content: 'The Tile Server runs on two rented servers that Ben Ito set up.',
  associations: { entities: [{ name: 'Ben Ito' }, { name: 'Tile Server' }], relations: [{ subject: 'Ben Ito', predicate: 'operates', object: 'Tile Server' }] },
});

const picked = document.getElementById('picked');
const view = mountGraphView(document.getElementById('app-graph'), memory, {
  agent_id: 'notes-app',
  entity: 'アトラス',
  max_hops: 1,
  limit: 10,
  onSelect: (s) => {
    picked.textContent = !s ? 'Nothing selected.'
      : s.kind === 'entity' ? `Entity: ${s.entity.name} (${s.entity.mention_count} mentions)`
      : `Relation: ${s.subject.name} ${s.relation.predicate} ${s.object.name}`;
    picked.dataset.kind = s?.kind ?? '';
  },
});
// mountGraphView too, so a test can mount a second view with other options.
window.__host = { view, memory, mountGraphView };
