// `associative-memory/view`: an interactive graph of `traverse` neighbourhoods, drawn with
// cytoscape.js and the fcose layout, mounted into any element of a host app on any opened
// memory (or an agent handle of one).
//
//   import { openMemory } from 'associative-memory';
//   import { mountGraphView } from 'associative-memory/view';
//   const memory = await openMemory();
//   const view = mountGraphView(document.querySelector('#graph'), memory,
//     { agent_id: 'pm-bot', entity: 'Kaito', max_hops: 2, onSelect: (s) => console.log(s) });
//
// cytoscape and cytoscape-fcose are this subpath's dependencies only (optional peers of the
// package): the core entry never imports them.

import cytoscape from 'cytoscape';
import type { Core, ElementDefinition, EventObject, NodeSingular, StylesheetJson } from 'cytoscape';
import fcose from 'cytoscape-fcose';
import type { Claim, TraverseEntity, TraverseRelation, TraverseResponse } from './types.js';

/** What the view needs of a memory: `traverse`. An `AssociativeMemory` or an `AgentMemory` both fit. */
export interface TraversingMemory {
  traverse(options: any): Promise<TraverseResponse>;
}

/** Options of `mountGraphView`. */
export interface GraphViewOptions {
  /** The agent whose graph is drawn; not needed with an agent handle (`memory.agent(id)`). */
  agent_id?: string;
  project_id?: string;
  channel?: string;
  /** Draw this entity's neighbourhood at once (any of its names). */
  entity?: string;
  /** Hops of the first neighbourhood, 0–5 (default 1). Expansions add one hop around a node. */
  max_hops?: number;
  /** Entities per traverse and refs per entity, 1–100 (default 20). */
  limit?: number;
  /** Called when a node or an edge is selected (tap, click, or Enter in the list), null when cleared. */
  onSelect?: (selection: GraphSelection | null) => void;
  /** Called after every change of the drawn graph. */
  onChange?: (state: GraphState) => void;
  /** Selecting a node also expands it by one hop (default true). */
  expandOnSelect?: boolean;
  /** Render the keyboard-reachable list of entities and relations under the canvas (default true). */
  list?: boolean;
}

/** An entity as drawn: the traverse entity plus where it sits. */
export interface ViewEntity extends TraverseEntity {
  /** Hops from the first neighbourhood's start (expansions add to the expanded node's ring). */
  ring: number;
  /** Records mentioning it (listed + omitted). */
  mention_count: number;
  /** It was expanded (its one-hop neighbourhood is drawn). */
  expanded: boolean;
}

export type GraphSelection =
  | { kind: 'entity'; entity: ViewEntity }
  | { kind: 'relation'; relation: TraverseRelation; subject: ViewEntity; object: ViewEntity };

/** What the last traverse cut, so a page can say what and how much. */
export interface CutReport {
  /** Entities past `limit` in the last traverse. */
  entities_omitted: number;
  /** `bounds.omitted` of the last traverse: 'max_hops' (more lies beyond) and/or 'limit'. */
  omitted: string[];
  /** Entities whose mention list was cut at `limit`, with how many refs were left out. */
  mentions_omitted: { name: string; count: number }[];
}

export interface GraphState {
  /** The entity asked for by `show` (as typed), null before. */
  start: string | null;
  entities: ViewEntity[];
  relations: TraverseRelation[];
  /** The last traverse response (of `show`, `expand` or `refresh`). */
  last: TraverseResponse | null;
  cut: CutReport;
  /** Set when the start entity does not exist (any more). */
  missing?: string;
}

/**
 * A record to mark on the graph: a `reconstruct` claim fits as it is. A claim the walk
 * reached (`path`) lights exactly the relations it followed and the entities along them; a
 * claim retrieval found lights the entities that mention it.
 */
export type RecordMark = Pick<Claim, 'ref' | 'why' | 'hops' | 'path' | 'via_entity'>;

export interface GraphView {
  /** The cytoscape instance, for hosts that want more. */
  readonly cy: Core;
  /** Replaces the graph with `entity`'s neighbourhood. */
  show(entity: string, options?: { max_hops?: number; limit?: number }): Promise<GraphState>;
  /** Adds a drawn entity's one-hop neighbourhood in place; existing nodes keep their positions. Resolves to the number of nodes added. */
  expand(entityId: number): Promise<number>;
  /** Re-runs every traverse the graph is made of (after a write), keeping positions. */
  refresh(): Promise<GraphState>;
  /** Sets max_hops / limit for the next `show` (and `refresh`). */
  setBounds(bounds: { max_hops?: number; limit?: number }): void;
  /** Marks the relations and entities the walk followed to these records (or, for a seed, the entities mentioning it); returns what lit up. */
  highlight(marks: RecordMark[]): { nodes: number; edges: number };
  clearHighlight(): void;
  /** Selects an entity or a relation as a tap would (without expanding), or clears the selection. */
  select(target: { entity: number } | { relation: number } | null): void;
  state(): GraphState;
  /** Fits the drawing into the element. */
  fit(): void;
  /** Removes everything drawn (e.g. when another memory is opened). */
  clear(): void;
  destroy(): void;
}

const RING_COLOURS = ['#e8590c', '#1971c2', '#2f9e44', '#9c36b5', '#e67700', '#495057'];
const RING_BORDERS = ['#a33b00', '#0b4f8a', '#1b6b2b', '#6a1b80', '#a34f00', '#212529'];

let registered = false;
function registerLayout(): void {
  if (registered) return;
  cytoscape.use(fcose as unknown as cytoscape.Ext);
  registered = true;
}

const STYLE_ID = 'amv-style';
const CSS = `
.amv-root{position:relative;display:flex;flex-direction:column;min-height:0;font:13px/1.4 system-ui,sans-serif;color:#212529}
.amv-canvas{position:relative;flex:1 1 auto;min-height:200px;background:#fbfbfc;border:1px solid #dee2e6;border-radius:6px;overflow:hidden}
.amv-canvas:focus-visible{outline:3px solid #1971c2;outline-offset:1px}
.amv-legend{position:absolute;left:8px;bottom:6px;z-index:2;display:flex;gap:8px;flex-wrap:wrap;font-size:11px;background:rgba(255,255,255,.85);padding:2px 6px;border-radius:4px;pointer-events:none}
.amv-legend i{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:3px;vertical-align:-1px;border:2px solid}
.amv-empty[hidden]{display:none}
.amv-empty{position:absolute;inset:0;display:flex;align-items:center;justify-content:center;color:#868e96;pointer-events:none;padding:1em;text-align:center}
.amv-list{margin-top:6px;font-size:12px}
.amv-list summary{cursor:pointer;color:#495057}
.amv-list ul{list-style:none;margin:4px 0;padding:0;display:flex;flex-wrap:wrap;gap:4px;max-height:9em;overflow:auto}
.amv-list button{font:inherit;border:1px solid #ced4da;background:#fff;border-radius:4px;padding:1px 6px;cursor:pointer;color:#212529}
.amv-list button[aria-pressed=true]{background:#212529;color:#fff}
.amv-list button:focus-visible{outline:3px solid #1971c2}
`;

function injectStyle(doc: Document): void {
  if (doc.getElementById(STYLE_ID)) return;
  const style = doc.createElement('style');
  style.id = STYLE_ID;
  style.textContent = CSS;
  doc.head.append(style);
}

function stylesheet(): StylesheetJson {
  const rings = RING_COLOURS.map((colour, i) => ({
    selector: `node[ring = ${i}]`,
    style: { 'background-color': colour, 'border-color': RING_BORDERS[i] },
  }));
  return [
    {
      selector: 'node',
      style: {
        label: 'data(label)', width: 'data(size)', height: 'data(size)',
        'font-size': 11, color: '#212529', 'text-valign': 'bottom', 'text-halign': 'center', 'text-margin-y': 3,
        'text-wrap': 'wrap', 'text-max-width': '140px',
        'text-background-color': '#ffffff', 'text-background-opacity': 0.8, 'text-background-padding': '1px',
        'border-width': 2, 'background-color': RING_COLOURS[5], 'border-color': RING_BORDERS[5],
        'min-zoomed-font-size': 6,
      },
    },
    ...rings,
    { selector: 'node[ring >= 5]', style: { 'background-color': RING_COLOURS[5], 'border-color': RING_BORDERS[5] } },
    { selector: 'node[ring = 0]', style: { 'border-width': 5, 'border-style': 'double', 'font-weight': 'bold' } },
    { selector: 'node.expanded', style: { 'border-style': 'dashed', 'border-width': 3 } },
    {
      selector: 'edge',
      style: {
        width: 1.5, 'line-color': '#adb5bd', 'target-arrow-color': '#868e96', 'target-arrow-shape': 'triangle',
        'curve-style': 'bezier', 'arrow-scale': 0.9, label: 'data(predicate)', 'font-size': 9, color: '#495057',
        'text-rotation': 'autorotate', 'text-background-color': '#fbfbfc', 'text-background-opacity': 0.9,
        'text-background-padding': '1px', 'min-zoomed-font-size': 7,
      },
    },
    { selector: 'edge[declared_by = "operator"]', style: { 'line-style': 'dashed', 'line-color': '#5c7cfa', 'target-arrow-color': '#5c7cfa' } },
    { selector: '.amv-dim', style: { opacity: 0.28 } },
    {
      selector: 'node.amv-seed',
      style: { 'underlay-color': '#d6336c', 'underlay-padding': 7, 'underlay-opacity': 0.45, 'underlay-shape': 'ellipse' },
    },
    {
      selector: 'node.amv-walked',
      style: { 'underlay-color': '#fab005', 'underlay-padding': 9, 'underlay-opacity': 0.7, 'underlay-shape': 'ellipse', 'font-weight': 'bold' },
    },
    { selector: 'edge.amv-walked', style: { width: 4, 'line-color': '#f08c00', 'target-arrow-color': '#f08c00', color: '#a34f00', 'font-weight': 'bold', 'z-index': 10 } },
    { selector: 'node:selected', style: { 'overlay-color': '#212529', 'overlay-opacity': 0.18, 'overlay-padding': 6 } },
    { selector: 'edge:selected', style: { width: 4, 'line-color': '#212529', 'target-arrow-color': '#212529', color: '#000' } },
  ];
}

interface Query { entity: string; max_hops: number; limit: number; base: number; expands?: number }

const nodeId = (id: number) => `e${id}`;
const edgeId = (id: number) => `r${id}`;
const sizeOf = (mentions: number) => Math.round(Math.min(64, 18 + 7 * Math.sqrt(mentions)));

/**
 * Mounts a graph view into `element` (give it a height). Resolves nothing by itself: call
 * `show(entity)`, or pass `entity` to draw at once.
 */
export function mountGraphView(element: HTMLElement, memory: TraversingMemory, options: GraphViewOptions = {}): GraphView {
  registerLayout();
  const doc = element.ownerDocument;
  injectStyle(doc);
  const scope: Record<string, string> = {};
  for (const k of ['agent_id', 'project_id', 'channel'] as const) if (options[k] !== undefined) scope[k] = options[k]!;
  let maxHops = options.max_hops ?? 1;
  let limit = options.limit ?? 20;
  const expandOnSelect = options.expandOnSelect ?? true;

  element.classList.add('amv-root');
  const canvas = doc.createElement('div');
  canvas.className = 'amv-canvas';
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', 'Graph of entities and relations (arrows pan, + and - zoom, 0 fits; the list below selects)');
  const legend = doc.createElement('div');
  legend.className = 'amv-legend';
  legend.setAttribute('aria-hidden', 'true');
  legend.innerHTML = 'hops ' + RING_COLOURS.map((c, i) => `<span><i style="background:${c};border-color:${RING_BORDERS[i]}"></i>${i === 5 ? '5+' : i}</span>`).join('');
  const empty = doc.createElement('div');
  empty.className = 'amv-empty';
  empty.textContent = 'Search an entity to draw its neighbourhood.';
  const host = doc.createElement('div');
  host.style.position = 'absolute';
  host.style.inset = '0';
  canvas.append(host, legend, empty);
  element.append(canvas);

  let listRoot: HTMLDetailsElement | null = null;
  let entityList: HTMLUListElement | null = null;
  let relationList: HTMLUListElement | null = null;
  let listSummary: HTMLElement | null = null;
  if (options.list ?? true) {
    listRoot = doc.createElement('details');
    listRoot.className = 'amv-list';
    listSummary = doc.createElement('summary');
    entityList = doc.createElement('ul');
    entityList.setAttribute('aria-label', 'Entities');
    relationList = doc.createElement('ul');
    relationList.setAttribute('aria-label', 'Relations');
    listRoot.append(listSummary, entityList, relationList);
    element.append(listRoot);
  }

  const cy = cytoscape({
    container: host,
    style: stylesheet(),
    minZoom: 0.1,
    maxZoom: 4,
    boxSelectionEnabled: false,
    selectionType: 'single',
    pixelRatio: 1,
    textureOnViewport: true,
  });

  const entities = new Map<number, ViewEntity>();
  const relations = new Map<number, TraverseRelation>();
  let queries: Query[] = [];
  let start: string | null = null;
  let missing: string | undefined;
  let last: TraverseResponse | null = null;
  let marks: RecordMark[] = [];
  let chain: Promise<unknown> = Promise.resolve();

  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task, task);
    chain = run.catch(() => undefined);
    return run;
  };

  function setState(state: string): void {
    element.dataset.state = state;
  }
  setState('idle');

  function cutReport(): CutReport {
    const mentions: { name: string; count: number }[] = [];
    for (const e of last?.entities ?? []) if (e.mentions_omitted) mentions.push({ name: e.name, count: e.mentions_omitted });
    return { entities_omitted: last?.entities_omitted ?? 0, omitted: [...(last?.bounds?.omitted ?? [])], mentions_omitted: mentions };
  }

  function state(): GraphState {
    const s: GraphState = {
      start, entities: [...entities.values()], relations: [...relations.values()], last, cut: cutReport(),
    };
    if (missing !== undefined) s.missing = missing;
    return s;
  }

  async function run(q: Query): Promise<TraverseResponse> {
    return memory.traverse({ ...scope, entity: q.entity, max_hops: q.max_hops, limit: q.limit });
  }

  /** Folds responses into the entity and relation maps, ring by the query's base. */
  function fold(results: [Query, TraverseResponse][]): void {
    entities.forEach((e) => { e.expanded = false; });
    const next = new Map<number, ViewEntity>();
    const nextRelations = new Map<number, TraverseRelation>();
    for (const [q, res] of results) {
      for (const e of res.entities ?? []) {
        const count = (e.mentions?.length ?? 0) + (e.mentions_omitted ?? 0);
        const ring = q.base + e.hops;
        const have = next.get(e.id);
        if (!have) {
          next.set(e.id, { ...e, ring, mention_count: count, expanded: false });
        } else {
          have.ring = Math.min(have.ring, ring);
          have.aliases = e.aliases ?? have.aliases;
          if (count >= have.mention_count) {
            have.mention_count = count;
            have.mentions = e.mentions;
            if (e.mentions_omitted) have.mentions_omitted = e.mentions_omitted; else delete have.mentions_omitted;
          }
        }
      }
      for (const r of res.relations ?? []) nextRelations.set(r.id, r);
    }
    for (const q of queries) if (q.expands !== undefined) { const e = next.get(q.expands); if (e) e.expanded = true; }
    entities.clear();
    next.forEach((v, k) => entities.set(k, v));
    relations.clear();
    nextRelations.forEach((v, k) => { if (entities.has(v.subject) && entities.has(v.object)) relations.set(k, v); });
  }

  function labelOf(e: ViewEntity): string {
    return e.name;
  }

  /** Brings cytoscape in line with the maps. New nodes start around `anchor`; returns them. */
  function draw(anchor?: number): NodeSingular[] {
    const added: NodeSingular[] = [];
    cy.batch(() => {
      cy.elements().forEach((el) => {
        const id = el.id();
        const keep = id.startsWith('e') ? entities.has(Number(id.slice(1))) : relations.has(Number(id.slice(1)));
        if (!keep) el.remove();
      });
      const centre = anchor !== undefined ? cy.getElementById(nodeId(anchor)) : null;
      const around = centre && centre.nonempty() ? centre.position() : { x: 0, y: 0 };
      const fresh = [...entities.values()].filter((e) => cy.getElementById(nodeId(e.id)).empty());
      fresh.forEach((e, i) => {
        const angle = (2 * Math.PI * i) / Math.max(1, fresh.length);
        const radius = 60 + 6 * fresh.length;
        const def: ElementDefinition = {
          group: 'nodes',
          data: { id: nodeId(e.id), entity: e.id, label: labelOf(e), name: e.name, ring: Math.min(5, e.ring), size: sizeOf(e.mention_count) },
          position: { x: around.x + radius * Math.cos(angle), y: around.y + radius * Math.sin(angle) },
        };
        added.push(cy.add(def) as unknown as NodeSingular);
      });
      for (const e of entities.values()) {
        const n = cy.getElementById(nodeId(e.id));
        n.data({ name: e.name, label: labelOf(e), ring: Math.min(5, e.ring), size: sizeOf(e.mention_count) });
        n.toggleClass('expanded', e.expanded);
      }
      for (const r of relations.values()) {
        if (cy.getElementById(edgeId(r.id)).nonempty()) continue;
        cy.add({ group: 'edges', data: { id: edgeId(r.id), relation: r.id, source: nodeId(r.subject), target: nodeId(r.object), predicate: r.predicate, declared_by: r.declared_by } });
      }
    });
    empty.hidden = entities.size > 0;
    if (entities.size === 0) empty.textContent = missing ? `No entity is named or aliased “${missing}”.` : 'Search an entity to draw its neighbourhood.';
    element.dataset.nodes = String(cy.nodes().length);
    element.dataset.edges = String(cy.edges().length);
    renderList();
    applyMarks();
    return added;
  }

  function layout(added: NodeSingular[], full: boolean): Promise<void> {
    const nodes = cy.nodes();
    if (nodes.empty()) return Promise.resolve();
    if (!full && added.length === 0) return Promise.resolve();
    const addedIds = new Set(added.map((n) => n.id()));
    const fixed = full ? undefined : nodes.filter((n) => !addedIds.has(n.id())).map((n) => ({ nodeId: n.id(), position: { ...(n as NodeSingular).position() } }));
    const opts = {
      name: 'fcose', animate: false, randomize: full, quality: full ? 'default' : 'proof', fit: false,
      nodeDimensionsIncludeLabels: false, idealEdgeLength: Math.max(55, Math.min(115, cy.width() / 7)), nodeRepulsion: 12000, edgeElasticity: 0.45,
      nodeSeparation: 80, numIter: full ? 2500 : 1200, tile: true, padding: 30,
      ...(fixed && fixed.length ? { fixedNodeConstraint: fixed } : {}),
    };
    return new Promise<void>((resolve) => {
      try {
        const l = cy.layout(opts as unknown as cytoscape.LayoutOptions);
        l.one('layoutstop', () => resolve());
        l.run();
      } catch {
        resolve(); // the ring placement of draw() stands
      }
    }).then(() => {
      if (full) {
        fitCapped();
        // Labels are measured on the first render: fit again once they are, so none hangs outside.
        requestAnimationFrame(() => { if (!cy.destroyed()) fitCapped(); });
      }
      else if (added.length) {
        // Keep what was added in sight without moving what the person was looking at more than needed.
        const box = cy.elements().boundingBox();
        const ext = cy.extent();
        if (box.x1 < ext.x1 || box.x2 > ext.x2 || box.y1 < ext.y1 || box.y2 > ext.y2) fitCapped();
      }
    });
  }

  /** Fits the drawing, but never zooms in past 1.5 (a three-node graph stays readable, not huge). */
  function fitCapped(): void {
    cy.fit(undefined, 36);
    if (cy.zoom() > 1.5) cy.zoom({ level: 1.5, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
    if (cy.zoom() === 1.5) cy.center();
  }

  function changed(): void {
    options.onChange?.(state());
  }

  function selectionOf(target: { entity: number } | { relation: number }): GraphSelection | null {
    if ('entity' in target) {
      const e = entities.get(target.entity);
      return e ? { kind: 'entity', entity: e } : null;
    }
    const r = relations.get(target.relation);
    if (!r) return null;
    const subject = entities.get(r.subject);
    const object = entities.get(r.object);
    return subject && object ? { kind: 'relation', relation: r, subject, object } : null;
  }

  function markSelected(target: { entity: number } | { relation: number } | null): void {
    cy.elements(':selected').unselect();
    if (target) cy.getElementById('entity' in target ? nodeId(target.entity) : edgeId(target.relation)).select();
    element.dataset.selected = target ? ('entity' in target ? nodeId(target.entity) : edgeId(target.relation)) : '';
    for (const b of element.querySelectorAll<HTMLButtonElement>('.amv-list button')) {
      b.setAttribute('aria-pressed', String(b.dataset.key === element.dataset.selected));
    }
  }

  function choose(target: { entity: number } | { relation: number }, viaTap: boolean): void {
    markSelected(target);
    options.onSelect?.(selectionOf(target));
    if (viaTap && expandOnSelect && 'entity' in target) {
      const e = entities.get(target.entity);
      if (e && !e.expanded) void view.expand(e.id).catch((err) => reportError(err));
    }
  }

  function reportError(err: unknown): void {
    setState('error');
    element.dataset.error = String((err as Error)?.message ?? err);
    console.warn('graph view:', err);
  }

  function renderList(): void {
    if (!entityList || !relationList || !listSummary) return;
    listSummary.textContent = `Graph as a list: ${entities.size} ${entities.size === 1 ? 'entity' : 'entities'}, ${relations.size} ${relations.size === 1 ? 'relation' : 'relations'}`;
    const sorted = [...entities.values()].sort((a, b) => a.ring - b.ring || a.name.localeCompare(b.name));
    entityList.replaceChildren(...sorted.map((e) => {
      const li = doc.createElement('li');
      const b = doc.createElement('button');
      b.type = 'button';
      b.dataset.key = nodeId(e.id);
      b.dataset.entity = String(e.id);
      b.dataset.name = e.name;
      b.textContent = `${e.name} · ${e.ring}`;
      b.title = e.aliases?.length ? `${e.name} — also ${e.aliases.join(', ')}` : e.name;
      b.setAttribute('aria-pressed', String(element.dataset.selected === b.dataset.key));
      b.addEventListener('click', () => choose({ entity: e.id }, true));
      li.append(b);
      return li;
    }));
    relationList.replaceChildren(...[...relations.values()].map((r) => {
      const li = doc.createElement('li');
      const b = doc.createElement('button');
      b.type = 'button';
      b.dataset.key = edgeId(r.id);
      b.dataset.relation = String(r.id);
      b.textContent = `${entities.get(r.subject)?.name} —${r.predicate}→ ${entities.get(r.object)?.name}`;
      b.setAttribute('aria-pressed', String(element.dataset.selected === b.dataset.key));
      b.addEventListener('click', () => choose({ relation: r.id }, true));
      li.append(b);
      return li;
    }));
  }

  function applyMarks(): { nodes: number; edges: number } {
    cy.batch(() => {
      cy.elements().removeClass('amv-dim amv-walked amv-seed');
      for (const e of entities.values()) cy.getElementById(nodeId(e.id)).data('label', labelOf(e));
    });
    element.dataset.highlightedRelations = '';
    if (!marks.length) { element.dataset.highlighted = '0'; element.dataset.highlightedEdges = '0'; return { nodes: 0, edges: 0 }; }
    const mentioning = (ref: string) => [...entities.values()].filter((e) => e.mentions?.includes(ref)).map((e) => e.id);
    const seeds = new Set<number>();
    const onPaths = new Set<number>();
    const litRelations = new Set<number>();
    // entity a path ends at → "predicate · n hops" of each path ending there
    const labels = new Map<number, string[]>();
    for (const m of marks) {
      if (!m.path?.length) { mentioning(m.ref).forEach((id) => seeds.add(id)); continue; }
      for (const id of m.path) {
        const r = relations.get(id);
        if (!r) continue;
        litRelations.add(id);
        onPaths.add(r.subject).add(r.object);
      }
      const hops = m.hops ?? m.path.length;
      const path = `${m.why?.slice('relation:'.length)} · ${hops} ${hops === 1 ? 'hop' : 'hops'}`;
      // the label goes on the entity whose mention brought the record in; when it is not
      // drawn, on the drawn entities that mention the record
      const ends = m.via_entity !== undefined && entities.has(m.via_entity) ? [m.via_entity] : mentioning(m.ref);
      for (const id of ends) {
        onPaths.add(id);
        labels.set(id, [...new Set([...(labels.get(id) ?? []), path])]);
      }
    }
    cy.batch(() => {
      for (const id of onPaths) cy.getElementById(nodeId(id)).addClass('amv-walked');
      for (const [id, paths] of labels) {
        const n = cy.getElementById(nodeId(id));
        n.data('label', `${entities.get(id)!.name}\n← ${paths[0]}${paths.length > 1 ? ` (+${paths.length - 1})` : ''}`);
        n.data('paths', paths.join('; '));
      }
      for (const id of seeds) if (!onPaths.has(id)) cy.getElementById(nodeId(id)).addClass('amv-seed');
      for (const id of litRelations) cy.getElementById(edgeId(id)).addClass('amv-walked');
      if (onPaths.size || seeds.size) cy.elements().not(cy.elements('.amv-walked, .amv-seed')).addClass('amv-dim');
    });
    const nodes = new Set([...onPaths, ...seeds]).size;
    element.dataset.highlighted = String(nodes);
    element.dataset.highlightedEdges = String(litRelations.size);
    element.dataset.highlightedRelations = [...litRelations].sort((a, b) => a - b).join(' ');
    return { nodes, edges: litRelations.size };
  }

  cy.on('tap', 'node', (ev: EventObject) => choose({ entity: Number(ev.target.data('entity')) }, true));
  cy.on('tap', 'edge', (ev: EventObject) => choose({ relation: Number(ev.target.data('relation')) }, true));
  cy.on('tap', (ev: EventObject) => {
    if (ev.target === cy) { markSelected(null); options.onSelect?.(null); }
  });
  cy.on('mouseover', 'node', (ev: EventObject) => {
    const e = entities.get(Number(ev.target.data('entity')));
    if (!e) return;
    canvas.title = `${e.name}${e.aliases?.length ? `\naliases: ${e.aliases.join(', ')}` : ''}\n${e.mention_count} ${e.mention_count === 1 ? 'mention' : 'mentions'} · ${e.ring} ${e.ring === 1 ? 'hop' : 'hops'}`;
  });
  cy.on('mouseover', 'edge', (ev: EventObject) => {
    const r = relations.get(Number(ev.target.data('relation')));
    if (r) canvas.title = `${entities.get(r.subject)?.name} —${r.predicate}→ ${entities.get(r.object)?.name}\ndeclared by ${r.declared_by}, ${r.declared_at}`;
  });
  cy.on('mouseout', 'node, edge', () => { canvas.title = ''; });
  // The canvas from the keyboard: arrows pan, + and - zoom, 0 fits; the list below selects.
  canvas.setAttribute('aria-keyshortcuts', 'ArrowLeft ArrowRight ArrowUp ArrowDown + - 0');
  canvas.addEventListener('keydown', (ev: KeyboardEvent) => {
    const step = 40;
    const centre = { x: cy.width() / 2, y: cy.height() / 2 };
    const moves: Record<string, () => void> = {
      ArrowLeft: () => cy.panBy({ x: step, y: 0 }), ArrowRight: () => cy.panBy({ x: -step, y: 0 }),
      ArrowUp: () => cy.panBy({ x: 0, y: step }), ArrowDown: () => cy.panBy({ x: 0, y: -step }),
      '+': () => cy.zoom({ level: cy.zoom() * 1.2, renderedPosition: centre }), '=': () => cy.zoom({ level: cy.zoom() * 1.2, renderedPosition: centre }),
      '-': () => cy.zoom({ level: cy.zoom() / 1.2, renderedPosition: centre }), '0': () => fitCapped(),
    };
    const move = moves[ev.key];
    if (move && !ev.ctrlKey && !ev.metaKey && !ev.altKey) { ev.preventDefault(); move(); }
  });

  // When the element changes size (a list opened, a phone turned), keep the drawing in sight.
  const resize = typeof ResizeObserver === 'function' ? new ResizeObserver(() => {
    cy.resize();
    if (cy.nodes().empty()) return;
    const box = cy.elements().boundingBox();
    const ext = cy.extent();
    if (box.x1 < ext.x1 || box.x2 > ext.x2 || box.y1 < ext.y1 || box.y2 > ext.y2) fitCapped();
  }) : null;
  resize?.observe(canvas);

  const view: GraphView = {
    cy,
    show(entity, bounds = {}) {
      return serial(async () => {
        if (bounds.max_hops !== undefined) maxHops = bounds.max_hops;
        if (bounds.limit !== undefined) limit = bounds.limit;
        setState('loading');
        const q: Query = { entity, max_hops: maxHops, limit, base: 0 };
        const res = await run(q);
        start = entity;
        last = res;
        marks = [];
        markSelected(null);
        if (res.reason === 'no_such_entity') {
          missing = entity;
          queries = [];
          entities.clear(); relations.clear();
          cy.elements().remove();
          draw();
          setState('missing');
          changed();
          return state();
        }
        missing = undefined;
        queries = [q];
        cy.elements().remove();
        fold([[q, res]]);
        const added = draw();
        await layout(added, true);
        setState('ready');
        changed();
        return state();
      });
    },
    expand(entityId) {
      return serial(async () => {
        const e = entities.get(entityId);
        if (!e) return 0;
        setState('loading');
        const q: Query = { entity: e.name, max_hops: 1, limit, base: e.ring, expands: e.id };
        const res = await run(q);
        last = res;
        queries.push(q);
        const results: [Query, TraverseResponse][] = [];
        // Re-fold from what is drawn plus the new response, so rings and mentions stay the minimum / maximum.
        const current: TraverseResponse = {
          entity: '', max_hops: 0, limit: 0,
          entities: [...entities.values()].map((v) => ({ ...v, hops: v.ring })),
          relations: [...relations.values()],
        };
        results.push([{ entity: '', max_hops: 0, limit: 0, base: 0 }, current], [q, res]);
        fold(results);
        const added = draw(e.id);
        await layout(added, false);
        setState('ready');
        changed();
        element.dataset.expanded = String(Number(element.dataset.expanded ?? 0) + 1);
        return added.length;
      });
    },
    refresh() {
      return serial(async () => {
        if (!queries.length && start === null) return state();
        setState('loading');
        const results: [Query, TraverseResponse][] = [];
        const kept: Query[] = [];
        if (!queries.length && start !== null) queries = [{ entity: start, max_hops: maxHops, limit, base: 0 }];
        for (const q of queries) {
          const res = await run(q);
          last = res;
          if (res.reason === 'no_such_entity') continue;
          results.push([q, res]);
          kept.push(q);
        }
        queries = kept;
        missing = kept.length === 0 && start !== null ? start : undefined;
        fold(results);
        const added = draw(kept[kept.length - 1]?.expands);
        await layout(added, cy.nodes().length === added.length);
        setState(missing ? 'missing' : 'ready');
        changed();
        return state();
      });
    },
    setBounds(bounds) {
      if (bounds.max_hops !== undefined) maxHops = bounds.max_hops;
      if (bounds.limit !== undefined) limit = bounds.limit;
    },
    highlight(next) {
      marks = [...next];
      return applyMarks();
    },
    clearHighlight() {
      marks = [];
      applyMarks();
    },
    select(target) {
      markSelected(target);
      options.onSelect?.(target ? selectionOf(target) : null);
    },
    state,
    fit() { fitCapped(); },
    clear() {
      queries = []; start = null; missing = undefined; last = null; marks = [];
      entities.clear(); relations.clear();
      cy.elements().remove();
      markSelected(null);
      draw();
      setState('idle');
      changed();
    },
    destroy() {
      resize?.disconnect();
      cy.destroy();
      canvas.remove();
      listRoot?.remove();
      element.classList.remove('amv-root');
    },
  };

  if (options.entity) void view.show(options.entity).catch((err) => reportError(err));
  return view;
}
