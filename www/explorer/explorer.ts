// The explorer: see, search and curate an agent's memory. Built on the package's public API
// only ('associative-memory' and 'associative-memory/view'); bundled by www/explorer/build.mjs.

import { importMcpMemoryGraph, openMemory, storeBatches, type AssociativeMemory, type AgentMemory, type Associations, type ReconstructResponse, type Source, type Storage, type StoreItem } from 'associative-memory';
import { mountGraphView, type GraphSelection, type GraphState, type RecordMark, type ViewEntity } from 'associative-memory/view';
import corpus from './corpus.json';
import { describeError, h, plural, shortTime, sourceText } from './dom.js';
import { mountDrawingControls } from './drawing.js';
import { keyErrorText, keyFromText, mountKeyBadge, openKeyed, reopen } from './encryption.js';
import { datedClaims, inRange, inScope, mountFilters, scopeOf } from './filters.js';
import { mountHistory } from './history.js';
import { mountMemories } from './memories.js';
import { mountRecords } from './records.js';
import { mountSheet } from './sheet.js';
import { endCorpusRelation, invalidateForm, invalidateRelation, isClosed, mountTimeBar, timeFacts, timelineSection, type CorpusEnd } from './time.js';

interface CorpusMemory { content: string; timestamp?: string; source?: Source; metadata?: Record<string, unknown>; associations?: Associations }

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const el = {
  status: $('status'), source: $<HTMLSelectElement>('source'), opfsField: $('opfs-field'), opfsName: $<HTMLInputElement>('opfs-name'),
  opfsOpen: $<HTMLButtonElement>('opfs-open'), opfsKeyField: $('opfs-key-field'), opfsKey: $<HTMLInputElement>('opfs-key'), opfsError: $('opfs-error'),
  agent: $<HTMLInputElement>('agent'), agentList: $('agent-list'), agentHint: $('agent-hint'), file: $<HTMLInputElement>('file'),
  importBtn: $<HTMLButtonElement>('import-btn'), exportBtn: $<HTMLButtonElement>('export-btn'), exportJsonlBtn: $<HTMLButtonElement>('export-jsonl-btn'),
  searchForm: $<HTMLFormElement>('search-form'), input: $<HTMLInputElement>('entity-input'), suggestions: $('entity-suggestions'),
  hops: $<HTMLSelectElement>('max-hops'), limit: $<HTMLInputElement>('limit'), searchBtn: $<HTMLButtonElement>('search-btn'),
  cut: $('cut'), error: $('error'), graph: $('graph'), showHidden: $<HTMLButtonElement>('show-hidden'),
  findInput: $<HTMLInputElement>('find-input'), findStatus: $('find-status'),
  askForm: $<HTMLFormElement>('ask-form'), ask: $<HTMLInputElement>('ask-input'), askBtn: $<HTMLButtonElement>('ask-btn'), askClear: $<HTMLButtonElement>('ask-clear'),
  panel: $('panel'), answers: $('answers'), confirm: $<HTMLDialogElement>('confirm'), confirmText: $('confirm-text'), drop: $('drop'),
  passphrase: $<HTMLDialogElement>('passphrase'), passphraseText: $('passphrase-text'), passphraseInput: $<HTMLInputElement>('passphrase-input'),
  progress: $('import-progress'), progressBar: $<HTMLProgressElement>('import-progress-bar'), progressText: $('import-progress-text'),
  controlsToggle: $<HTMLButtonElement>('controls-toggle'), sheetClose: $<HTMLButtonElement>('sheet-close'),
  side: $('side'), filters: $('filters-bar'),
  tabGraph: $<HTMLButtonElement>('tab-graph'), tabMemories: $<HTMLButtonElement>('tab-memories'), graphView: $('graph-view'), memories: $('memories'),
  tabHistory: $<HTMLButtonElement>('tab-history'), history: $('history'), timeBar: $('time-bar'), timeNotice: $('time-notice'),
};

let memory: AssociativeMemory | null = null;
let agent: AgentMemory | null = null;
let sourceLabel = 'demo corpus';
let selection: GraphSelection | null = null;
/** The clock: the corpus's own time while it loads (so declared_at reads as the story's), then now. */
let storyNow: number | null = null;
const clock = () => storyNow ?? Date.now();

function showError(message: string): void {
  el.error.textContent = message;
  el.error.hidden = !message;
}

function setStatus(state: 'loading' | 'ready' | 'error', text: string, data: Record<string, string | number> = {}): void {
  el.status.dataset.state = state;
  for (const [k, v] of Object.entries(data)) el.status.dataset[k] = String(v);
  el.status.textContent = text;
}

function enable(on: boolean): void {
  for (const c of [el.input, el.findInput, el.hops, el.limit, el.searchBtn, el.ask, el.askBtn, el.exportBtn, el.exportJsonlBtn, el.tabMemories, el.tabHistory]) c.disabled = !on;
}

// ---------------------------------------------------------------- the graph view

/**
 * True while a traverse selects its start entity: on a phone the details sheet rises for what
 * a person picks (a tap, the list, find), not for the start the page chose, which would cover
 * the graph just drawn.
 */
let quietSelect = false;

const sheet = mountSheet(el.side, el.sheetClose.parentElement!, el.sheetClose, () => el.graph.querySelector<HTMLElement>('.amv-canvas'));

/** The details as a sheet over the graph's bottom (a phone's layout; CSS ignores it wider). Typing in the find box keeps the focus. */
function openSheet(open: boolean): void {
  sheet.open(open, { keepFocus: document.activeElement === el.findInput });
}

// ---------------------------------------------------------------- filters and record links

const filterBar = mountFilters(el.filters, () => void filtered());
const links = mountRecords({
  agent: () => agent,
  inScope: (project, channel) => inScope(filterBar.current(), project, channel),
  // The list (or dialog) the chip was in goes: the focus goes to the graph drawn.
  showOnGraph: (name) => { showTab('graph'); el.input.value = name; void traverse().then(() => el.graph.querySelector<HTMLElement>('.amv-canvas')?.focus()); },
});
const keyBadge = mountKeyBadge(el.status);

/** After the filters change: the graph, the lists and an answer are read again under them. */
async function filtered(): Promise<void> {
  if (!agent) return;
  showError('');
  if (view.state().start !== null) await view.refresh().catch((err) => showError(describeError(err)));
  await renderPanel();
  if (!el.memories.hidden) await memoriesView.refresh();
  if (answer) await reconstruct();
}

/** Phones fold the source, agent and traverse settings under one button (CSS ignores it wider). */
function showControls(open: boolean): void {
  document.body.classList.toggle('controls-open', open);
  el.controlsToggle.setAttribute('aria-expanded', String(open));
}

const view = mountGraphView(el.graph, {
  // Through the filter bar: scoped by its project and channel, relations outside its dates dropped.
  traverse: (options: Parameters<AgentMemory['traverse']>[0]) => {
    if (!agent) throw new Error('no memory is open');
    return filterBar.traverse(agent, options);
  },
}, {
  max_hops: 2,
  limit: 20,
  onSelect: (s) => { selection = s; if (s && !quietSelect) openSheet(true); void renderPanel(); },
  onChange: (state) => { renderCut(state); renderHidden(state); findAgain(); },
});
// The instant the graph is read at (time.ts): the panel, and an answer shown, follow it.
const timeBar = mountTimeBar(el.timeBar, el.timeNotice, {
  changed: async (asOf) => {
    await view.setAsOf(asOf);
    await renderPanel();
    if (answer) await reconstruct();
  },
});
/** The graph's `as_of` (the view holds it, set by the time bar) for the graph page's other reads: reconstruct. */
const asOf = () => { const t = view.state().as_of; return t === undefined ? {} : { as_of: t }; };
mountDrawingControls(view, { save: (png, name) => download(png, 'image/png', name), fileName: () => `${agent?.agentId ?? 'memory'}-graph-${today()}.png` });

// ---------------------------------------------------------------- find in graph

/** The drawn, shown nodes whose name or an alias holds the text (any case), nearest the start first. */
function findMatches(text: string): ViewEntity[] {
  const q = text.trim().toLocaleLowerCase();
  if (!q) return [];
  const state = view.state();
  const hidden = new Set(state.hidden);
  return state.entities
    .filter((e) => !hidden.has(e.id) && [e.name, ...(e.aliases ?? [])].some((n) => n.toLocaleLowerCase().includes(q)))
    .sort((a, b) => a.ring - b.ring || a.name.localeCompare(b.name));
}

let findAt = 0;
/** Rings and centres the `findAt`-th match (wrapping), and selects it so its details show. */
function find(step: number): void {
  const matches = findMatches(el.findInput.value);
  el.findStatus.dataset.count = String(matches.length);
  if (!matches.length) {
    view.reveal(null);
    el.findStatus.textContent = el.findInput.value.trim() ? 'no drawn node matches' : '';
    return;
  }
  findAt = (findAt + step + matches.length) % matches.length;
  const e = matches[findAt]!;
  view.reveal(e.id);
  view.select({ entity: e.id });
  el.findStatus.textContent = `${findAt + 1} of ${matches.length}: ${e.name}`;
}
/** After the drawing changes, the ring follows the text (the found node may have gone). */
function findAgain(): void {
  if (!el.findInput.value.trim()) return;
  const found = Number(el.graph.dataset.found);
  const matches = findMatches(el.findInput.value);
  const i = matches.findIndex((e) => e.id === found);
  if (i >= 0) { findAt = i; el.findStatus.textContent = `${i + 1} of ${matches.length}: ${matches[i]!.name}`; return; }
  view.reveal(null);
  el.findStatus.textContent = matches.length ? `${matches.length} drawn; Enter finds` : 'no drawn node matches';
}
el.findInput.addEventListener('input', () => { findAt = 0; find(0); });
el.findInput.addEventListener('keydown', (ev) => {
  if (ev.key !== 'Enter') return;
  ev.preventDefault();
  find(el.graph.dataset.found ? (ev.shiftKey ? -1 : 1) : 0);
});

/** "Show N hidden" while `hide` has taken nodes off the drawing. */
function renderHidden(state: GraphState): void {
  el.showHidden.hidden = state.hidden.length === 0;
  el.showHidden.textContent = `Show ${plural(state.hidden.length, 'hidden node')}`;
}
el.showHidden.addEventListener('click', () => { view.showHidden(); el.graph.querySelector<HTMLElement>('.amv-canvas')?.focus(); });

function bounds() {
  const limit = Math.min(100, Math.max(1, Number.parseInt(el.limit.value, 10) || 20));
  el.limit.value = String(limit);
  return { max_hops: Number(el.hops.value), limit };
}

function renderCut(state: GraphState): void {
  const parts: string[] = [];
  const { cut } = state;
  const last = state.last;
  if (state.missing) {
    parts.push(`No entity is named or aliased “${state.missing}”.`);
  } else if (last) {
    if (cut.entities_omitted) parts.push(`limit ${last.limit} cut ${plural(cut.entities_omitted, 'more entity', 'more entities')}`);
    if (cut.omitted.includes('max_hops')) parts.push(`more lies beyond max_hops ${last.max_hops}`);
    if (cut.mentions_omitted.length) {
      const total = cut.mentions_omitted.reduce((a, m) => a + m.count, 0);
      const top = [...cut.mentions_omitted].sort((a, b) => b.count - a.count).slice(0, 3).map((m) => `${m.name} +${m.count}`).join(', ');
      parts.push(`mention lists stop at ${last.limit} refs: ${plural(total, 'ref')} of ${plural(cut.mentions_omitted.length, 'entity', 'entities')} not listed (${top}${cut.mentions_omitted.length > 3 ? ', …' : ''})`);
    }
    const dated = filterBar.graphCut(state);
    if (dated) parts.push(dated);
  }
  el.cut.dataset.entitiesOmitted = String(cut.entities_omitted);
  el.cut.dataset.omitted = cut.omitted.join(' ');
  el.cut.dataset.mentionsOmitted = String(cut.mentions_omitted.reduce((a, m) => a + m.count, 0));
  el.cut.textContent = parts.length ? (state.missing ? parts[0]! : `What was cut: ${parts.join('; ')}.`) : '';
  el.cut.hidden = parts.length === 0;
}

async function traverse(): Promise<void> {
  const entity = el.input.value.trim();
  if (!agent || !entity) return;
  showError('');
  try {
    const state = await view.show(entity, bounds());
    if (state.missing) {
      // Nothing is drawn: the panel must not go on offering the previous entity's curation.
      view.select(null);
    } else {
      const start = state.entities.find((e) => e.ring === 0);
      quietSelect = true;
      try {
        if (start) view.select({ entity: start.id });
      } finally {
        quietSelect = false;
      }
    }
  } catch (err) {
    showError(describeError(err));
  }
}

// ---------------------------------------------------------------- suggestions

let suggestTimer: ReturnType<typeof setTimeout> | undefined;
let suggestSeq = 0;
async function suggest(query: string, into: HTMLElement = el.suggestions): Promise<void> {
  if (!agent) return;
  const seq = ++suggestSeq;
  const res = await agent.listEntities({ query: query || undefined, limit: 15, ...scopeOf(filterBar.current()) });
  if (seq !== suggestSeq) return;
  const seen = new Set<string>();
  const options: HTMLOptionElement[] = [];
  for (const e of res.entities) {
    for (const label of [e.name, ...e.aliases]) {
      if (seen.has(label)) continue;
      seen.add(label);
      const o = h('option', { value: label });
      if (label !== e.name) o.label = `${label} → ${e.name}`;
      options.push(o);
    }
  }
  into.replaceChildren(...options);
  into.dataset.count = String(options.length);
}

el.input.addEventListener('input', () => {
  clearTimeout(suggestTimer);
  suggestTimer = setTimeout(() => void suggest(el.input.value.trim()).catch((e) => showError(describeError(e))), 120);
});

// ---------------------------------------------------------------- the side panel

async function contents(refs: string[]) {
  const items = new Map<string, { ref: string; content: string; source: Source; timestamp: string }>();
  for (let i = 0; i < refs.length; i += 20) {
    const res = await agent!.getContents({ refs: refs.slice(i, i + 20) });
    for (const it of res.items) items.set(it.ref, it);
  }
  return items;
}

function recordItem(ref: string, it: { content: string; source: Source; timestamp: string } | undefined, walked?: string) {
  return h('li', { dataset: { testid: 'record', ref }, class: walked ? 'walked' : '' },
    h('div', { class: 'meta' },
      links.ref(ref),
      it ? h('time', { datetime: it.timestamp, dataset: { testid: 'record-time' } }, shortTime(it.timestamp)) : null,
      it ? h('span', { dataset: { testid: 'record-source' } }, sourceText(it.source)) : null,
      walked ? h('span', {}, walked) : null),
    h('p', { dataset: { testid: 'record-text' } }, it ? it.content : `${ref} is not readable (deleted?)`));
}

let panelSeq = 0;
async function renderPanel(notice?: string): Promise<void> {
  const seq = ++panelSeq;
  const s = selection;
  // On a phone with the sheet closed, the message shows over the graph instead.
  const note = sheet.place(notice ? h('p', { class: 'notice', dataset: { testid: 'notice' } }, notice) : null);
  if (!s) {
    el.panel.dataset.kind = '';
    el.panel.replaceChildren(...[note, h('p', { class: 'muted' }, 'Click a node to read the records that mention it (double-click, or Expand, draws its neighbours); click an edge for who declared it.')].filter(Boolean) as Node[]);
    return;
  }
  if (s.kind === 'entity') {
    const e = s.entity;
    const items = await contents(e.mentions ?? []).catch(() => new Map());
    if (seq !== panelSeq) return;
    // The filter bar's dates hide the records dated outside them.
    const listed = e.mentions ?? [];
    const refs = listed.filter((r) => !items.has(r) || inRange(filterBar.current(), items.get(r).timestamp));
    el.panel.dataset.kind = 'entity';
    el.panel.dataset.entity = String(e.id);
    el.panel.dataset.name = e.name;
    el.panel.replaceChildren(...[
      note,
      h('h2', { dataset: { testid: 'panel-title' } }, e.name),
      h('p', { class: 'aliases', dataset: { testid: 'panel-aliases' } }, ...(e.aliases?.length ? e.aliases.map((a) => h('span', { class: 'chip' }, a)) : [h('span', { class: 'muted' }, 'no aliases')])),
      h('p', { class: 'muted' }, `${plural(e.ring, 'hop')} from the start · ${plural(e.mention_count, 'mention')}${e.expanded ? ' · expanded' : ''}`),
      graphActions(e),
      curateEntity(e),
      h('h3', {}, `Mentioned in (${refs.length}${e.mentions_omitted ? ` of ${e.mention_count}` : ''})`),
      h('ul', { class: 'records', dataset: { testid: 'records' } }, ...refs.map((r) => recordItem(r, items.get(r)))),
      e.mentions_omitted ? h('p', { class: 'muted', dataset: { testid: 'records-omitted' } }, `${e.mentions_omitted} more not listed (limit ${bounds().limit}).`) : null,
      refs.length < listed.length ? h('p', { class: 'muted', dataset: { testid: 'records-dated-out' } }, `${plural(listed.length - refs.length, 'record')} dated outside the filter's dates hidden${refs.length ? '' : ' — widen the dates'}.`) : null,
      agent ? timelineSection(agent, e.name, scopeOf(filterBar.current())) : null,
    ].filter(Boolean) as Node[]);
  } else {
    const { relation: r, subject, object } = s;
    const anchor = r.anchor_ref ? (await contents([r.anchor_ref]).catch(() => new Map())).get(r.anchor_ref) : undefined;
    if (seq !== panelSeq) return;
    el.panel.dataset.kind = 'relation';
    el.panel.dataset.relation = String(r.id);
    el.panel.replaceChildren(...[
      note,
      h('h2', { dataset: { testid: 'panel-title' } }, `${subject.name} —${r.predicate}→ ${object.name}`),
      h('dl', { class: 'facts', dataset: { testid: 'edge-facts' } },
        h('dt', {}, 'predicate'), h('dd', { dataset: { testid: 'edge-predicate' } }, r.predicate),
        h('dt', {}, 'declared by'), h('dd', { dataset: { testid: 'edge-declared-by' } }, r.declared_by),
        h('dt', {}, 'declared at'), h('dd', { dataset: { testid: 'edge-declared-at' } }, h('time', { datetime: r.declared_at }, shortTime(r.declared_at))),
        h('dt', {}, 'anchor'), h('dd', { dataset: { testid: 'edge-anchor' } }, r.anchor_ref ? links.ref(r.anchor_ref) : 'none'),
        ...timeFacts(r)),
      r.anchor_ref ? h('h3', {}, 'Anchor record') : null,
      r.anchor_ref ? h('ul', { class: 'records' }, recordItem(r.anchor_ref, anchor)) : null,
      isClosed(r) ? null : invalidateForm((reason, at, fail) => invalidate(r.id, `${subject.name} —${r.predicate}→ ${object.name}`, reason, at, fail)),
      curateRow(h('button', { type: 'button', class: 'danger', dataset: { testid: 'retract-btn' } }, 'Retract relation…'), 'retract-error',
        (fail) => retract(r.id, `${subject.name} —${r.predicate}→ ${object.name}`, fail)),
    ].filter(Boolean) as Node[]);
  }
}

/**
 * What the graph does with the selected entity. A click only selects (the view's
 * `expandOnSelect` is off), so growing the drawing is this button's choice, or a
 * double-click on the node, or Enter on it in the list.
 */
function graphActions(e: ViewEntity): HTMLElement {
  const expand = h('button', { type: 'button', dataset: { testid: 'expand-btn' }, disabled: e.expanded, title: e.expanded ? 'Its neighbours are drawn' : 'Draw its one-hop neighbours' },
    e.expanded ? 'Expanded' : 'Expand');
  expand.addEventListener('click', () => void view.expand(e.id).then(() => {
    const now = view.state().entities.find((x) => x.id === e.id);
    if (now) view.select({ entity: now.id });
  }).catch((err) => showError(describeError(err))));
  const collapse = h('button', { type: 'button', dataset: { testid: 'collapse-btn' }, disabled: !e.expanded, title: 'Remove the nodes only its expansion brought in' }, 'Collapse');
  collapse.addEventListener('click', () => void view.collapse(e.id).then(() => {
    if (view.state().entities.some((x) => x.id === e.id)) view.select({ entity: e.id });
  }).catch((err) => showError(describeError(err))));
  const hide = h('button', { type: 'button', dataset: { testid: 'hide-btn' }, title: 'Take this node off the drawing (Show hidden brings it back)' }, 'Hide');
  hide.addEventListener('click', () => { view.hide(e.id); el.showHidden.focus(); });
  return h('div', { class: 'curate graph-actions', role: 'group', 'aria-label': `Graph actions for ${e.name}` }, expand, collapse, hide);
}

function curateEntity(e: ViewEntity): HTMLElement {
  const alias = h('input', { 'aria-label': 'New alias', placeholder: 'new alias', dataset: { testid: 'alias-input' } });
  const predicate = h('input', { 'aria-label': 'Predicate', placeholder: 'predicate', dataset: { testid: 'predicate-input' } });
  const objectList = h('datalist', { id: 'object-suggestions' });
  const object = h('input', { 'aria-label': 'Object entity', placeholder: 'object entity', list: 'object-suggestions', dataset: { testid: 'object-input' } });
  object.setAttribute('list', 'object-suggestions');
  object.addEventListener('input', () => void suggest(object.value.trim(), objectList));
  const anchor = h('select', { 'aria-label': 'Anchor record (optional)', dataset: { testid: 'anchor-select' } },
    h('option', { value: '' }, 'no anchor'), ...(e.mentions ?? []).map((r) => h('option', { value: r }, `anchor ${r}`)));
  const aliasError = fieldError('alias-error');
  const aliasForm = h('form', { class: 'curate', dataset: { testid: 'alias-form' }, onsubmit: (ev: Event) => { ev.preventDefault(); void addAlias(e, alias.value.trim(), failer(aliasError, alias)); } },
    alias, h('button', { type: 'submit', dataset: { testid: 'alias-btn' } }, 'Add alias'));
  const relError = fieldError('relation-error');
  const relForm = h('form', { class: 'curate', dataset: { testid: 'relation-form' }, onsubmit: (ev: Event) => { ev.preventDefault(); void declare(e, predicate.value.trim(), object.value.trim(), anchor.value, failer(relError, predicate)); } },
    h('span', { class: 'muted' }, `${e.name} →`), predicate, object, anchor, objectList, h('button', { type: 'submit', dataset: { testid: 'declare-btn' } }, 'Declare relation'));
  return h('div', {},
    h('h3', {}, 'Curate (as operator)'), aliasForm, aliasError, relForm, relError,
    curateRow(h('button', { type: 'button', class: 'danger', dataset: { testid: 'delete-btn' } }, 'Delete entity…'), 'delete-error', (fail) => removeEntity(e, fail)));
}

/** What a curation step calls when it fails: shows the error beside the field it concerns. */
type Fail = (err: unknown) => void;

/** The error line under one curation form: empty and hidden until that step fails. */
const fieldError = (testid: string) => h('p', { class: 'error', role: 'alert', dataset: { testid }, hidden: true });

/**
 * Shows an error in `line` and marks `field` invalid (a screen reader reads the line with
 * it). The panel is drawn again after every success, so a later success clears it.
 */
function failer(line: HTMLElement, field?: HTMLElement): Fail {
  return (err) => {
    line.textContent = describeError(err);
    line.hidden = false;
    if (field) {
      field.setAttribute('aria-invalid', 'true');
      field.setAttribute('aria-describedby', line.id || (line.id = `err-${line.dataset.testid}`));
    }
  };
}

/** A destructive button with its own error line under it. */
function curateRow(button: HTMLButtonElement, testid: string, run: (fail: Fail) => Promise<void>): HTMLElement {
  const line = fieldError(testid);
  button.addEventListener('click', () => void run(failer(line)));
  return h('div', {}, h('div', { class: 'curate' }, button), line);
}

/**
 * Asks before a destructive step; resolves true to go on. The safe choice, Cancel, has the
 * focus, so Enter or Space pressed without reading does not destroy anything. With
 * `exportFirst`, an "Export first" button in the same dialog downloads the database and
 * leaves the question open.
 */
function confirmStep(text: string, action: string, { exportFirst = false } = {}): Promise<boolean> {
  el.confirmText.textContent = text;
  $('confirm-ok').textContent = action;
  const exportBtn = $<HTMLButtonElement>('confirm-export');
  exportBtn.hidden = !exportFirst;
  exportBtn.onclick = exportFirst ? () => void exportDb() : null;
  el.confirm.returnValue = '';
  el.confirm.showModal();
  $<HTMLButtonElement>('confirm-cancel').focus();
  return new Promise((resolve) => el.confirm.addEventListener('close', () => resolve(el.confirm.returnValue === 'ok'), { once: true }));
}

/**
 * Asks for the key of an encrypted file: a passphrase, or a raw key as 64 hex digits (what
 * `associative-memory-mcp` takes too). Null when cancelled.
 */
function askKey(fileName: string): Promise<string | Uint8Array | null> {
  el.passphraseText.textContent = `${fileName} is encrypted (or is not a database). Its key:`;
  el.passphraseInput.value = '';
  el.passphrase.returnValue = '';
  el.passphrase.showModal();
  el.passphraseInput.focus();
  $<HTMLButtonElement>('passphrase-cancel').onclick = () => el.passphrase.close('cancel');
  return new Promise((resolve) => el.passphrase.addEventListener('close', () => {
    const text = el.passphraseInput.value;
    el.passphraseInput.value = '';
    resolve(el.passphrase.returnValue === 'ok' ? keyFromText(text) ?? null : null);
  }, { once: true }));
}

/** After every write: the graph, the panel and the header's count follow; old errors go. */
async function afterWrite(notice: string, reselect?: { entity: number } | null): Promise<void> {
  showError('');
  links.index.forget();
  markChanged();
  const state = await view.refresh();
  if (reselect === null) {
    selection = null;
    view.select(null);
  } else if (reselect && state.entities.some((x) => x.id === reselect.entity)) {
    view.select(reselect);
  }
  await renderPanel(notice);
  await refreshCount();
}

async function addAlias(e: ViewEntity, alias: string, fail: Fail): Promise<void> {
  if (!alias || !agent) return;
  try {
    const res = await undoHistory.step(`Added the alias “${alias}” to ${e.name}`, () => agent!.declareAssociations({ associations: { entities: [{ name: e.name, aliases: [alias] }] }, declared_by: 'operator' }));
    if (res.dropped.length) throw new Error(`dropped: ${res.dropped.map((d) => d.reason).join(', ')}`);
    await afterWrite(`Added the alias “${alias}” to ${e.name}.`, { entity: e.id });
  } catch (err) { fail(err); }
}

async function declare(e: ViewEntity, predicate: string, object: string, anchor: string, fail: Fail): Promise<void> {
  if (!predicate || !object || !agent) return;
  try {
    const res = await undoHistory.step(`Declared ${e.name} → ${predicate} → ${object}${anchor ? ` (anchor ${anchor})` : ''}`, () => agent!.declareAssociations({
      associations: { relations: [{ subject: e.name, predicate, object }] },
      ...(anchor ? { anchor_ref: anchor } : {}),
      declared_by: 'operator',
    }));
    if (res.dropped.length || !res.relations.length) throw new Error(`not declared: ${res.dropped.map((d) => `${d.item} (${d.reason})`).join(', ')}`);
    // The object may be outside the drawing: the subject's one-hop neighbourhood brings it in.
    if (!view.state().entities.find((x) => x.id === e.id)?.expanded) await view.expand(e.id);
    // A single-valued predicate that already held another object: both are kept, and the
    // operator is told which to invalidate (the engine resolves no conflict).
    const conflicts = (res.conflicts ?? []).map((c) => ` It may contradict ${c.subject} —${c.predicate}→ ${c.object} (relation ${c.conflicts_with}), which still holds: invalidate the one that no longer does.`);
    await afterWrite(`Declared ${e.name} —${predicate}→ ${object}${anchor ? ` (anchor ${anchor})` : ''}.${conflicts.join('')}`, { entity: e.id });
  } catch (err) { fail(err); }
}

async function retract(id: number, label: string, fail: Fail): Promise<void> {
  if (!agent || !(await confirmStep(`Retract the relation ${label}? The relation is removed; the records stay.`, 'Retract'))) return;
  try {
    await undoHistory.step(`Retracted ${label}`, () => agent!.declareAssociations({ retract: { relations: [id] }, declared_by: 'operator' }));
    await afterWrite(`Retracted ${label}.`, null);
  } catch (err) { fail(err); }
}

/** Closes a relation with a reason (time.ts): kept as history, so the graph at an earlier instant still shows it. */
async function invalidate(id: number, label: string, reason: string, at: string | undefined, fail: Fail): Promise<void> {
  if (!agent) return;
  try {
    await undoHistory.step(`Invalidated ${label}: ${reason}`, () => invalidateRelation(agent!, id, reason, at));
    // At now the closed relation leaves the graph; at all time (or before it ended) it stays, selected.
    const still = view.state().as_of !== undefined;
    const notice = `Invalidated ${label}: ${reason}. It is kept as history${still ? '' : ' (choose “All time” in “Graph as of” to see it)'}.`;
    await afterWrite(notice, still ? undefined : null);
    if (still && view.state().relations.some((x) => x.id === id)) {
      view.select({ relation: id });
      await renderPanel(notice);
    }
  } catch (err) { fail(err); }
}

async function removeEntity(e: ViewEntity, fail: Fail): Promise<void> {
  if (!agent || !(await confirmStep(`Delete the entity “${e.name}” with its aliases, mentions and relations? The records that mention it stay.`, 'Delete'))) return;
  try {
    await undoHistory.step(`Deleted entity ${e.name}`, () => agent!.deleteEntity({ entity_id: e.id }));
    await afterWrite(`Deleted ${e.name}.`, null);
  } catch (err) { fail(err); }
}

// ---------------------------------------------------------------- the memories view

const memoriesView = mountMemories(el.memories, {
  agent: () => agent, confirm: confirmStep, changed: (notice) => afterWrite(notice), filters: () => filterBar.current(), links,
  write: (label, run) => undoHistory.step(label, run),
});

// ---------------------------------------------------------------- undo and history (history.ts)

const undoHistory = mountHistory(el.history, {
  memory: () => memory,
  agentId: () => agent?.agentId ?? '',
  confirm: confirmStep,
  restored: async (notice) => {
    const kept = selection?.kind === 'entity' ? selection.entity.id : null;
    // Selecting again what was selected must not raise the phone's sheet over the History tab.
    quietSelect = true;
    try {
      await afterWrite(notice, kept === null ? null : { entity: kept });
    } finally {
      quietSelect = false;
    }
    // The selected entity may be one the undone step made: then nothing stays selected.
    if (kept !== null && !view.state().entities.some((x) => x.id === kept)) view.select(null);
    if (!el.memories.hidden) await memoriesView.refresh();
  },
  counted: (steps) => { el.tabHistory.textContent = steps ? `History (${steps})` : 'History'; },
});

/** Ctrl/Cmd+Z undoes the newest step, unless a text field (which has its own undo) or a dialog has the focus. */
window.addEventListener('keydown', (ev) => {
  if (ev.key.toLowerCase() !== 'z' || !(ev.ctrlKey || ev.metaKey) || ev.shiftKey || ev.altKey) return;
  const t = ev.target as HTMLElement | null;
  if (t?.closest('input, textarea, select, [contenteditable], dialog')) return;
  ev.preventDefault();
  void undoHistory.undo();
});

const TABS = [
  { name: 'graph', tab: el.tabGraph, panel: el.graphView },
  { name: 'memories', tab: el.tabMemories, panel: el.memories },
  { name: 'history', tab: el.tabHistory, panel: el.history },
] as const;

function showTab(tab: 'graph' | 'memories' | 'history'): void {
  if (tab !== 'graph') openSheet(false); // on a phone the graph's details would cover the list
  for (const t of TABS) {
    const on = t.name === tab;
    t.panel.hidden = !on;
    t.tab.setAttribute('aria-selected', String(on));
    // One tab stop for the tab list; the arrow keys move between its tabs.
    t.tab.tabIndex = on ? 0 : -1;
  }
  if (tab === 'memories') void memoriesView.refresh();
}

for (const t of TABS) t.tab.addEventListener('click', () => showTab(t.name));
el.tabGraph.parentElement!.addEventListener('keydown', (ev) => {
  if (ev.key !== 'ArrowLeft' && ev.key !== 'ArrowRight') return;
  const at = TABS.findIndex((t) => !t.panel.hidden);
  const step = ev.key === 'ArrowRight' ? 1 : -1;
  for (let k = 1; k < TABS.length; k++) {
    const next = TABS[(at + step * k + TABS.length) % TABS.length]!;
    if (next.tab.disabled) continue;
    showTab(next.name);
    next.tab.focus();
    return;
  }
});

// ---------------------------------------------------------------- reconstruct

let answer: { query: string; res: ReconstructResponse; cues: string[]; picked: number } | null = null;

async function reconstruct(): Promise<void> {
  const query = el.ask.value.trim();
  if (!agent || !query) return;
  showError('');
  try {
    const { max_hops } = bounds();
    const res = await agent.reconstruct({ query, max_hops, trace: true, ...scopeOf(filterBar.current()), ...asOf() });
    const cues = res.trace?.cues.entities ?? [];
    answer = { query, res, cues, picked: -1 };
    // Draw the neighbourhood of the entity the query named, where the walk started.
    const drawnStart = view.state().entities.find((e) => e.ring === 0);
    if (cues[0] && drawnStart?.name !== cues[0]) {
      el.input.value = cues[0];
      await view.show(cues[0], bounds());
    }
    const first = res.items.findIndex((i) => i.claims.some((c) => c.hops !== undefined));
    renderAnswers();
    if (res.items.length) await pick(first >= 0 ? first : 0);
  } catch (err) { showError(describeError(err)); }
}

/** Lights the records of one item on the graph: its seeds, and what the walk reached with the path. */
async function pick(index: number): Promise<void> {
  if (!answer) return;
  const item = answer.res.items[index];
  // Only the claims listed (those the dates keep) are lit.
  const { shown, hidden } = datedClaims(filterBar.current(), item.claims);
  const marks: RecordMark[] = shown;
  let lit = view.highlight(marks);
  // Nothing of it is on the graph: draw the neighbourhood of the entity the query named.
  if (lit.nodes === 0 && marks.length && answer.cues.length) {
    el.input.value = answer.cues[0]!;
    await view.show(answer.cues[0]!, bounds());
    lit = view.highlight(marks);
  }
  answer.picked = index;
  const walked = marks.filter((c) => c.hops !== undefined).length;
  el.answers.dataset.picked = String(index);
  el.answers.dataset.lit = String(lit.nodes);
  for (const b of el.answers.querySelectorAll<HTMLButtonElement>('button.pick')) b.setAttribute('aria-pressed', String(b.dataset.index === String(index)));
  const summary = el.answers.querySelector('[data-testid="answers-lit"]');
  if (summary) summary.textContent = `On the graph, item ${index + 1}: ${plural(walked, 'record')} reached by the walk; ${plural(lit.nodes, 'entity', 'entities')} and ${plural(lit.edges, 'relation')} lit (orange: reached by a relation, pink: found directly)${hidden ? `; the dates hid ${plural(hidden, 'claim')} of it` : ''}.`;
}

function renderAnswers(): void {
  if (!answer) return;
  const { res, query } = answer;
  const { shown, hidden } = datedClaims(filterBar.current(), res.items.flatMap((i) => i.claims));
  const walked = shown.filter((c) => c.hops !== undefined).length;
  el.answers.hidden = false;
  openSheet(true);
  el.answers.dataset.items = String(res.items.length);
  el.answers.dataset.walked = String(walked);
  el.answers.dataset.datedOut = String(hidden);
  el.answers.replaceChildren(
    h('h2', {}, `Reconstruct: “${query}”`),
    h('p', { class: 'muted', dataset: { testid: 'answers-summary' } },
      `${plural(res.items.length, 'item')}; ${plural(walked, 'record')} reached by the relation walk${hidden ? `; the dates hid ${plural(hidden, 'claim')} (not listed, not lit)` : ''}.${res.shortfall_reason ? ` Shortfall: ${res.shortfall_reason}.` : ''}`),
    h('p', { class: 'notice', dataset: { testid: 'answers-lit' } }),
    ...res.items.map((item, index) => h('div', { class: 'item', dataset: { testid: 'answer-item', head: item.head_ref } },
      h('button', { type: 'button', class: 'pick', dataset: { index: String(index), testid: 'answer-pick' }, 'aria-pressed': 'false', onclick: () => void pick(index) },
        `${index + 1}. ${item.head_ref} · show on graph`),
      h('p', { class: 'content' }, item.content.length > 280 ? `${item.content.slice(0, 280)}…` : item.content),
      claimList(item))),
  );
  el.askClear.hidden = false;
  el.answers.scrollIntoView({ block: 'start', behavior: 'instant' as ScrollBehavior });
}

/** An item's claims with their text (and those the filter's dates hide, counted). */
function claimList(item: ReconstructResponse['items'][number]): HTMLElement {
  const { shown, hidden } = datedClaims(filterBar.current(), item.claims);
  const texts = shown.map(() => h('p', { class: 'claim-text', dataset: { testid: 'claim-text' } }));
  void links.claimTexts(item).then((t) => shown.forEach((c, i) => {
    const text = t.get(c.ref);
    texts[i]!.textContent = text === undefined ? `${c.ref} is not readable (deleted?)` : text.length > 240 ? `${text.slice(0, 240)}…` : text;
  })).catch((err) => { for (const p of texts) p.textContent = describeError(err); });
  return h('div', {},
    h('ul', { class: 'claims' }, ...shown.map((c, i) => h('li', { class: c.hops !== undefined ? 'walked' : '', dataset: { testid: 'claim', ref: c.ref, why: c.why ?? 'seed', hops: c.hops ?? '', path: (c.path ?? []).join(' '), via: c.via_entity ?? '' } },
      links.ref(c.ref), h('span', {}, shortTime(c.as_of)),
      h('span', {}, c.hops !== undefined ? `${c.why!.slice('relation:'.length)} · ${plural(c.hops, 'hop')}` : (c.why ?? 'seed')),
      texts[i]!))),
    hidden ? h('p', { class: 'muted', dataset: { testid: 'claims-dated-out' } }, `${plural(hidden, 'claim')} dated outside the filter's dates hidden.`) : null);
}

el.askForm.addEventListener('submit', (ev) => { ev.preventDefault(); void reconstruct(); });
el.askClear.addEventListener('click', () => { view.clearHighlight(); answer = null; el.answers.hidden = true; el.askClear.hidden = true; });

// ---------------------------------------------------------------- sources

/** What the header says after the count: how the memory was loaded or imported. */
let statusExtra = '';

/** The header's entity count, in its text as in `data-entities`: after every write too. */
async function refreshCount(): Promise<number> {
  const res = await agent!.listEntities({ limit: 1 });
  el.status.dataset.entities = String(res.total);
  if (el.status.dataset.state === 'ready') el.status.textContent = statusLine(res.total);
  return res.total;
}

const statusLine = (total: number) => `${sourceLabel}: ${plural(total, 'entity', 'entities')} for agent ${agent!.agentId}${statusExtra}`;

/**
 * True while an in-page memory (the demo, or an imported file: storage 'memory') holds
 * changes not exported since it was opened: leaving the page then asks first.
 */
let unsaved = false;
function markChanged(): void {
  if (memory?.storage === 'memory') unsaved = true;
  el.status.dataset.unsaved = String(unsaved);
}
window.addEventListener('beforeunload', (ev) => {
  if (!unsaved) return;
  ev.preventDefault();
  ev.returnValue = ''; // what older Chromium needs to ask
});

async function adopt(next: AssociativeMemory, label: string, extra = ''): Promise<void> {
  const previous = memory;
  memory = next;
  agent = next.agent(el.agent.value.trim() || 'team-bot');
  sourceLabel = label;
  if (previous !== next) { unsaved = false; el.status.dataset.unsaved = 'false'; undoHistory.reset(label); }
  keyBadge.show(next);
  links.index.forget();
  if (previous && previous !== next) await previous.close().catch(() => undefined);
  selection = null;
  el.answers.hidden = true;
  el.askClear.hidden = true;
  await renderPanel();
  statusExtra = extra;
  const total = await refreshCount();
  await timeBar.measure(agent, scopeOf(filterBar.current()));
  enable(true);
  setStatus('ready', statusLine(total), { source: label.split(' ')[0]!.toLowerCase(), entities: total });
  await showAgents();
  await suggest('');
  if (!el.memories.hidden) await memoriesView.refresh();
  if (total > 0) {
    if (!el.input.value) el.input.value = label === 'demo corpus' ? '台帳サービス' : await busiest();
    await traverse();
  } else {
    view.clear();
  }
}

/**
 * Fills the agent field's list with every agent of the open memory and its counts, and when
 * the agent typed holds nothing, says so and names the agents that do, each a click away
 * (a typo or a database written for another agent otherwise shows an empty graph), or, for
 * an empty memory, what to do.
 */
async function showAgents(): Promise<void> {
  if (!memory || !agent) return;
  const agents = [];
  for (let offset: number | undefined = 0; offset !== undefined;) {
    const page = await memory.listAgents({ offset, limit: 1000 });
    agents.push(...page.agents);
    offset = page.next_offset;
  }
  const counts = (a: { memories: number; entities: number }) => `${plural(a.memories, 'memory', 'memories')}, ${plural(a.entities, 'entity', 'entities')}`;
  el.agentList.replaceChildren(...agents.map((a) => h('option', { value: a.agent_id, label: counts(a) })));
  el.status.dataset.agents = String(agents.length);
  const mine = agents.find((a) => a.agent_id === agent!.agentId);
  const holding = agents.filter((a) => a.memories + a.entities + a.episodes > 0);
  if (mine && mine.memories + mine.entities + mine.episodes > 0) {
    el.agentHint.hidden = true;
    el.agentHint.replaceChildren();
    delete el.agentHint.dataset.key;
    return;
  }
  el.agentHint.hidden = false;
  // The same hint is left as it is: the field's native change on blur (when one clicks a
  // name in the hint right after typing) must not replace the button under the click.
  const key = JSON.stringify([agent.agentId, holding]);
  if (el.agentHint.dataset.key === key) return;
  el.agentHint.dataset.key = key;
  if (holding.length === 0) {
    el.agentHint.replaceChildren(`This memory is empty. Import a file (Import…, or drop a database, JSONL export or JSON file of memories on the page), or switch the source to the demo corpus.`);
    return;
  }
  el.agentHint.replaceChildren(`No memories for agent '${agent.agentId}'. This memory holds: `,
    ...holding.flatMap((a, i) => [i ? ', ' : '', h('button', {
      type: 'button', class: 'link', dataset: { testid: 'agent-switch', agent: a.agent_id },
      title: `Show agent ${a.agent_id}`, onclick: () => { el.agent.value = a.agent_id; el.input.value = ''; if (memory) void adopt(memory, sourceLabel, statusExtra); },
    }, a.agent_id), ` (${counts(a)})`]), '.');
}

/** A place to start in a memory one has not seen: the most connected of its first entities. */
async function busiest(): Promise<string> {
  const { entities } = await agent!.listEntities({ limit: 500 });
  let best = entities[0];
  for (const e of entities) if (best && e.relations + e.mentions > best.relations + best.mentions) best = e;
  return best?.name ?? '';
}

async function fill(target: AssociativeMemory): Promise<number> {
  const a = target.agent((corpus as any).agent_id ?? 'team-bot');
  // The relations that ended in the story, each closed when the clock reaches it (time.ts).
  const ended = [...((corpus as any).ended ?? []) as CorpusEnd[]];
  const endUntil = async (t: number) => {
    while (ended.length && Date.parse(ended[0]!.closed) <= t) {
      const end = ended.shift()!;
      storyNow = Date.parse(end.closed);
      await endCorpusRelation(a, end);
    }
  };
  let stored = 0;
  for (const m of (corpus as any).memories as CorpusMemory[]) {
    if (m.timestamp) await endUntil(Date.parse(m.timestamp) - 1);
    if (m.timestamp) storyNow = Date.parse(m.timestamp);
    await a.store({ content: m.content, timestamp: m.timestamp, source: m.source, metadata: m.metadata, associations: m.associations });
    stored += 1;
  }
  await endUntil(Infinity);
  storyNow = null;
  return stored;
}

async function loadDemo(): Promise<void> {
  setStatus('loading', 'Loading the demo corpus…');
  enable(false);
  const started = performance.now();
  const next = await openMemory({ clock });
  const stored = await fill(next);
  el.agent.value = (corpus as any).agent_id ?? 'team-bot';
  el.input.value = '';
  await adopt(next, 'demo corpus', ` · ${plural(stored, 'memory', 'memories')} loaded in ${Math.round(performance.now() - started)} ms`);
  el.status.dataset.memories = String(stored);
}

// ---------------------------------------------------------------- imports

/**
 * The formats a file dropped or picked can be in, tried in order: the first whose `accepts`
 * says yes imports it. Another format is one more entry here.
 */
const IMPORTERS: { name: string; accepts(file: File, head: string): boolean; run(file: File): Promise<void> }[] = [
  { name: 'reference JSONL export', accepts: (_file, head) => /^\s*\{\s*"_type"\s*:\s*"header"/.test(head), run: importExportJsonl },
  { name: 'MCP memory graph', accepts: (file, head) => file.name.endsWith('.jsonl') || /^\s*\{\s*"type"\s*:\s*"(entity|relation)"/.test(head), run: importMcpGraph },
  { name: 'JSON memories', accepts: (file, head) => file.name.endsWith('.json') || /^\s*[[{]/.test(head), run: importMemoriesJson },
  { name: 'database file', accepts: () => true, run: importDatabase },
];

async function importFile(file: File): Promise<void> {
  const start = new Uint8Array(await file.slice(0, 64).arrayBuffer());
  // Bytes that are not UTF-8 (an encrypted export: random from its first byte) are a
  // database file, whatever a text sniffer would make of them.
  let head: string | null;
  try {
    head = new TextDecoder('utf-8', { fatal: true }).decode(start, { stream: true });
  } catch {
    head = null;
  }
  if (head === null) return importDatabase(file);
  await IMPORTERS.find((i) => i.accepts(file, head))!.run(file);
}

/** What an encrypted export looks like: whole pages, and no SQLite header in the clear. */
function looksEncrypted(bytes: Uint8Array): boolean {
  const header = 'SQLite format 3\0';
  return bytes.length >= 512 && bytes.length % 512 === 0 && ![...header].every((c, i) => bytes[i] === c.charCodeAt(0));
}

/**
 * Asks before `file` replaces the open memory, naming what goes (this agent's entities and
 * memories), with "Export first" in the same dialog. True to go on, or when nothing is open.
 */
async function confirmReplace(file: File): Promise<boolean> {
  if (!memory || !agent) return true;
  const [entities, memories] = await Promise.all([agent.listEntities({ limit: 1 }), agent.listMemories({ limit: 1 })]);
  const what = memory.storage === 'opfs' ? `the OPFS memory “${memory.name}”` : `the ${sourceLabel}`;
  const undo = memory.storage === 'opfs' ? 'History can undo it while this page stays open.' : 'This cannot be undone.';
  return confirmStep(`Importing ${file.name} replaces the ${plural(entities.total, 'entity', 'entities')} and ${plural(memories.total, 'memory', 'memories')} of ${what} (agent ${agent.agentId}, and any other agent's in it). ${undo}`,
    'Replace', { exportFirst: true });
}

async function importDatabase(file: File): Promise<void> {
  if (!(await confirmReplace(file))) {
    el.status.dataset.replaceCancelled = file.name;
    return;
  }
  setStatus('loading', `Importing ${file.name}…`);
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    // An encrypted export opens with its key, into a memory that keeps it: Export gives
    // encrypted bytes again. (An OPFS memory keeps its own key, or none.)
    const key = looksEncrypted(bytes) ? await askKey(file.name) : undefined;
    if (key === null) {
      setStatus('ready', `Not imported: ${file.name} needs its key`);
      return;
    }
    const next = memory?.storage === 'opfs' ? memory : await openKeyed({ clock, key });
    try {
      // Into the open OPFS memory, a step that can be undone; an in-page memory is replaced
      // by a new one (keeping the file's key), a new source with a history of its own.
      if (next === memory) await undoHistory.step(`Replaced the memory with ${file.name}`, () => next.import(bytes, { key }));
      else await next.import(bytes, { key });
    } catch (err) {
      if (next !== memory) await next.close();
      throw err;
    }
    el.input.value = '';
    await adopt(next, memory?.storage === 'opfs' ? `OPFS memory ${next.name}` : `file ${file.name}`, ` · ${(bytes.length / 1024).toFixed(0)} KiB imported`);
    el.status.dataset.imported = file.name;
    el.source.value = memory?.storage === 'opfs' ? 'opfs' : 'file';
  } catch (err) {
    setStatus('error', `Could not import ${file.name}: ${describeError(err)}`);
  }
}

/**
 * The import progress bar at `done` of `total` memories stored. With `checked`, the import
 * checks every item first (`importMemoriesJson`): the bar covers both passes, and
 * `data-checked` says how far the check got.
 */
function showProgress(done: number, total: number, checked?: number): void {
  el.progress.hidden = false;
  const n = (x: number) => x.toLocaleString('en');
  const unit = total === 1 ? 'memory' : 'memories';
  el.progressBar.max = checked === undefined ? total : 2 * total;
  el.progressBar.value = checked === undefined ? done : checked + done;
  el.progressText.textContent = checked === undefined || checked === total && done > 0
    ? `${checked === undefined ? '' : 'stored '}${n(done)} of ${n(total)} ${unit}`
    : `checked ${n(checked)} of ${n(total)} ${unit}`;
  el.progress.dataset.done = String(done);
  if (checked !== undefined) el.progress.dataset.checked = String(checked);
}

/** The engine names an item within its batch (`items[3].content`): name it within the file. */
function inFile(err: unknown, start: number): unknown {
  const e = err as { field?: string };
  const at = e?.field?.match(/^items\[(\d+)\](.*)$/);
  if (at) {
    const whole = `items[${start + Number(at[1])}]${at[2]}`;
    if (err instanceof Error) err.message = err.message.split(e.field!).join(whole);
    e.field = whole;
  }
  return err;
}

/**
 * Checks every item of `items` with the engine's own rules before anything is stored:
 * each batch goes to `storeMany` followed by one item known to be malformed (`{}`, no
 * content). `storeMany` checks a batch whole before writing and stores all or none, so the
 * call always fails and writes nothing; when what it names is that last item, every real
 * item before it passed. (The package has no dry run for `storeMany`; this costs about a
 * fifth of storing.) Throws the first malformed item's error, named within the file.
 */
async function checkItems(target: AgentMemory, items: StoreItem[], size: number, progress: (checked: number) => void): Promise<void> {
  // One fewer than a batch may hold, to leave room for the sentinel.
  for (const { start, items: batch } of storeBatches(items, Math.min(size, CHECK_BATCH))) {
    let refused = false;
    try {
      await target.storeMany([...batch, {} as StoreItem]);
    } catch (err) {
      refused = true;
      const field = (err as { field?: string }).field;
      if (field !== `items[${batch.length}].content`) throw inFile(err, start);
    }
    // An engine that took `{}` would have stored the batch: stop before storing it twice.
    if (!refused) throw new Error('the engine stored an item without content: the check cannot run');
    progress(start + batch.length);
    await new Promise((painted) => { setTimeout(painted, 0); });
  }
}

/** Items per checking call at most: the engine's 10,000 less the sentinel. */
const CHECK_BATCH = 9_999;

/**
 * An `export_memories` file (ours, or the reference implementation's `cpersona-export/1.x`),
 * added to the open memory as the agent named at the top, in one transaction.
 */
async function importExportJsonl(file: File): Promise<void> {
  if (!memory) return;
  const agentId = el.agent.value.trim() || 'team-bot';
  setStatus('loading', `Importing the export ${file.name} into agent ${agentId}…`);
  try {
    const text = await file.text();
    const target = memory.agent(agentId);
    const already = await alreadyThere(target, text);
    if (already.found > 0) {
      const which = already.found < already.total ? `${already.found} of the ${already.total} memories of ${file.name}`
        : already.total === 1 ? `the memory of ${file.name}` : `all ${already.total} memories of ${file.name}`;
      setStatus('ready', `Not imported: ${which} ${already.found === 1 ? 'is' : 'are'} already in agent ${agentId}, with the same text and time; importing would store ${already.found === 1 ? 'it' : 'them'} twice. Nothing was stored.`);
      el.status.dataset.alreadyThere = String(already.found);
      return;
    }
    const r = await undoHistory.step(`Imported the export ${file.name} into agent ${agentId}`, () => target.importMemories(text), agentId);
    const dropped = r.dropped.length ? `, ${plural(r.dropped.length, 'line')} not kept` : '';
    el.input.value = '';
    markChanged();
    await adopt(memory, sourceLabel, ` · ${plural(r.memories, 'memory', 'memories')}, ${plural(r.episodes, 'episode')}, ${plural(r.entities, 'entity', 'entities')} and ${plural(r.relations, 'relation')} imported from ${file.name}${dropped}`);
    el.status.dataset.imported = file.name;
  } catch (err) {
    setStatus('error', `Could not import ${file.name}: ${describeError(err)} (nothing was stored)`);
  }
}

/**
 * How many of the memory lines of an `export_memories` file the agent already holds with
 * the same text and timestamp: re-importing an export into the memory it came from would
 * store every one of them again.
 */
async function alreadyThere(target: AgentMemory, jsonl: string): Promise<{ found: number; total: number }> {
  const key = (content: unknown, timestamp: unknown) => `${Date.parse(String(timestamp))}\u0000${String(content)}`;
  const incoming: string[] = [];
  for (const line of jsonl.split('\n')) {
    if (!line.includes('"_type":"memory"') && !/"_type"\s*:\s*"memory"/.test(line)) continue;
    try {
      const m = JSON.parse(line) as { _type?: string; content?: unknown; timestamp?: unknown };
      if (m._type === 'memory') incoming.push(key(m.content, m.timestamp));
    } catch { /* the import names a bad line itself */ }
  }
  if (!incoming.length) return { found: 0, total: 0 };
  const have = new Set<string>();
  let offset: number | undefined = 0;
  while (offset !== undefined) {
    const page: Awaited<ReturnType<AgentMemory['listMemories']>> = await target.listMemories({ limit: 500, offset });
    for (const m of page.memories) have.add(key(m.content, m.timestamp));
    offset = page.next_offset;
  }
  return { found: incoming.filter((k) => have.has(k)).length, total: incoming.length };
}

/**
 * The official MCP memory server's `memory.jsonl` (entities with observations, relations),
 * added to the open memory for the agent named at the top (`importMcpMemoryGraph`).
 */
async function importMcpGraph(file: File): Promise<void> {
  if (!memory) return;
  const agentId = el.agent.value.trim() || 'team-bot';
  setStatus('loading', `Importing the MCP memory graph ${file.name} into agent ${agentId}…`);
  try {
    const text = await file.text();
    const result = await undoHistory.step(`Imported the MCP memory graph ${file.name} into agent ${agentId}`,
      () => importMcpMemoryGraph(memory!, text, { agent_id: agentId, onProgress: ({ done, total }) => showProgress(done, total) }), agentId);
    el.input.value = '';
    const dropped = result.dropped.length ? `, ${plural(result.dropped.length, 'declaration')} dropped` : '';
    markChanged();
    await adopt(memory, sourceLabel, ` · ${plural(result.entities, 'entity', 'entities')}, ${plural(result.memories, 'memory', 'memories')} and ${plural(result.relations, 'relation')} imported from ${file.name}${dropped}`);
    el.status.dataset.imported = file.name;
  } catch (err) {
    setStatus('error', `Could not import ${file.name}: ${describeError(err)} (nothing was stored)`);
  } finally {
    el.progress.hidden = true;
  }
}

/**
 * Memories per `storeMany` call at most (`storeBatches` also keeps each within the engine's
 * characters of content). An OPFS memory runs in its worker, so the page paints its
 * progress as it goes: one transaction of up to the engine's limit. An in-memory one runs on
 * this thread, which cannot paint during a call: batches of 1,000 with a pause between them
 * let the bar move, as would a file memory's in Node (the explorer, a page, opens none). A
 * hosted memory (the explorer opens none yet) takes the engine's batches.
 */
const IMPORT_BATCH: Record<Storage, number> = { opfs: 10_000, memory: 1_000, file: 1_000, remote: 10_000, 'durable-object': 10_000 };

/**
 * A JSON file of memories — an array of store items, or an object holding one under `items`
 * or `memories` (as the demo corpus does), with an optional `agent_id` — added to the open
 * memory through `storeMany`, with a progress bar. All or nothing: every item is checked
 * first (`checkItems`), so a malformed one, named by its place in the file, stores nothing;
 * then the batches are stored, each one transaction.
 */
async function importMemoriesJson(file: File): Promise<void> {
  if (!memory) return;
  let items: StoreItem[];
  let agentId = el.agent.value.trim() || 'team-bot';
  try {
    const parsed = JSON.parse(await file.text()) as unknown;
    const holder = parsed as { items?: unknown; memories?: unknown; agent_id?: unknown };
    const list = Array.isArray(parsed) ? parsed : Array.isArray(holder.items) ? holder.items : holder.memories;
    if (!Array.isArray(list)) throw new Error('expected an array of memories, or an object with an "items" or "memories" array');
    if (typeof holder.agent_id === 'string' && holder.agent_id.trim()) agentId = holder.agent_id;
    items = list as StoreItem[];
  } catch (err) {
    setStatus('error', `Could not import ${file.name}: ${describeError(err)}`);
    return;
  }
  const target = memory.agent(agentId);
  const total = items.length;
  const size = IMPORT_BATCH[memory.storage];
  setStatus('loading', `Importing ${file.name} into agent ${agentId}…`);
  showProgress(0, total, 0);
  let stored = 0;
  try {
    await undoHistory.step(`Imported ${plural(total, 'memory', 'memories')} from ${file.name} into agent ${agentId}`, async () => {
      await checkItems(target, items, size, (checked) => showProgress(0, total, checked));
      const show = (done: number) => showProgress(done, total, total);
      for (const { start, items: batch } of storeBatches(items, size)) {
        try {
          await target.storeMany(batch, { onProgress: ({ done }) => show(stored + done) });
        } catch (err) {
          throw inFile(err, start);
        }
        stored += batch.length;
        await new Promise((painted) => { setTimeout(painted, 0); });
      }
    }, agentId);
    el.agent.value = agentId;
    el.input.value = '';
    markChanged();
    await adopt(memory, sourceLabel, ` · ${plural(stored, 'memory', 'memories')} imported from ${file.name}`);
    el.status.dataset.imported = file.name;
    el.status.dataset.stored = String(stored);
  } catch (err) {
    const kept = stored ? ` (${plural(stored, 'memory', 'memories')} before that batch were stored)` : ' (nothing was stored)';
    setStatus('error', `Could not import ${file.name}: ${describeError(err)}${kept}`);
  } finally {
    el.progress.hidden = true;
  }
}

/**
 * Asks before `what` closes an in-page memory with changes not exported (which would be
 * lost), with "Export first" in the same dialog. True to go on, or when nothing is unsaved.
 */
function confirmDiscard(what: string): Promise<boolean> {
  if (!unsaved || !agent) return Promise.resolve(true);
  return confirmStep(`${what} closes the ${sourceLabel}, whose changes since it was opened (agent ${agent.agentId} and any other) are not exported: they would be lost.`,
    'Discard changes', { exportFirst: true });
}

/** The source picker back on what is open, after a switch was cancelled. */
function showSource(): void {
  el.source.value = memory?.storage === 'opfs' ? 'opfs' : sourceLabel === 'demo corpus' ? 'demo' : 'file';
  showOpfsForm(el.source.value === 'opfs');
}

/** The OPFS form (name, key, Open) shown or hidden, its last error gone. */
function showOpfsForm(on: boolean): void {
  for (const e of [el.opfsField, el.opfsKeyField, el.opfsOpen]) e.hidden = !on;
  opfsError('');
}

/** An error of the OPFS form, beside it ('' clears it). */
function opfsError(text: string): void {
  el.opfsError.textContent = text;
  el.opfsError.hidden = !text;
  el.opfsKey.setAttribute('aria-invalid', String(!!text));
}

async function openOpfs(): Promise<void> {
  const name = el.opfsName.value.trim() || 'explorer';
  const key = keyFromText(el.opfsKey.value);
  if (!(await confirmDiscard(`Opening the OPFS memory “${name}”`))) {
    showSource();
    return;
  }
  opfsError('');
  const was = { state: el.status.dataset.state as 'ready', text: el.status.textContent ?? '' };
  setStatus('loading', `Opening the OPFS memory ${name}…`);
  // A name is open once per page: the same one is closed first (and opened again as it was
  // if this open fails); another stays open until this one has opened.
  const same = memory?.storage === 'opfs' && memory.name === name ? memory : null;
  let next: AssociativeMemory | null = null;
  try {
    if (same) await same.close();
    // With a key a new name is made encrypted, and the header shows the lock.
    next = await openKeyed({ storage: 'opfs', name, clock, ...(key ? { key } : {}) });
    el.opfsKey.value = '';
    const total = (await next.agent(el.agent.value.trim() || 'team-bot').listEntities({ limit: 1 })).total;
    if (total === 0 && await confirmStep(`The OPFS memory “${name}” has no entities for this agent. Fill it with the demo corpus?`, 'Fill')) {
      // Built in memory and imported whole: one write to OPFS instead of one per note.
      const scratch = await openMemory({ clock });
      await fill(scratch);
      await next.import(await scratch.export());
      await scratch.close();
      el.agent.value = (corpus as any).agent_id ?? 'team-bot';
    }
    el.input.value = '';
    await adopt(next, `OPFS memory ${name}`, ' · kept in this browser');
    el.source.value = 'opfs';
  } catch (err) {
    const keyText = next ? null : keyErrorText(err, `the OPFS memory “${name}”`);
    if (!keyText) return setStatus('error', `Could not open the OPFS memory ${name}: ${describeError(err)}`);
    // Nothing was opened: the previous source stays (opened again if it was this name).
    if (same) await adopt(await reopen(same), sourceLabel, statusExtra).catch(fatal);
    else setStatus(was.state, was.text);
    opfsError(keyText);
    el.opfsKey.focus();
  }
}

/** Hands `data` to the browser as a download named `name`. */
function download(data: BlobPart, type: string, name: string): void {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const today = () => new Date().toISOString().slice(0, 10);

async function exportDb(): Promise<void> {
  if (!memory) return;
  try {
    const bytes = await memory.export();
    download(bytes as BlobPart, 'application/vnd.sqlite3', `${agent?.agentId ?? 'memory'}-${today()}.sqlite`);
    el.status.dataset.exported = String(bytes.length);
    // Everything is in the download: nothing would be lost by leaving now.
    unsaved = false;
    el.status.dataset.unsaved = 'false';
  } catch (err) { showError(describeError(err)); }
}

/** The agent's memory as JSONL in the reference implementation's export format. */
async function exportJsonl(): Promise<void> {
  if (!agent) return;
  try {
    const out = await agent.exportMemories();
    download(out.jsonl, 'application/jsonl', `${agent.agentId}-${today()}.jsonl`);
    el.status.dataset.exportedJsonl = String(out.memories);
  } catch (err) { showError(describeError(err)); }
}

el.searchForm.addEventListener('submit', (ev) => { ev.preventDefault(); void traverse(); });
el.hops.addEventListener('change', () => { if (el.input.value.trim()) void traverse(); });
el.importBtn.addEventListener('click', () => el.file.click());
el.controlsToggle.addEventListener('click', () => showControls(!document.body.classList.contains('controls-open')));
el.file.addEventListener('change', () => { const f = el.file.files?.[0]; if (f) void importFile(f); el.file.value = ''; });
el.exportBtn.addEventListener('click', () => void exportDb());
el.exportJsonlBtn.addEventListener('click', () => void exportJsonl());
el.opfsOpen.addEventListener('click', () => void openOpfs());
el.agent.addEventListener('change', () => { if (memory) void adopt(memory, sourceLabel); });
el.source.addEventListener('change', () => {
  const v = el.source.value;
  showOpfsForm(v === 'opfs');
  if (v === 'demo') {
    void confirmDiscard('Loading the demo corpus again').then((go) => (go ? loadDemo() : showSource())).catch(fatal);
  }
  else if (v === 'file') el.file.click();
  else el.opfsName.focus();
});

let dragDepth = 0;
window.addEventListener('dragenter', (ev) => { if (ev.dataTransfer?.types.includes('Files')) { dragDepth += 1; el.drop.hidden = false; } });
window.addEventListener('dragleave', () => { dragDepth = Math.max(0, dragDepth - 1); if (!dragDepth) el.drop.hidden = true; });
window.addEventListener('dragover', (ev) => { ev.preventDefault(); });
window.addEventListener('drop', (ev) => {
  ev.preventDefault();
  dragDepth = 0;
  el.drop.hidden = true;
  const f = ev.dataTransfer?.files?.[0];
  if (f) void importFile(f);
});

function fatal(err: unknown): void {
  setStatus('error', `Could not load: ${describeError(err)}`);
  console.error(err);
}

// For tests and the console: the page's objects (the public API's own).
(window as any).__explorer = { view, history: undoHistory, records: links, get memory() { return memory; }, get agent() { return agent; } };

loadDemo().catch(fatal);
