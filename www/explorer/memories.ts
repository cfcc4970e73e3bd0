// The memories view, beside the graph: the agent's memories newest first (`list_memories`,
// a page at a time), or the records that answer a search (`recall`, deep, so weaker matches
// show too), each editable in place (`update_memory`: search and the vector follow the new
// text, the declarations resting on it stay) and deletable after a confirmation
// (`delete_memory` / `delete_episode`: its mentions and the relations anchored on it go too).
// Each shows the entities mentioning it as chips (records.ts), and its ref opens it whole.
// The filter bar scopes both reads by project and channel, and hides records dated outside
// its range (filters.ts).

import type { AgentMemory, Source } from 'associative-memory';
import { describeError, h, plural, shortTime, sourceText } from './dom.js';
import { emptyText, inRange, olderThanRange, rangeText, scopeOf, type Filters } from './filters.js';
import type { RecordLinks } from './records.js';

/** What the view needs of the page around it. */
export interface MemoriesHost {
  /** The agent whose memories are shown; null while no memory is open. */
  agent(): AgentMemory | null;
  /** Asks before a destructive step; resolves true to go on. */
  confirm(text: string, action: string): Promise<boolean>;
  /** Called after every write, so the graph and the counts follow. */
  changed(notice: string): Promise<void>;
  /** The filters applied: project and channel scope the reads, the dates hide records outside them. */
  filters(): Filters;
  /** Refs as buttons opening their record, and entity chips. */
  links: RecordLinks;
  /** Runs a write as one step the page can undo, named by `label` ("Edited mem:12"). */
  write<T>(label: string, run: () => Promise<T>): Promise<T>;
}

/** One listed record: a memory (editable) or, in search results, an episode. */
interface Row { ref: string; kind: 'mem' | 'ep'; id: number; content: string; timestamp: string; source?: Source; where?: string; expires_at?: string }

/** Memories per page of the newest-first list. */
const PAGE = 50;
/** Records a search shows at most (recall's own maximum). */
const SEARCH_LIMIT = 100;
/** Memories read per call while a date range hides some (list_memories takes no dates). */
const SCAN = 500;

export interface MemoriesView {
  /** Reloads what is shown (the first page, or the current search) for the current agent. */
  refresh(): Promise<void>;
}

export function mountMemories(root: HTMLElement, host: MemoriesHost): MemoriesView {
  let rows: Row[] = [];
  let query = '';
  let total = 0;
  let nextOffset: number | undefined;
  /** Search results the dates hid. */
  let hiddenByDates = 0;
  /** Drops answers to a load that a newer load overtook. */
  let seq = 0;

  const input = h('input', { type: 'search', 'aria-label': 'Search memories', placeholder: 'search the memories (recall)', dataset: { testid: 'memories-query' } });
  const form = h('form', { class: 'search', role: 'search', autocomplete: 'off', dataset: { testid: 'memories-form' } },
    h('label', { class: 'field grow' }, h('span', {}, 'Search memories'), input),
    h('button', { type: 'submit', dataset: { testid: 'memories-search' } }, 'Search'),
    h('button', { type: 'button', dataset: { testid: 'memories-all' }, onclick: () => { input.value = ''; void load(''); } }, 'Show all'));
  const summary = h('p', { class: 'muted', dataset: { testid: 'memories-summary' }, role: 'status' });
  const error = h('p', { class: 'error', dataset: { testid: 'memories-error' }, role: 'alert', hidden: true });
  const list = h('ul', { class: 'records', dataset: { testid: 'memories-list' } });
  const more = h('button', { type: 'button', dataset: { testid: 'memories-more' }, hidden: true, onclick: () => void loadMore() }, 'Show more');
  form.addEventListener('submit', (ev) => { ev.preventDefault(); void load(input.value.trim()); });
  // The search stays in place; the list scrolls under it.
  root.replaceChildren(form, summary, error, h('div', { class: 'scroll' }, list, more));

  function fail(err: unknown): void {
    error.textContent = describeError(err);
    error.hidden = false;
  }

  async function load(q: string): Promise<void> {
    const agent = host.agent();
    const mine = ++seq;
    query = q;
    error.hidden = true;
    hiddenByDates = 0;
    if (!agent) { rows = []; total = 0; nextOffset = undefined; return render(); }
    const f = host.filters();
    try {
      if (q) {
        const res = await agent.recall({ query: q, limit: SEARCH_LIMIT, deep: true, ...scopeOf(f) });
        if (mine !== seq) return;
        const found = res.messages.map((m) => ({ ...parseRef(m.ref), ref: m.ref, content: m.content, timestamp: m.timestamp, source: m.source, expires_at: m.expires_at }));
        rows = found.filter((r) => inRange(f, r.timestamp));
        hiddenByDates = found.length - rows.length;
        total = rows.length;
        nextOffset = undefined;
      } else {
        const res = await page(agent, f, 0);
        if (mine !== seq) return;
        rows = res.rows;
        total = res.total;
        nextOffset = res.next;
      }
      render();
    } catch (err) { if (mine === seq) fail(err); }
  }

  async function loadMore(): Promise<void> {
    const agent = host.agent();
    if (!agent || nextOffset === undefined) return;
    const mine = ++seq;
    try {
      const res = await page(agent, host.filters(), nextOffset);
      if (mine !== seq) return;
      rows = rows.concat(res.rows);
      total = res.total;
      nextOffset = res.next;
      render();
    } catch (err) { if (mine === seq) fail(err); }
  }

  /**
   * A page of the newest-first list from `offset`. With dates, list_memories is read further
   * (SCAN at a time) past the memories newer than the range, and stops at the first older
   * one (all after it are older); `total` then counts the memories in scope, any date.
   */
  async function page(agent: AgentMemory, f: Filters, offset: number): Promise<{ rows: Row[]; total: number; next?: number }> {
    const dated = !!(f.from || f.to);
    const out: Row[] = [];
    let next: number | undefined = offset;
    let total = 0;
    while (next !== undefined && out.length < PAGE) {
      const res: Awaited<ReturnType<AgentMemory['listMemories']>> = await agent.listMemories({ limit: dated ? SCAN : PAGE, offset: next, ...scopeOf(f) });
      total = res.total;
      next = res.next_offset;
      for (const m of res.memories) {
        if (olderThanRange(f, m.timestamp)) { next = undefined; break; }
        if (inRange(f, m.timestamp)) out.push(listed(m));
      }
      if (!dated) break;
    }
    return { rows: out, total, next };
  }

  function render(): void {
    const f = host.filters();
    const range = rangeText(f);
    const dated = range ? ` dated ${range}` : '';
    summary.textContent = rows.length === 0
      ? emptyText(f, query ? `record answers “${query}”` : 'memories')
      : query
        ? `${plural(rows.length, 'record')}${dated} ${rows.length === 1 ? 'answers' : 'answer'} “${query}”, most relevant first${hiddenByDates ? ` (${hiddenByDates} outside the dates hidden)` : ''}.`
        : range
          ? `${plural(rows.length, 'memory', 'memories')}${dated}, newest first (of ${plural(total, 'memory', 'memories')} in all${nextOffset !== undefined ? '; Show more reads older ones' : ''}).`
          : `${rows.length < total ? `${rows.length} of ` : ''}${plural(total, 'memory', 'memories')}, newest first.`;
    root.dataset.empty = String(rows.length === 0);
    root.dataset.shown = String(rows.length);
    root.dataset.total = String(total);
    root.dataset.query = query;
    list.replaceChildren(...rows.map(item));
    more.hidden = nextOffset === undefined;
  }

  function item(row: Row): HTMLLIElement {
    const text = h('p', { dataset: { testid: 'memory-text' } }, row.content);
    const rowError = h('p', { class: 'error', dataset: { testid: 'memory-error' }, role: 'alert', hidden: true });
    const chips = h('div', { class: 'chips', dataset: { testid: 'memory-entities' }, 'aria-label': `Entities mentioning ${row.ref}`, role: 'group' });
    void host.links.chips(row.ref, chips);
    const actions = h('span', { class: 'actions' },
      row.kind === 'mem' ? h('button', { type: 'button', dataset: { testid: 'memory-edit' }, 'aria-label': `Edit ${row.ref}`, onclick: () => edit() }, 'Edit') : null,
      h('button', { type: 'button', class: 'danger', dataset: { testid: 'memory-delete' }, 'aria-label': `Delete ${row.ref}`, onclick: () => void remove(row) }, 'Delete…'));
    const li = h('li', { dataset: { testid: 'memory', ref: row.ref } },
      h('div', { class: 'meta' },
        host.links.ref(row.ref),
        h('time', { datetime: row.timestamp }, shortTime(row.timestamp)),
        row.source ? h('span', {}, sourceText(row.source)) : null,
        row.where ? h('span', {}, row.where) : null,
        row.expires_at ? h('span', { class: 'tag', dataset: { testid: 'memory-expires' }, title: 'From then on reads leave it out' }, `expires ${shortTime(row.expires_at)}`) : null,
        actions),
      text, chips, rowError);

    function edit(): void {
      const editor = h('textarea', { 'aria-label': `New text of ${row.ref}`, rows: 4, dataset: { testid: 'memory-editor' } });
      editor.value = row.content;
      const form = h('form', { class: 'edit', dataset: { testid: 'memory-edit-form' } },
        editor,
        h('div', { class: 'curate' },
          h('button', { type: 'submit', class: 'primary', dataset: { testid: 'memory-save' } }, 'Save'),
          h('button', { type: 'button', dataset: { testid: 'memory-cancel' }, onclick: () => { form.replaceWith(text); actions.hidden = false; rowError.hidden = true; } }, 'Cancel')));
      form.addEventListener('submit', (ev) => { ev.preventDefault(); void save(editor.value); });
      text.replaceWith(form);
      actions.hidden = true;
      editor.focus();
    }

    async function save(content: string): Promise<void> {
      const agent = host.agent();
      if (!agent) return;
      try {
        await host.write(`Edited ${row.ref}`, () => agent.updateMemory({ memory_id: row.id, content }));
        await host.changed(`Updated ${row.ref}.`);
        await load(query);
      } catch (err) {
        rowError.textContent = describeError(err);
        rowError.hidden = false;
      }
    }
    return li;
  }

  async function remove(row: Row): Promise<void> {
    const agent = host.agent();
    const what = row.kind === 'mem' ? 'memory' : 'episode';
    if (!agent || !(await host.confirm(`Delete the ${what} ${row.ref}? Its mentions and the relations anchored on it go with it; the entities stay.`, 'Delete'))) return;
    try {
      await host.write(`Deleted ${what} ${row.ref}`, () => (row.kind === 'mem' ? agent.deleteMemory({ memory_id: row.id }) : agent.deleteEpisode({ episode_id: row.id })));
      await host.changed(`Deleted ${row.ref}.`);
      await load(query);
    } catch (err) { fail(err); }
  }

  return { refresh: () => load(query) };
}

/** `mem:12` → kind and id. */
function parseRef(ref: string): { kind: 'mem' | 'ep'; id: number } {
  const [kind, id] = ref.split(':');
  return { kind: kind === 'ep' ? 'ep' : 'mem', id: Number(id) };
}

function listed(m: { id: number; content: string; timestamp: string; source: Source; project_id: string; channel: string; expires_at?: string }): Row {
  const where = [m.project_id && `project ${m.project_id}`, m.channel && `channel ${m.channel}`].filter(Boolean).join(' · ');
  return { ref: `mem:${m.id}`, kind: 'mem', id: m.id, content: m.content, timestamp: m.timestamp, source: m.source, where: where || undefined, expires_at: m.expires_at };
}
