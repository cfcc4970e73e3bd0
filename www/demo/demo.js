// The traverse demo: an in-memory associative memory, filled from corpus.json, queried
// through `traverse` and `getContents`. Plain DOM, no framework, nothing from the network
// but this page's own files.

import init, { Memory } from '../../pkg/associative_memory.js';

const $ = (id) => document.getElementById(id);
const el = {
  status: $('status'),
  form: $('search-form'),
  input: $('entity-input'),
  hops: $('max-hops'),
  limit: $('limit'),
  button: $('search-btn'),
  suggestions: $('entity-suggestions'),
  examples: $('examples'),
  error: $('error'),
  missing: $('no-such-entity'),
  result: $('result'),
  summary: $('result-summary'),
  omitted: $('omitted'),
  entities: $('entities'),
  entityCount: $('entity-count'),
  relations: $('relations'),
  relationCount: $('relation-count'),
  noRelations: $('no-relations'),
  contentEmpty: $('content-empty'),
  content: $('content'),
  contentRef: $('content-ref'),
  contentTime: $('content-time'),
  contentText: $('content-text'),
};

let memory = null;
let agentId = 'team-bot';
/** entity id → canonical name, from listEntities; fills in relation ends. */
const entityNames = new Map();

/** Create an element with attributes and children. */
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'onclick') node.addEventListener('click', v);
    else if (k.startsWith('data') || k === 'title' || k === 'type' || k === 'datetime') node.setAttribute(k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase()), v);
    else node[k] = v;
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

/** "2026-10-05T09:12:00+00:00" → "2026-10-05 09:12" (UTC, as stored). */
function shortTime(ts) {
  if (typeof ts !== 'string') return '';
  const m = ts.match(/^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d)/);
  return m ? `${m[1]} ${m[2]}` : ts;
}

function describeError(err) {
  if (err && typeof err === 'object' && 'code' in err) {
    return `${err.code}${err.field ? ` (${err.field})` : ''}: ${err.message}`;
  }
  return String(err?.message ?? err);
}

function showError(message) {
  el.error.textContent = message;
  el.error.hidden = !message;
}

async function load() {
  const started = performance.now();
  await init();
  const response = await fetch('corpus.json');
  if (!response.ok) throw new Error(`corpus.json: HTTP ${response.status}`);
  const corpus = await response.json();
  agentId = corpus.agent_id ?? agentId;

  // The memory's clock follows the corpus, so created_at and declared_at read as the
  // story's own dates and every load of the page gives the same database.
  let now = Date.parse(corpus.memories[0]?.timestamp ?? '2026-01-01T00:00:00Z');
  memory = Memory.openInMemory(() => now);

  let stored = 0;
  const dropped = [];
  for (const m of corpus.memories) {
    if (m.timestamp) now = Date.parse(m.timestamp);
    const res = memory.store({
      agent_id: agentId,
      content: m.content,
      timestamp: m.timestamp,
      source: m.source,
      metadata: m.metadata,
      associations: m.associations,
    });
    if (res?.ok) stored += 1;
    for (const d of res?.associations?.dropped ?? []) dropped.push({ memory: res.id, ...d });
  }
  if (dropped.length) console.warn('declarations dropped while loading the corpus', dropped);

  const total = await fillSuggestions();
  const ms = Math.round(performance.now() - started);
  el.status.dataset.memories = String(stored);
  el.status.dataset.entities = String(total);
  el.status.dataset.dropped = String(dropped.length);
  el.status.replaceChildren(
    `Loaded ${stored} memories, ${total} entities`,
    h('span', { class: 'muted' }, ` · agent ${agentId} · ${ms} ms`),
  );
  if (dropped.length) {
    el.status.append(h('span', { class: 'warn', dataTestid: 'dropped' }, ` · ${dropped.length} declarations dropped (see console)`));
  }
  el.status.dataset.state = 'ready';
  for (const c of [el.input, el.hops, el.limit, el.button]) c.disabled = false;
  el.examples.hidden = false;
  el.input.focus();

  window.__demo = { memory, agentId };
}

/** Every entity's name and aliases go into the datalist. Returns the entity total. */
async function fillSuggestions() {
  const seen = new Set();
  const options = [];
  let offset = 0;
  let total = 0;
  for (let page = 0; page < 1000; page++) {
    const res = memory.listEntities({ agent_id: agentId, offset, limit: 100 });
    total = res.total ?? total;
    for (const e of res.entities ?? []) {
      entityNames.set(e.id, e.name);
      for (const label of [e.name, ...(e.aliases ?? [])]) {
        if (seen.has(label)) continue;
        seen.add(label);
        const opt = h('option', { value: label });
        if (label !== e.name) opt.label = `${label} → ${e.name}`;
        options.push(opt);
      }
    }
    if (res.next_offset === undefined || res.next_offset === null || res.next_offset <= offset) break;
    offset = res.next_offset;
  }
  el.suggestions.replaceChildren(...options);
  return total || entityNames.size;
}

function clearResult() {
  showError('');
  el.missing.hidden = true;
  el.result.hidden = true;
}

function runTraverse() {
  const entity = el.input.value.trim();
  if (!memory || !entity) return;
  clearResult();
  const request = { agent_id: agentId, entity, max_hops: Number(el.hops.value) };
  const limit = Number.parseInt(el.limit.value, 10);
  if (!Number.isNaN(limit)) request.limit = limit;

  let res;
  try {
    res = memory.traverse(request);
  } catch (err) {
    showError(describeError(err));
    return;
  }
  if (res.reason === 'no_such_entity') {
    el.missing.replaceChildren('No such entity: nothing is named or aliased “', h('b', {}, entity), '”.');
    el.missing.hidden = false;
    return;
  }
  render(res, entity);
}

function render(res, asked) {
  const entities = res.entities ?? [];
  const relations = res.relations ?? [];
  const names = new Map(entityNames);
  for (const e of entities) names.set(e.id, e.name);

  const maxHops = res.max_hops ?? el.hops.value;
  const limit = res.limit ?? el.limit.value;
  const start = entities.find((e) => e.hops === 0);
  const startName = start?.name ?? res.entity ?? asked;
  el.summary.replaceChildren(
    h('b', {}, startName),
    startName !== asked ? h('span', { class: 'muted' }, ` (found by “${asked}”)`) : '',
    ` — ${entities.length} ${entities.length === 1 ? 'entity' : 'entities'}, ${relations.length} ${relations.length === 1 ? 'relation' : 'relations'} within ${maxHops} ${Number(maxHops) === 1 ? 'hop' : 'hops'} (limit ${limit})`,
  );

  const cut = [];
  const bounds = res.bounds?.omitted ?? [];
  if (res.entities_omitted) {
    cut.push(`${res.entities_omitted} more ${res.entities_omitted === 1 ? 'entity' : 'entities'} not shown (limit ${limit})`);
  } else if (bounds.includes('limit')) {
    // limit also bounds the refs listed per entity; that is what it cut here.
    const cutRefs = entities.some((e) => e.mentions_omitted);
    cut.push(cutRefs ? `mention lists stop at limit ${limit}` : `limit ${limit} reached`);
  }
  if (bounds.includes('max_hops')) cut.push(`more lies beyond max_hops ${maxHops}`);
  for (const b of bounds) if (b !== 'limit' && b !== 'max_hops') cut.push(`cut by ${b}`);
  el.omitted.textContent = cut.length ? `Cut: ${cut.join('; ')}.` : '';
  el.omitted.dataset.entitiesOmitted = String(res.entities_omitted ?? 0);
  el.omitted.dataset.bounds = bounds.join(',');
  el.omitted.hidden = cut.length === 0;

  el.entityCount.textContent = `(${entities.length})`;
  el.entities.replaceChildren(...entities.map(entityRow));

  el.relationCount.textContent = `(${relations.length})`;
  el.relations.replaceChildren(...relations.map((r) => relationRow(r, names)));
  el.noRelations.hidden = relations.length > 0;

  el.result.hidden = false;
}

function entityRow(e) {
  const aliases = (e.aliases ?? []).filter((a) => a !== e.name);
  const mentions = e.mentions ?? [];
  return h('tr', { dataTestid: 'entity-row', dataName: e.name, dataHops: String(e.hops), dataId: String(e.id), class: e.hops === 0 ? 'start' : '' },
    h('td', {}, h('button', { type: 'button', class: 'entity-link', dataTestid: 'entity-name', title: `Traverse from ${e.name}`, onclick: () => traverseFrom(e.name) }, e.name)),
    h('td', { class: 'hops' }, h('span', { class: `hop hop-${e.hops}`, dataTestid: 'entity-hops' }, String(e.hops))),
    h('td', { class: 'aliases', dataTestid: 'entity-aliases' }, aliases.length ? aliases.map((a) => h('span', { class: 'alias' }, a)) : h('span', { class: 'muted' }, '—')),
    h('td', {},
      h('div', { class: 'refs' },
        mentions.map(refButton),
        e.mentions_omitted ? h('span', { class: 'more', dataTestid: 'mentions-omitted' }, `+${e.mentions_omitted} more`) : null,
        mentions.length || e.mentions_omitted ? null : h('span', { class: 'muted' }, '—'))));
}

/** A relation end: an entity id, a name, a ref, or an object carrying one of those. */
function endpoint(x, names) {
  if (x && typeof x === 'object') {
    if (x.name) return x.name;
    if (x.ref) return x.ref;
    if ('id' in x) return endpoint(x.kind && x.kind !== 'entity' ? `${x.kind}:${x.id}` : x.id, names);
    return JSON.stringify(x);
  }
  if (typeof x === 'number') return names.get(x) ?? `entity #${x}`;
  if (typeof x === 'string' && /^\d+$/.test(x)) return names.get(Number(x)) ?? `entity #${x}`;
  return String(x);
}

function endpointNode(label) {
  return /^(mem|ep):\d+$/.test(label) ? refButton(label) : h('b', {}, label);
}

function relationRow(r, names) {
  const s = endpoint(r.subject, names);
  const o = endpoint(r.object, names);
  return h('li', { dataTestid: 'relation-row', dataSubject: s, dataPredicate: r.predicate, dataObject: o, dataId: String(r.id) },
    h('span', { class: 'rel-main', dataTestid: 'relation-text' },
      endpointNode(s), h('span', { class: 'pred' }, ' —', h('b', {}, r.predicate), '→ '), endpointNode(o)),
    h('span', { class: 'rel-meta' },
      r.declared_at ? h('time', { datetime: r.declared_at, title: `declared_at ${r.declared_at}`, dataTestid: 'relation-declared-at' }, shortTime(r.declared_at)) : null,
      r.declared_by && r.declared_by !== 'agent' ? h('span', {}, r.declared_by) : null,
      r.anchor_ref ? h('span', {}, 'anchor ', refButton(r.anchor_ref)) : null));
}

function refButton(ref) {
  return h('button', { type: 'button', class: 'ref', dataTestid: 'mention-ref', dataRef: ref, title: `Show ${ref}`, onclick: () => showContent(ref) }, ref);
}

function showContent(ref) {
  for (const b of document.querySelectorAll('button.ref.active')) b.classList.remove('active');
  for (const b of document.querySelectorAll(`button.ref[data-ref="${CSS.escape(ref)}"]`)) b.classList.add('active');
  let res;
  try {
    res = memory.getContents({ agent_id: agentId, refs: [ref] });
  } catch (err) {
    showError(describeError(err));
    return;
  }
  const item = (res.items ?? []).find((i) => i.ref === ref) ?? res.items?.[0];
  el.contentRef.textContent = ref;
  el.content.dataset.ref = ref;
  if (item) {
    el.contentTime.textContent = shortTime(item.timestamp);
    el.contentTime.setAttribute('datetime', item.timestamp ?? '');
    el.contentText.textContent = item.content;
    el.contentText.classList.remove('muted');
  } else {
    el.contentTime.textContent = '';
    el.contentText.textContent = `${ref} is not in this memory (it may have been deleted).`;
    el.contentText.classList.add('muted');
  }
  el.contentEmpty.hidden = true;
  el.content.hidden = false;
}

function traverseFrom(name) {
  el.input.value = name;
  runTraverse();
}

el.form.addEventListener('submit', (event) => {
  event.preventDefault();
  runTraverse();
});
el.hops.addEventListener('change', () => { if (el.input.value.trim()) runTraverse(); });
el.examples.addEventListener('click', (event) => {
  const chip = event.target.closest('[data-example]');
  if (chip) traverseFrom(chip.dataset.example);
});

load().catch((err) => {
  el.status.dataset.state = 'error';
  el.status.textContent = `Could not load the demo: ${describeError(err)}`;
  console.error(err);
});
