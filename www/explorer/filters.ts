// The explorer's filters: a project and a channel, which scope the reads (traverse, the
// memories list and search, reconstruct) as the engine's isolation axes do, and a date range
// (UTC days), which hides records dated outside it from the lists and relations declared
// outside it from the graph. The engine's reads take no date bounds, so the range is applied
// here, in the page, to what each read returned; a bound read (traverse's `limit`, a page of
// `list_memories`) may therefore show fewer than its bound.

import type { AgentMemory, TraverseResponse } from 'associative-memory';
import type { GraphState } from 'associative-memory/view';
import { h, plural } from './dom.js';

/** What the filter bar holds; an empty field is no filter. Dates are `YYYY-MM-DD`, UTC. */
export interface Filters { project_id: string; channel: string; from: string; to: string }

/** The isolation axes a read takes from the filters: an empty field is omitted (every project, every channel). */
export function scopeOf(f: Filters): { project_id?: string; channel?: string } {
  return { ...(f.project_id ? { project_id: f.project_id } : {}), ...(f.channel ? { channel: f.channel } : {}) };
}

/** Whether the range holds `timestamp` (any ISO time); true when no dates are set. */
export function inRange(f: Filters, timestamp: string | undefined): boolean {
  if (!f.from && !f.to) return true;
  const t = Date.parse(timestamp ?? '');
  if (Number.isNaN(t)) return false;
  if (f.from && t < Date.parse(`${f.from}T00:00:00Z`)) return false;
  if (f.to && t >= Date.parse(`${f.to}T00:00:00Z`) + 86_400_000) return false;
  return true;
}

/** Whether the range is set and `timestamp` is older than its start: in a newest-first list, so is everything after it. */
export function olderThanRange(f: Filters, timestamp: string): boolean {
  return !!f.from && Date.parse(timestamp) < Date.parse(`${f.from}T00:00:00Z`);
}

/** "between 2026-10-01 and 2026-10-31", "from 2026-10-01", "until …"; '' without dates. */
export function rangeText(f: Filters): string {
  if (f.from && f.to) return `between ${f.from} and ${f.to}`;
  if (f.from) return `from ${f.from}`;
  if (f.to) return `until ${f.to}`;
  return '';
}

/** Whether an entity or record of (project, channel) is read under the filters (the engine's isolation rule). */
export function inScope(f: Filters, project: string, channel: string): boolean {
  if (f.project_id && project !== '' && project !== f.project_id) return false;
  if (f.channel && channel !== '' && channel !== f.channel) return false;
  return true;
}

/**
 * What an empty list says to do: the filters that could hide what is there, and how to
 * loosen them. `what` says what is missing ("memories", "record answers “x”").
 */
export function emptyText(f: Filters, what: string): string {
  const where = [f.project_id && `in project ${f.project_id}`, f.channel && `in channel ${f.channel}`, rangeText(f)].filter(Boolean).join(', ');
  const fixes = [(f.from || f.to) && 'widen the dates', (f.project_id || f.channel) && 'clear the project and channel'].filter(Boolean).join(', or ');
  return `No ${what}${where ? ` ${where}` : ''}${fixes ? ` — ${fixes}` : ''}.`;
}

/**
 * Drops from a traverse response the relations declared outside the range, then the entities
 * no longer reached from the start over the relations kept (they would float unconnected).
 * Client-side, on what traverse returned: `limit` was spent before the dates applied.
 */
export function dateTraverse(f: Filters, res: TraverseResponse): { res: TraverseResponse; relations: number; entities: number } {
  if ((!f.from && !f.to) || !res.entities.length) return { res, relations: 0, entities: 0 };
  const relations = res.relations.filter((r) => inRange(f, r.declared_at));
  const next = new Map<number, number[]>();
  for (const r of relations) {
    next.set(r.subject, [...(next.get(r.subject) ?? []), r.object]);
    next.set(r.object, [...(next.get(r.object) ?? []), r.subject]);
  }
  const reached = new Set(res.entities.filter((e) => e.hops === 0).map((e) => e.id));
  const queue = [...reached];
  while (queue.length) for (const n of next.get(queue.shift()!) ?? []) if (!reached.has(n)) { reached.add(n); queue.push(n); }
  const entities = res.entities.filter((e) => reached.has(e.id));
  return {
    res: { ...res, entities, relations: relations.filter((r) => reached.has(r.subject) && reached.has(r.object)) },
    relations: res.relations.length - relations.length,
    entities: res.entities.length - entities.length,
  };
}

/**
 * Of a reconstruct item's claims, those dated in the range (listed, and lit on the graph) and
 * how many the dates hid: what is lit and what is listed are the same claims.
 */
export function datedClaims<C extends { as_of?: string }>(f: Filters, claims: readonly C[]): { shown: C[]; hidden: number } {
  const shown = claims.filter((c) => inRange(f, c.as_of));
  return { shown, hidden: claims.length - shown.length };
}

/** The filter bar's handle. */
export interface FilterBar {
  /** The filters as applied. */
  current(): Filters;
  /** Traverses through the filters: scoped by project and channel, relations outside the dates dropped. */
  traverse(agent: AgentMemory, options: Parameters<AgentMemory['traverse']>[0]): ReturnType<AgentMemory['traverse']>;
  /**
   * What the dates hid of the last traverse, for the graph's "What was cut" line (the one
   * place that says what the drawing leaves out), or '' when they hid nothing.
   */
  graphCut(state: GraphState): string;
}

/**
 * Mounts the filter bar (a disclosure, folded by default, whose summary names the filters
 * applied) into `root`. `changed` runs after Apply or Clear, to re-read what is shown.
 */
export function mountFilters(root: HTMLElement, changed: (f: Filters) => void): FilterBar {
  let applied: Filters = { project_id: '', channel: '', from: '', to: '' };
  /** What the dates hid of the last traverse. */
  let hid = { relations: 0, entities: 0 };
  const input = (name: keyof Filters, label: string, attrs: Record<string, unknown> = {}) =>
    h('label', { class: 'field' }, h('span', {}, label), h('input', { name, dataset: { testid: `filter-${name}` }, size: 10, ...attrs }));
  const form = h('form', { class: 'search filters-form', autocomplete: 'off', dataset: { testid: 'filters-form' } },
    input('project_id', 'Project', { placeholder: 'every project' }),
    input('channel', 'Channel', { placeholder: 'every channel' }),
    input('from', 'From (UTC)', { type: 'date' }),
    input('to', 'To (UTC)', { type: 'date' }),
    h('button', { type: 'submit', class: 'primary', dataset: { testid: 'filters-apply' } }, 'Apply'),
    h('button', { type: 'button', dataset: { testid: 'filters-clear' }, onclick: () => { form.reset(); apply(); } }, 'Clear'));
  const summary = h('summary', { dataset: { testid: 'filters-summary' } });
  const error = h('p', { class: 'error', role: 'alert', dataset: { testid: 'filters-error' }, hidden: true });
  root.replaceChildren(h('details', { class: 'filters', dataset: { testid: 'filters' } }, summary, form, error));
  form.addEventListener('submit', (ev) => { ev.preventDefault(); apply(); });
  describe();

  function apply(): void {
    const data = new FormData(form);
    const next = Object.fromEntries((['project_id', 'channel', 'from', 'to'] as const).map((k) => [k, String(data.get(k) ?? '').trim()])) as unknown as Filters;
    if (next.from && next.to && next.from > next.to) {
      error.textContent = `The range ends (${next.to}) before it starts (${next.from}): nothing was changed.`;
      error.hidden = false;
      return;
    }
    error.hidden = true;
    applied = next;
    root.dataset.applied = JSON.stringify(applied);
    describe();
    changed(applied);
  }

  function describe(): void {
    const parts = [applied.project_id && `project ${applied.project_id}`, applied.channel && `channel ${applied.channel}`, rangeText(applied)].filter(Boolean);
    summary.textContent = parts.length ? `Filters: ${parts.join(' · ')}` : 'Filters: none (every project, channel and date)';
  }

  return {
    current: () => applied,
    async traverse(agent, options) {
      const out = dateTraverse(applied, await agent.traverse({ ...options, ...scopeOf(applied) }));
      hid = { relations: out.relations, entities: out.entities };
      return out.res;
    },
    graphCut(state) {
      const range = rangeText(applied);
      if (!range || state.missing || !state.entities.length || !hid.relations) return '';
      const what = `the dates hid ${plural(hid.relations, 'relation')}${hid.entities ? ` and ${plural(hid.entities, 'entity', 'entities')} reached only through them` : ''} (only relations declared ${range} are drawn)`;
      return state.relations.length ? what : `${what}: none around ${state.entities[0]!.name} is left — widen the dates`;
    },
  };
}
