// Records linked to the graph: every ref the page shows (`mem:163`, `ep:4`) is a button that
// opens the record whole (text, time, source, project and channel, when it expires or since
// when it no longer holds, the entities mentioning it), ended or not; memories carry chips of those entities, each a click from the graph; reconstruct's
// claims show their text.
//
// Which entities mention a record: the package has no call from a record to its entities
// (traverse lists an entity's refs, at most 100, lowest first; get_contents and
// list_memories carry no mentions). The one public call that holds every mention, exactly,
// is `export_memories` (a `mention` line per entity and ref, with each entity's and record's
// project and channel), so the index is built from it: once per agent, lazily (when a list or
// a record first needs it), and again only after a write. It costs the agent's whole export:
// for a 5,000-entity memory (2,500 notes, 20,000 relations, 3.7 MB of JSONL) 120–180 ms in
// Chromium, once (the memories tab showed its first 50 memories with their chips in 262 ms),
// while traversing every entity instead would be 5,000 calls and still cut each at 100 refs. Only the entity, mention, memory and episode lines are parsed, and a
// memory line only for its ref, project and channel.

import type { AgentMemory, ContentItem, ReconstructedItem } from 'associative-memory';
import { describeError, h, plural, shortTime, sourceText } from './dom.js';

/** An entity as the index knows it. */
export interface IndexedEntity { id: number; name: string; project_id: string; channel: string }

/** Where a record sits, and who mentions it. */
interface IndexedRecord { project_id: string; channel: string; entities: number[] }

/** The ref → entities index of one agent (see the file's head for why it is built from an export). */
export class RecordIndex {
  #agent: AgentMemory | null = null;
  #built: Promise<{ records: Map<string, IndexedRecord>; entities: Map<number, IndexedEntity> }> | null = null;

  /** Forgets what was read: after a write, or when another agent or memory is shown. */
  forget(): void {
    this.#built = null;
  }

  async #read(agent: AgentMemory) {
    if (this.#agent !== agent || !this.#built) {
      this.#agent = agent;
      this.#built = build(agent);
      this.#built.catch(() => { if (this.#agent === agent) this.#built = null; });
    }
    return this.#built;
  }

  /** The entities mentioning `ref`, by name. */
  async entitiesOf(agent: AgentMemory, ref: string): Promise<IndexedEntity[]> {
    const { records, entities } = await this.#read(agent);
    return (records.get(ref)?.entities ?? []).map((id) => entities.get(id)!).filter(Boolean).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The project and channel of `ref`, when the agent holds it. */
  async whereOf(agent: AgentMemory, ref: string): Promise<{ project_id: string; channel: string } | undefined> {
    const r = (await this.#read(agent)).records.get(ref);
    return r && { project_id: r.project_id, channel: r.channel };
  }
}

async function build(agent: AgentMemory) {
  const { jsonl } = await agent.exportMemories();
  const records = new Map<string, IndexedRecord>();
  const entities = new Map<number, IndexedEntity>();
  const record = (ref: string) => records.get(ref) ?? records.set(ref, { project_id: '', channel: '', entities: [] }).get(ref)!;
  for (const line of jsonl.split('\n')) {
    const kind = line.match(/^\{"_type":"(\w+)"/)?.[1];
    if (kind === 'mention') {
      const m = JSON.parse(line) as { entity: number; ref: string };
      record(m.ref).entities.push(m.entity);
    } else if (kind === 'entity') {
      const e = JSON.parse(line) as IndexedEntity;
      entities.set(e.id, { id: e.id, name: e.name, project_id: e.project_id, channel: e.channel });
    } else if (kind === 'memory' || kind === 'episode') {
      const r = JSON.parse(line) as { id: number; project_id: string; channel: string };
      Object.assign(record(`${kind === 'memory' ? 'mem' : 'ep'}:${r.id}`), { project_id: r.project_id, channel: r.channel });
    }
  }
  return { records, entities };
}

/** What the record links need of the page. */
export interface RecordHost {
  agent(): AgentMemory | null;
  /** Whether an entity of (project, channel) is read under the page's filters. */
  inScope(project: string, channel: string): boolean;
  /** Shows an entity on the graph (switching to the graph tab). */
  showOnGraph(name: string): void;
}

/** Chips shown per record at most; a "+N more" button shows the rest (a record may mention hundreds). */
const CHIPS = 12;

export interface RecordLinks {
  readonly index: RecordIndex;
  /** A button showing `ref` that opens its record. */
  ref(ref: string, label?: string): HTMLButtonElement;
  /** Fills `into` with chips of the entities mentioning `ref` (in the filters' scope). */
  chips(ref: string, into: HTMLElement): Promise<void>;
  /** Opens the record dialog for `ref`. */
  open(ref: string): Promise<void>;
  /** The text of each claim of a reconstruct item: the head's, the excerpts', then the rest read with get_contents. */
  claimTexts(item: ReconstructedItem): Promise<Map<string, string>>;
}

export function mountRecords(host: RecordHost): RecordLinks {
  const index = new RecordIndex();
  const title = h('h2', { id: 'record-title', dataset: { testid: 'record-title' } });
  const body = h('div', { class: 'record-body', dataset: { testid: 'record-body' } });
  const close = h('button', { type: 'button', dataset: { testid: 'record-close' }, onclick: () => dialog.close() }, 'Close');
  const dialog = h('dialog', { class: 'record', 'aria-labelledby': 'record-title', dataset: { testid: 'record-dialog' } },
    title, body, h('div', { class: 'row' }, close));
  document.body.append(dialog);
  let seq = 0;

  async function open(ref: string): Promise<void> {
    const agent = host.agent();
    if (!agent) return;
    const mine = ++seq;
    title.textContent = ref;
    dialog.dataset.ref = ref;
    body.replaceChildren(h('p', { class: 'muted' }, 'Reading…'));
    if (!dialog.open) dialog.showModal();
    close.focus();
    try {
      // Without the index (its export failed), the record still opens: project and channel read "unknown".
      // Read at all time: a record that expired or was invalidated opens too, saying so.
      const [res, where] = await Promise.all([agent.getContents({ refs: [ref], as_of: 'all' }), index.whereOf(agent, ref).catch(() => undefined)]);
      if (mine !== seq) return;
      const item = res.items[0];
      if (!item) {
        body.replaceChildren(h('p', { class: 'error', dataset: { testid: 'record-missing' } }, `${ref} names no record of agent ${agent.agentId} (deleted?).`));
        return;
      }
      const chipBox = h('div', { class: 'chips', dataset: { testid: 'record-entities' } });
      title.textContent = `${ref.startsWith('ep:') ? 'Episode' : 'Memory'} ${ref}`;
      body.replaceChildren(
        ...ended(item),
        h('p', { class: 'record-text', dataset: { testid: 'record-content' } }, item.content),
        h('dl', { class: 'facts' },
          h('dt', {}, 'time'), h('dd', { dataset: { testid: 'record-dialog-time' } }, h('time', { datetime: item.timestamp }, `${shortTime(item.timestamp)} UTC`)),
          h('dt', {}, 'source'), h('dd', { dataset: { testid: 'record-dialog-source' } }, sourceText(item.source) || 'none'),
          h('dt', {}, 'project'), h('dd', { dataset: { testid: 'record-project' } }, where ? where.project_id || 'global pool' : 'unknown'),
          h('dt', {}, 'channel'), h('dd', { dataset: { testid: 'record-channel' } }, where ? where.channel || 'every channel' : 'unknown'),
          ...ends(item),
          ...metadata(item)),
        h('h3', {}, 'Entities mentioning it'), chipBox);
      await chips(ref, chipBox);
    } catch (err) {
      if (mine === seq) body.replaceChildren(h('p', { class: 'error', role: 'alert' }, `Could not read ${ref}: ${describeError(err)}`));
    }
  }

  async function chips(ref: string, into: HTMLElement): Promise<void> {
    const agent = host.agent();
    if (!agent) return;
    const all = (await index.entitiesOf(agent, ref)).filter((e) => host.inScope(e.project_id, e.channel));
    into.dataset.count = String(all.length);
    const chip = (e: IndexedEntity) => h('button', {
      type: 'button', class: 'chip entity-chip', dataset: { testid: 'entity-chip', entity: String(e.id) }, title: `Show ${e.name} on the graph`,
      onclick: () => { if (dialog.open) dialog.close(); host.showOnGraph(e.name); },
    }, e.name, h('span', { class: 'visually-hidden' }, ' — show on graph'));
    if (!all.length) { into.replaceChildren(h('span', { class: 'muted' }, 'no entity mentions it')); return; }
    const rest = all.length - CHIPS;
    into.replaceChildren(...all.slice(0, CHIPS).map(chip),
      rest > 0 ? h('button', { type: 'button', class: 'link', dataset: { testid: 'chips-more' }, onclick: () => into.replaceChildren(...all.map(chip)) }, `+${plural(rest, 'more entity', 'more entities')}`) : '');
  }

  return {
    index,
    ref: (ref, label = ref) => h('button', { type: 'button', class: 'link ref', dataset: { testid: 'ref', ref }, title: `Open the record ${ref}`, onclick: () => void open(ref) }, label),
    chips: (ref, into) => chips(ref, into).catch((err) => { into.replaceChildren(h('span', { class: 'error' }, `entities not read: ${describeError(err)}`)); }),
    open,
    async claimTexts(item) {
      const texts = new Map<string, string>([[item.head_ref, item.content], ...(item.excerpts ?? []).map((x) => [x.ref, x.content] as [string, string])]);
      const agent = host.agent();
      const rest = [...new Set(item.claims.map((c) => c.ref).filter((r) => !texts.has(r)))];
      for (let i = 0; agent && i < rest.length; i += 20) {
        for (const it of (await agent.getContents({ refs: rest.slice(i, i + 20) })).items) texts.set(it.ref, it.content);
      }
      return texts;
    },
  };
}

/** When the record stops holding, as rows: its expiry, and since when and why it is no longer true. */
function ends(item: ContentItem): HTMLElement[] {
  return [
    ...(item.expires_at ? [h('dt', {}, 'expires'), h('dd', { dataset: { testid: 'record-expires' } }, h('time', { datetime: item.expires_at }, `${shortTime(item.expires_at)} UTC`))] : []),
    ...(item.invalid_at ? [h('dt', {}, 'no longer true'), h('dd', { dataset: { testid: 'record-invalid' } },
      h('time', { datetime: item.invalid_at }, `since ${shortTime(item.invalid_at)} UTC`), item.invalid_reason ? `: ${item.invalid_reason}` : '')] : []),
  ];
}

/** A notice, when the record no longer holds now: reads leave it out, and it stays as history. */
function ended(item: ContentItem): HTMLElement[] {
  const now = Date.now();
  const at = (t?: string) => (t && Date.parse(t) <= now ? t : undefined);
  const invalid = at(item.invalid_at);
  const expired = at(item.expires_at);
  if (!invalid && !expired) return [];
  const why = invalid ? `invalidated on ${shortTime(invalid)} UTC${item.invalid_reason ? ` (${item.invalid_reason})` : ''}` : `expired on ${shortTime(expired)} UTC`;
  return [h('p', { class: 'notice', role: 'status', dataset: { testid: 'record-ended' } }, `No longer holds: ${why}. Reads leave it out unless they ask for all time; it is kept as history.`)];
}

/** The record's metadata, one row per key, when it has some. */
function metadata(item: ContentItem): HTMLElement[] {
  const entries = Object.entries(item.metadata ?? {});
  return entries.length ? [h('dt', {}, 'metadata'), h('dd', { dataset: { testid: 'record-metadata' } }, entries.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join('; '))] : [];
}
