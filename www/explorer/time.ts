// Facts in time (issue 39) in the explorer: the time bar that sets the instant the graph is
// read at (`as_of`: now, an instant, or all), the notice that says so whenever the graph is
// not the current state, what a relation's details say of its interval and closure, closing
// a relation from the page with a reason (`invalidate`), and an entity's timeline (`history`).
//
// The engine decides what holds at an instant; the page only asks at that instant (the
// view's `setAsOf`) and says what it asked. A relation with an end is drawn dashed by the
// view itself (`associative-memory/view`), so a host of the view gets the same drawing.

import type { AgentMemory, DeclareResponse, HistoryRelation, HistoryResponse, TraverseRelation } from 'associative-memory';
import { describeError, h, plural, shortTime } from './dom.js';

/** How the graph is read: the current state, at one instant, or everything (closed relations too). */
export type TimeMode = 'now' | 'at' | 'all';

/** One hour, the slider's step: fine enough for a day's facts, coarse enough to move with the arrow keys. */
const STEP_MS = 3_600_000;

/** `2026-11-15T09:00:00Z`, an ISO 8601 instant in UTC (the engine stores it as `+00:00`), from a time in ms. */
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `2026-11-15 09:00 UTC`, how the page writes an instant. */
export const instantLabel = (at: string) => `${shortTime(at)} UTC`;

/**
 * The instant a person typed, read as UTC: `2026-11-15 09:00` (or with a `T`, seconds, or a
 * day alone), or null when it is not one. A text field rather than `datetime-local`, whose
 * control writes the browser's locale (11/15/2026, 09:00 AM) beside instants written in UTC,
 * and takes seven Tab stops.
 */
function fromField(value: string): number | null {
  const m = value.trim().match(/^(\d{4}-\d\d-\d\d)(?:[T ](\d\d:\d\d(?::\d\d)?))?$/);
  if (!m) return null;
  const ms = Date.parse(`${m[1]}T${m[2] ?? '00:00'}${m[2]?.length === 8 ? '' : ':00'}Z`);
  return Number.isNaN(ms) ? null : ms;
}
/** How the fields write an instant: `2026-11-15 09:00` (UTC). */
const toField = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
/** What the instant fields say they take. */
const FORMAT = 'YYYY-MM-DD HH:MM';

/** What the time bar needs of the page. */
export interface TimeHost {
  /** Reads the graph again at `asOf` (undefined: now); resolves when it is drawn. */
  changed(asOf: string | undefined): Promise<void>;
}

/** The time bar's handle (the view holds the instant applied: `view.state().as_of`). */
export interface TimeBar {
  /**
   * The span the slider covers, from the oldest to the newest time of the open memory (or
   * now, if later): read from its records (`listMemories`), for `agent` under `scope`.
   */
  measure(agent: AgentMemory, scope: { project_id?: string; channel?: string }): Promise<void>;
}

/**
 * Mounts the time bar into `root` and the notice into `notice` (shown whenever the graph is
 * not the current state, with a button back to now). A slider and a date-and-time field set
 * the instant together; moving either switches the mode to "At an instant".
 */
export function mountTimeBar(root: HTMLElement, notice: HTMLElement, host: TimeHost): TimeBar {
  let span = { min: Date.now() - 30 * 86_400_000, max: Date.now() };
  let mode: TimeMode = 'now';
  let at = span.max;
  /** What the graph was last read at, and what is wanted: a redraw follows until they agree. */
  let applied: string | undefined;
  let running: Promise<void> | null = null;

  const modeSelect = h('select', { id: 'as-of-mode', dataset: { testid: 'as-of-mode' } },
    h('option', { value: 'now' }, 'Now (current facts)'),
    h('option', { value: 'at' }, 'At an instant'),
    h('option', { value: 'all' }, 'All time (closed facts too)'));
  const slider = h('input', { type: 'range', id: 'as-of-slider', dataset: { testid: 'as-of-slider' }, min: '0', step: '1' });
  const field = h('input', { id: 'as-of-input', dataset: { testid: 'as-of-input' }, placeholder: FORMAT, size: 16, 'aria-describedby': 'as-of-error' });
  const error = h('p', { class: 'error', id: 'as-of-error', role: 'alert', dataset: { testid: 'as-of-error' }, hidden: true });
  root.replaceChildren(
    h('label', { class: 'field' }, h('span', {}, 'Graph as of'), modeSelect),
    h('label', { class: 'field grow' }, h('span', {}, 'Instant (slide)'), slider),
    h('label', { class: 'field' }, h('span', {}, 'Instant (UTC)'), field),
    error);
  const back = h('button', { type: 'button', dataset: { testid: 'as-of-now' } }, 'Back to now');
  const noticeText = h('span', { dataset: { testid: 'as-of-notice-text' } });
  notice.replaceChildren(noticeText, ' ', back);
  back.addEventListener('click', () => void set('now'));

  modeSelect.addEventListener('change', () => void set(modeSelect.value as TimeMode));
  slider.addEventListener('input', () => {
    void set('at', span.min + Number(slider.value) * STEP_MS);
  });
  field.addEventListener('change', () => {
    const ms = fromField(field.value);
    if (ms === null) return showError(`“${field.value}” is not a date and time: write it as ${FORMAT} (UTC).`);
    void set('at', ms);
  });

  function showError(text: string): void {
    error.textContent = text;
    error.hidden = !text;
    field.setAttribute('aria-invalid', String(!!text));
  }

  const wanted = () => (mode === 'now' ? undefined : mode === 'all' ? 'all' : iso(at));

  /** The controls and the notice say what is wanted (at once, before the graph is read). */
  function describe(): void {
    modeSelect.value = mode;
    slider.max = String(Math.max(1, Math.ceil((span.max - span.min) / STEP_MS)));
    slider.value = String(Math.round((at - span.min) / STEP_MS));
    const text = instantLabel(iso(at));
    slider.setAttribute('aria-valuetext', mode === 'at' ? text : `${text} (not applied: the graph shows ${mode === 'all' ? 'all time' : 'now'})`);
    // Empty unless an instant applies: a date shown at now or all time would read as the one in use.
    field.value = mode === 'at' ? toField(at) : '';
    field.title = `Between ${toField(span.min)} and ${toField(span.max)} (UTC), the memory's oldest and newest times`;
    root.dataset.mode = mode;
    root.dataset.wanted = wanted() ?? '';
    notice.hidden = mode === 'now';
    noticeText.textContent = mode === 'all'
      ? 'Not the current state: every relation of all time is drawn, current and closed. Those with an end are dashed red and say until when; their details say who closed them and why.'
      : `Not the current state: the graph as it stood at ${text}. Relations that ended since are dashed red and say until when; one declared without a start (valid_from) counts as holding since always.`;
  }

  /** Reads the graph at what is wanted, again until it is what was read (a slider dragged meanwhile). */
  function sync(): Promise<void> {
    if (running) return running;
    if (wanted() === applied) return Promise.resolve();
    const run = (async () => {
      try {
        while (wanted() !== applied) {
          const next = wanted();
          await host.changed(next);
          applied = next;
          root.dataset.asOf = applied ?? '';
        }
      } catch (err) {
        showError(`Could not read the graph at that instant: ${describeError(err)}`);
      } finally {
        running = null;
      }
    })();
    running = run;
    return run;
  }

  /** Applies a mode (and, for 'at', the instant in ms) as a person chose it. */
  async function set(next: TimeMode, instant?: number): Promise<void> {
    showError('');
    mode = next;
    if (instant !== undefined) at = instant;
    describe();
    await sync();
    // A call that arrived while another read ran: wait for the read of what is now wanted.
    if (running) await running;
  }

  describe();
  root.dataset.asOf = '';
  return {
    async measure(agent, scope) {
      const first = await agent.listMemories({ limit: 1, max_content: 0, as_of: 'all', ...scope });
      const newest = first.memories[0]?.timestamp;
      const oldest = first.total > 1 ? (await agent.listMemories({ limit: 1, offset: first.total - 1, max_content: 0, as_of: 'all', ...scope })).memories[0]?.timestamp : newest;
      const now = Date.now();
      const lo = oldest ? Date.parse(oldest) : now;
      const hi = Math.max(newest ? Date.parse(newest) : now, now);
      span = { min: Math.floor(lo / STEP_MS) * STEP_MS, max: Math.ceil(hi / STEP_MS) * STEP_MS };
      if (mode !== 'at') at = span.max;
      root.dataset.min = iso(span.min);
      root.dataset.max = iso(span.max);
      describe();
    },
  };
}

// ---------------------------------------------------------------- a relation's time

/** The rows a relation's details add to its facts: its interval, and who closed it, when and why. */
export function timeFacts(t: TraverseRelation): HTMLElement[] {
  const row = (label: string, testid: string, value: Node | string) => [h('dt', {}, label), h('dd', { dataset: { testid } }, value)];
  const when = (s: string) => h('time', { datetime: s }, instantLabel(s));
  return [
    ...(t.valid_from ? row('valid from', 'edge-valid-from', when(t.valid_from)) : []),
    ...(t.valid_to ? row('valid until', 'edge-valid-to', when(t.valid_to)) : []),
    ...(t.closed_by ? row('closed by', 'edge-closed-by', t.closed_by) : []),
    ...(t.closed_at ? row('closed at', 'edge-closed-at', when(t.closed_at)) : []),
    ...(t.closed_reason ? row('why closed', 'edge-closed-reason', t.closed_reason) : []),
  ];
}

/** Whether a relation was closed (with `invalidate`): it cannot be closed again. */
export const isClosed = (r: TraverseRelation) => !!r.closed_by;

/**
 * The form that closes a relation: a reason (required, as the engine wants one) and,
 * optionally, the instant it ended (UTC; empty: now). `run` does the write.
 */
export function invalidateForm(run: (reason: string, at: string | undefined, fail: (err: unknown) => void) => Promise<void>): HTMLElement {
  const reason = h('input', { placeholder: 'e.g. handed over to Amara', maxlength: 256, 'aria-required': 'true', dataset: { testid: 'invalidate-reason' } });
  const ended = h('input', { placeholder: FORMAT, size: 16, dataset: { testid: 'invalidate-at' } });
  const error = h('p', { class: 'error', role: 'alert', id: 'invalidate-error', dataset: { testid: 'invalidate-error' }, hidden: true });
  const fail = (err: unknown) => {
    error.textContent = describeError(err);
    error.hidden = false;
    reason.setAttribute('aria-invalid', 'true');
    reason.setAttribute('aria-describedby', error.id);
  };
  reason.addEventListener('input', () => { error.hidden = true; reason.removeAttribute('aria-invalid'); });
  const form = h('form', {
    class: 'curate', dataset: { testid: 'invalidate-form' },
    onsubmit: (ev: Event) => {
      ev.preventDefault();
      const why = reason.value.trim();
      if (!why) return fail(new Error('Say why the relation ended: the reason is kept with it.'));
      let at: string | undefined;
      if (ended.value) {
        const ms = fromField(ended.value);
        if (ms === null) return fail(new Error(`“${ended.value}” is not a date and time: write it as ${FORMAT} (UTC).`));
        at = iso(ms);
      }
      void run(why, at, fail);
    },
  }, h('label', { class: 'field reason' }, h('span', {}, 'Why it ended (required)'), reason),
  h('label', { class: 'field' }, h('span', {}, 'Ended at (UTC; empty: now)'), ended), h('button', { type: 'submit', dataset: { testid: 'invalidate-btn' }, title: 'Close the relation: it stays as history, with the reason' }, 'Invalidate'));
  return h('div', {}, h('h3', {}, 'End this relation (as operator)'),
    h('p', { class: 'muted' }, 'It stays as history, with the reason: the graph at an earlier instant, or with all time, still shows it. Retract deletes it instead.'),
    form, error);
}

/** Closes relation `id` as the operator; throws, naming why, when the engine dropped it. */
export async function invalidateRelation(agent: AgentMemory, id: number, reason: string, at: string | undefined): Promise<DeclareResponse> {
  const res = await agent.declareAssociations({ invalidate: [{ relation_id: id, reason, ...(at ? { at } : {}) }], declared_by: 'operator' });
  if (res.dropped.length) throw new Error(`not invalidated: ${res.dropped.map((d) => `${d.item} (${d.reason})`).join(', ')}`);
  return res;
}

/** A relation of the demo corpus that ended (`ended` in corpus.json; make-corpus.mjs says how). */
export interface CorpusEnd { closed: string; at: string; subject: string; predicate: string; object: string; reason: string }

/**
 * Closes a relation of the demo corpus as the agent, as `end` says: the relation is found by
 * its subject, predicate and object among the subject's open relations (its `history`). Throws when it is
 * not there (the corpus and its generator disagree).
 */
export async function endCorpusRelation(agent: AgentMemory, end: CorpusEnd): Promise<void> {
  let r: HistoryRelation | undefined;
  for (let offset: number | undefined = 0; !r && offset !== undefined;) {
    const page: HistoryResponse = await agent.history({ entity: end.subject, limit: 100, offset });
    r = page.relations.find((x) => !x.valid_to && x.predicate === end.predicate && x.subject_name === end.subject && x.object_name === end.object);
    offset = page.next_offset;
  }
  if (!r) throw new Error(`the corpus ends ${end.subject} —${end.predicate}→ ${end.object}, which it never declared`);
  const res = await agent.declareAssociations({ invalidate: [{ relation_id: r.id, at: end.at, reason: end.reason }] });
  if (res.dropped.length) throw new Error(`the corpus could not end ${end.subject} —${end.predicate}→ ${end.object}: ${res.dropped.map((d) => d.reason).join(', ')}`);
}

// ---------------------------------------------------------------- an entity's timeline

/** Relations per page of the timeline. */
export const TIMELINE_PAGE = 10;

/**
 * An entity's timeline: every relation on it, current or closed, oldest first (`history`),
 * each with who declared it and, if it was closed, who closed it, when and why; a page at a
 * time ("Show more").
 */
export function timelineSection(agent: AgentMemory, entity: string, scope: { project_id?: string; channel?: string }): HTMLElement {
  const title = h('h3', { dataset: { testid: 'timeline-title' } }, 'Timeline');
  const list = h('ol', { class: 'records timeline', dataset: { testid: 'timeline' } });
  const status = h('p', { class: 'muted', dataset: { testid: 'timeline-status' } }, 'Reading the timeline…');
  const more = h('button', { type: 'button', dataset: { testid: 'timeline-more' }, hidden: true }, 'Show more');
  const root = h('section', { class: 'timeline-section', 'aria-label': `Timeline of ${entity}` }, title, status, list, more);
  let offset: number | undefined = 0;

  async function page(): Promise<void> {
    if (offset === undefined) return;
    more.disabled = true;
    try {
      const res = await agent.history({ entity, limit: TIMELINE_PAGE, offset, ...scope });
      list.append(...res.relations.map(item));
      offset = res.next_offset;
      root.dataset.total = String(res.total);
      root.dataset.shown = String(list.children.length);
      title.textContent = `Timeline (${res.total})`;
      status.textContent = res.total
        ? `${plural(res.total, 'relation')} on ${entity}, current and closed, oldest first${list.children.length < res.total ? `: ${list.children.length} shown` : ''}.`
        : `No relation on ${entity}, current or closed.`;
      more.hidden = offset === undefined;
      more.textContent = `Show ${Math.min(TIMELINE_PAGE, res.total - list.children.length)} more`;
    } catch (err) {
      status.textContent = `Could not read the timeline: ${describeError(err)}`;
      status.className = 'error';
    } finally {
      more.disabled = false;
    }
  }
  more.addEventListener('click', () => void page());
  void page();
  return root;
}

function item(r: HistoryRelation): HTMLElement {
  const start = r.valid_from || r.declared_at;
  return h('li', { dataset: { testid: 'timeline-item', relation: String(r.id), closed: String(!!r.closed_by) }, class: r.valid_to ? 'ended' : '' },
    h('div', { class: 'meta' },
      h('time', { datetime: start }, r.valid_from ? `from ${instantLabel(r.valid_from)}` : instantLabel(r.declared_at)),
      h('span', {}, `declared by ${r.declared_by}${r.valid_from ? ` at ${instantLabel(r.declared_at)}` : ''}`),
      r.valid_to ? h('span', { class: 'ended-tag', dataset: { testid: 'timeline-until' } }, `until ${instantLabel(r.valid_to)}`) : h('span', {}, 'holds on')),
    h('p', {}, `${r.subject_name} —${r.predicate}→ ${r.object_name}`),
    r.closed_by ? h('p', { class: 'closure', dataset: { testid: 'timeline-closure' } },
      `Closed by ${r.closed_by}${r.closed_at ? ` at ${instantLabel(r.closed_at)}` : ''}${r.closed_reason ? `: ${r.closed_reason}` : ''}`) : null);
}
