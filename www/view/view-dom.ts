// The graph view on the page: the canvas, its legend and empty message, the keyboard list
// under it, and the cytoscape instance, kept in line with a GraphModel. Everything a host or
// a test can observe on the element (`data-state`, `data-nodes`, `data-selected`, the
// highlight counts) is written here, so the page-facing contract is in one file.

import cytoscape from 'cytoscape';
import type { Core, ElementDefinition, EventObject, NodeSingular } from 'cytoscape';
import fcose from 'cytoscape-fcose';
import { endText, instantText, type GraphModel, type Target, type ViewEntity } from './view-state.js';
import type { TraverseRelation } from './types.js';
import { LABELLED, PALETTES, injectStyle, legendHtml, restyle, sizeOf, stylesheet, type ColorScheme, type ColorSchemeOption, type LayoutName, type NodeSize } from './view-style.js';

/** How the DOM draws, as the view's options and setters give it. */
export interface DomOptions {
  list: boolean;
  layout: LayoutName;
  nodeSize: NodeSize;
  colorScheme: ColorSchemeOption;
}

let registered = false;
function registerLayout(): void {
  if (registered) return;
  cytoscape.use(fcose as unknown as cytoscape.Ext);
  registered = true;
}

const nodeId = (id: number) => `e${id}`;
const edgeId = (id: number) => `r${id}`;
const keyOf = (target: Target) => ('entity' in target ? nodeId(target.entity) : edgeId(target.relation));

/**
 * An edge's changeable data: a relation with an end carries `ended` ("until …", which the
 * stylesheet draws dashed) and a label saying it. Set again on every draw, since closing a
 * relation changes what a later traverse says of the same id.
 */
function edgeData(r: TraverseRelation): Record<string, string> {
  const end = endText(r);
  return { predicate: r.predicate, declared_by: r.declared_by, ...(end ? { ended: end, label: `${r.predicate} (${end})` } : {}) };
}

/** The hover text and list text of a relation's time: its interval, and who closed it, when and why. */
function timeLines(t: TraverseRelation): string[] {
  const out: string[] = [];
  if (t.valid_from || t.valid_to) out.push(`holds ${t.valid_from ? `from ${instantText(t.valid_from)} ` : ''}${t.valid_to ? `until ${instantText(t.valid_to)}` : 'on'}`);
  if (t.closed_by) out.push(`closed by ${t.closed_by}${t.closed_at ? ` at ${instantText(t.closed_at)}` : ''}${t.closed_reason ? `: ${t.closed_reason}` : ''}`);
  return out;
}

/** What the DOM tells the view about the person's actions. */
export interface DomEvents {
  /** A node or an edge was tapped, or its list button pressed. */
  onPick(target: Target): void;
  /** The background was tapped: nothing is selected any more. */
  onClear(): void;
  /** A relation type's toggle in the legend was pressed. */
  onPredicate(predicate: string, shown: boolean): void;
  /** A node was double-clicked (double-tapped), or Enter pressed on its list button: select and expand it. */
  onExpand(entity: number): void;
}

export interface GraphDom {
  readonly cy: Core;
  /** Brings cytoscape and the list in line with the model. New nodes start around `anchor`; returns them. */
  draw(anchor?: number): NodeSingular[];
  /**
   * Lays the graph out: `full` from scratch (and fits it), else under force only `added`
   * moves; rings and rows are laid out whole either way.
   */
  layout(added: NodeSingular[], full: boolean): Promise<void>;
  /** Fits the drawing, but never zooms in past 1.5 (a three-node graph stays readable, not huge). */
  fitCapped(): void;
  /** Shows `target` as selected on the canvas and in the list (null: nothing). */
  markSelected(target: Target | null): void;
  /** Draws the model's highlight; returns how many entities and relations it lit. */
  applyMarks(): { nodes: number; edges: number };
  setState(state: 'idle' | 'loading' | 'ready' | 'missing' | 'error'): void;
  /** Fits again only when part of the drawing is out of view. */
  keepInSight(): void;
  /** Rings one drawn, shown node (class `amv-found`, `data-found`) and centres it; null clears. False when it is not shown. */
  reveal(entity: number | null): boolean;
  /** Counts an expansion on the element (`data-expanded`), so a host or a test can wait for it. */
  countExpansion(): void;
  /** Puts the element in the error state with the message, and logs it. */
  reportError(err: unknown): void;
  /** Switches the layout and lays out everything drawn with it (`data-layout`). */
  setLayout(name: LayoutName): Promise<void>;
  /** Sizes nodes by mentions or by degree from now on (`data-node-size`). */
  setNodeSize(size: NodeSize): void;
  /** Follows the system's colour scheme, or fixes one (`data-scheme` says which applies). */
  setColorScheme(scheme: ColorSchemeOption): void;
  /** The whole drawing as a PNG on the canvas's background, `scale` pixels per unit (at most 4096 px a side). */
  png(scale: number): Promise<Blob>;
  destroy(): void;
}

/** Mounts the canvas (and, with `list`, the keyboard list) into `element`, drawing `model`. */
export function mountDom(element: HTMLElement, model: GraphModel, options: DomOptions, events: DomEvents): GraphDom {
  registerLayout();
  const doc = element.ownerDocument;
  injectStyle(doc);
  const { list } = options;
  let layoutName = options.layout;
  let nodeSize = options.nodeSize;
  element.dataset.layout = layoutName;
  element.dataset.nodeSize = nodeSize;

  // The colour scheme: the system's unless the host fixed one, followed when it changes.
  let schemeOption = options.colorScheme;
  const dark = doc.defaultView?.matchMedia?.('(prefers-color-scheme: dark)') ?? null;
  const schemeNow = (): ColorScheme => (schemeOption === 'auto' ? (dark?.matches ? 'dark' : 'light') : schemeOption);
  let scheme = schemeNow();
  element.dataset.scheme = scheme;

  element.classList.add('amv-root');
  const canvas = doc.createElement('div');
  canvas.className = 'amv-canvas';
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', 'Graph of entities and relations (arrows pan, + and - zoom, 0 fits; the list below selects)');
  const legend = doc.createElement('div');
  legend.className = 'amv-legend';
  legend.setAttribute('aria-hidden', 'true');
  legend.innerHTML = legendHtml();
  const empty = doc.createElement('div');
  empty.className = 'amv-empty';
  empty.textContent = 'Search an entity to draw its neighbourhood.';
  const host = doc.createElement('div');
  host.style.position = 'absolute';
  host.style.inset = '0';
  canvas.append(host, legend, empty);
  element.append(canvas);

  // Zoom and fit buttons over the canvas's top right corner: siblings of the canvas (an
  // image to assistive technology, so it holds no controls), reached by Tab after it.
  const controls = doc.createElement('div');
  controls.className = 'amv-controls';
  controls.setAttribute('role', 'group');
  controls.setAttribute('aria-label', 'Zoom');
  const control = (key: string, text: string, label: string, run: () => void) => {
    const b = doc.createElement('button');
    b.type = 'button';
    b.textContent = text;
    b.title = label;
    b.setAttribute('aria-label', label);
    b.dataset.control = key;
    b.addEventListener('click', run);
    controls.append(b);
  };
  element.append(controls);

  // The legend of relation types drawn, each a toggle that hides or shows its edges.
  const predicates = doc.createElement('div');
  predicates.className = 'amv-predicates';
  predicates.setAttribute('role', 'group');
  predicates.setAttribute('aria-label', 'Relation types (press to hide or show their edges)');
  predicates.hidden = true;
  element.append(predicates);

  let listRoot: HTMLDetailsElement | null = null;
  let entityList: HTMLUListElement | null = null;
  let relationList: HTMLUListElement | null = null;
  let listSummary: HTMLElement | null = null;
  if (list) {
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
    style: stylesheet(scheme),
    minZoom: 0.1,
    maxZoom: 4,
    boxSelectionEnabled: false,
    selectionType: 'single',
    pixelRatio: 1,
    textureOnViewport: true,
  });

  const { entities, relations } = model;

  const centre = () => ({ x: cy.width() / 2, y: cy.height() / 2 });
  const zoomBy = (factor: number) => cy.zoom({ level: cy.zoom() * factor, renderedPosition: centre() });
  control('zoom-in', '+', 'Zoom in', () => zoomBy(1.25));
  control('zoom-out', '−', 'Zoom out', () => zoomBy(1 / 1.25));
  control('fit', 'Fit', 'Fit the graph in view', () => fitCapped());

  function setState(state: string): void {
    element.dataset.state = state;
  }
  setState('idle');

  /** The relations drawn on each entity: those shown (both ends shown, their type not turned off), a loop once. */
  function degrees(): Map<number, number> {
    const out = new Map<number, number>();
    for (const r of relations.values()) {
      if (model.hidden.has(r.subject) || model.hidden.has(r.object) || model.hiddenPredicates.has(r.predicate)) continue;
      out.set(r.subject, (out.get(r.subject) ?? 0) + 1);
      if (r.object !== r.subject) out.set(r.object, (out.get(r.object) ?? 0) + 1);
    }
    return out;
  }

  function draw(anchor?: number): NodeSingular[] {
    const added: NodeSingular[] = [];
    const degree = degrees();
    const size = (e: ViewEntity) => sizeOf(nodeSize === 'degree' ? degree.get(e.id) ?? 0 : e.mention_count);
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
          data: { id: nodeId(e.id), entity: e.id, label: e.name, name: e.name, ring: Math.min(5, e.ring), size: size(e), degree: degree.get(e.id) ?? 0 },
          position: { x: around.x + radius * Math.cos(angle), y: around.y + radius * Math.sin(angle) },
        };
        added.push(cy.add(def) as unknown as NodeSingular);
      });
      for (const e of entities.values()) {
        const n = cy.getElementById(nodeId(e.id));
        n.data({ name: e.name, label: e.name, ring: Math.min(5, e.ring), size: size(e), degree: degree.get(e.id) ?? 0 });
        n.toggleClass('expanded', e.expanded);
        n.toggleClass('amv-hidden', model.hidden.has(e.id));
      }
      for (const r of relations.values()) {
        const edge = cy.getElementById(edgeId(r.id));
        if (edge.empty()) {
          cy.add({ group: 'edges', data: { id: edgeId(r.id), relation: r.id, source: nodeId(r.subject), target: nodeId(r.object), ...edgeData(r) } });
        } else {
          if (!endText(r)) edge.removeData('ended label');
          edge.data(edgeData(r));
        }
        cy.getElementById(edgeId(r.id)).toggleClass('amv-off', model.hiddenPredicates.has(r.predicate));
      }
    });
    empty.hidden = entities.size > 0;
    if (entities.size === 0) empty.textContent = model.missing ? `No entity is named or aliased “${model.missing}”.` : 'Search an entity to draw its neighbourhood.';
    // A class change inside a batch restyles lazily; hiding must hold at once (for `visible()`
    // and the next fit), so restyle the nodes whose hidden state changed now.
    cy.nodes().forEach((n) => { if (n.hasClass('amv-hidden') !== (n.style('display') === 'none')) (n as unknown as { updateStyle(): void }).updateStyle(); });
    cy.edges().forEach((e) => { if (e.hasClass('amv-off') !== (e.style('display') === 'none')) (e as unknown as { updateStyle(): void }).updateStyle(); });
    renderPredicates();
    element.dataset.hidden = String([...model.hidden].filter((id) => entities.has(id)).length);
    // The found ring survives a redraw while its node is drawn and shown.
    const found = element.dataset.found ? Number(element.dataset.found) : null;
    if (found !== null) {
      if (entities.has(found) && !model.hidden.has(found)) cy.getElementById(nodeId(found)).addClass('amv-found');
      else element.dataset.found = '';
    }
    element.dataset.nodes = String(cy.nodes().length);
    element.dataset.edges = String(cy.edges().length);
    markFocus();
    renderList();
    applyMarks();
    return added;
  }

  function layout(added: NodeSingular[], full: boolean): Promise<void> {
    const nodes = cy.nodes();
    if (nodes.empty()) return Promise.resolve();
    // Rings and rows are laid out whole every time: a ring may change with any change of
    // what is drawn (a collapse, a refresh after a write), not only with new nodes.
    if (layoutName !== 'force') {
      byRings();
      if (full) {
        fitCapped();
        requestAnimationFrame(() => { if (!cy.destroyed()) fitCapped(); });
      } else {
        keepInSight();
      }
      return Promise.resolve();
    }
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
      separate(full ? nodes.toArray() as NodeSingular[] : added, full);
      if (full) {
        fitCapped();
        // Labels are measured on the first render: fit again once they are, so none hangs outside.
        requestAnimationFrame(() => { if (!cy.destroyed()) fitCapped(); });
      }
      else if (added.length) keepInSight(); // what was added, without moving what the person was looking at more than needed
    });
  }

  /**
   * Lays out every node by its ring (hops from the start, as the model measures them):
   * concentric rings around the start, or cytoscape's breadthfirst rows rooted at it. Run at
   * once (no animation), spaced by the nodes' boxes with their labels, so none overlap.
   */
  function byRings(): void {
    if (layoutName === 'concentric') { concentric(); return; }
    const area = { x1: 0, y1: 0, w: Math.max(200, cy.width()), h: Math.max(200, cy.height()) };
    cy.layout({
      name: 'breadthfirst', animate: false, fit: false, boundingBox: area, avoidOverlap: true, nodeDimensionsIncludeLabels: true,
      directed: false, spacingFactor: 1, roots: cy.nodes('[ring = 0]'),
      depthSort: (a: NodeSingular, b: NodeSingular) => String(a.data('name')).localeCompare(String(b.data('name'))),
    } as unknown as cytoscape.LayoutOptions).run();
  }

  /**
   * A ring per hop distance around the start. cytoscape's own concentric layout spreads each
   * ring over the whole circle (a ring of two nodes becomes a line through the start); here
   * each node of a ring sits towards its neighbours one ring in, its ring's nodes fanned out
   * around their mean direction just far enough apart that their boxes (labels included) clear
   * each other, and each ring a node's box further out than the one inside it.
   */
  function concentric(): void {
    const all = cy.nodes().toArray() as NodeSingular[];
    const box = (n: NodeSingular) => n.boundingBox({ includeLabels: true, includeOverlays: false } as never);
    const gap = 16;
    const step = Math.max(...all.map((n) => { const b = box(n); return Math.max(b.w, b.h); })) + gap;
    const rings = new Map<number, NodeSingular[]>();
    for (const n of all) { const r = Number(n.data('ring')); (rings.get(r) ?? rings.set(r, []).get(r)!).push(n); }
    const angle = new Map<string, number>();
    const at = new Map<string, { x: number; y: number }>();
    const wrap = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));
    let radius = 0;
    for (const ring of [...rings.keys()].sort((a, b) => a - b)) {
      const nodes = rings.get(ring)!;
      if (ring === 0 && nodes.length === 1) {
        at.set(nodes[0]!.id(), { x: 0, y: 0 });
        continue;
      }
      // The mean direction of each node's neighbours already placed (none for the first ring).
      let sx = 0; let sy = 0;
      const towards = new Map(nodes.map((n) => {
        let x = 0; let y = 0;
        n.neighborhood('node').forEach((m) => { const a = angle.get(m.id()); if (a !== undefined) { x += Math.cos(a); y += Math.sin(a); } });
        if (x || y) { const len = Math.hypot(x, y); sx += x / len; sy += y / len; }
        return [n.id(), x || y ? Math.atan2(y, x) : null] as const;
      }));
      const centre = sx || sy ? Math.atan2(sy, sx) : -Math.PI / 2;
      const key = (n: NodeSingular) => { const t = towards.get(n.id()); return t === null || t === undefined ? Infinity : wrap(t - centre); };
      nodes.sort((a, b) => key(a) - key(b) || String(a.data('name')).localeCompare(String(b.data('name'))));
      const count = nodes.length;
      const widest = Math.max(...nodes.map((n) => box(n).w)) + gap;
      // Out by a step, and far enough that the whole ring holds its nodes side by side.
      radius = Math.max(radius + step, count > 1 ? widest / (2 * Math.sin(Math.PI / count)) : 0);
      const spread = count > 1 ? Math.min((2 * Math.PI) / count, 2 * Math.asin(Math.min(1, widest / (2 * radius)))) : 0;
      nodes.forEach((n, i) => {
        const a = centre + (i - (count - 1) / 2) * spread;
        angle.set(n.id(), a);
        at.set(n.id(), { x: radius * Math.cos(a), y: radius * Math.sin(a) });
      });
    }
    cy.batch(() => { for (const n of all) n.position(at.get(n.id())!); });
  }

  /** Switches the layout and lays out what is drawn from scratch with it. */
  function setLayout(name: LayoutName): Promise<void> {
    layoutName = name;
    element.dataset.layout = name;
    return layout([], true);
  }

  /** Sizes the nodes anew; under force, nodes that grew into a neighbour move off it. */
  function setNodeSize(size: NodeSize): void {
    nodeSize = size;
    element.dataset.nodeSize = size;
    draw();
    if (cy.nodes().empty()) return;
    if (layoutName === 'force') {
      separate(cy.nodes().toArray() as NodeSingular[], true);
      keepInSight();
    } else {
      void layout([], true);
    }
  }

  /** Restyles the canvas and the elements around it when the scheme that applies changes. */
  function applyScheme(): void {
    const next = schemeNow();
    if (next === scheme) return;
    scheme = next;
    element.dataset.scheme = scheme;
    restyle(cy, scheme);
  }
  const onSystemScheme = () => applyScheme();
  dark?.addEventListener?.('change', onSystemScheme);

  function png(scale: number): Promise<Blob> {
    if (cy.nodes(':visible').empty()) return Promise.reject(new Error('nothing is drawn to export'));
    // cytoscape leaves out labels too small at the present zoom: the image carries them all.
    const all = cy.elements();
    all.addClass('amv-print');
    try {
      return cy.png({ output: 'blob-promise', full: true, bg: PALETTES[scheme].canvas, scale, maxWidth: 4096, maxHeight: 4096 });
    } finally {
      all.removeClass('amv-print');
    }
  }

  /**
   * The selected node's edges keep their labels at any zoom (class `amv-focus`); called
   * after every draw, since an expansion may add edges to it.
   */
  function markFocus(): void {
    cy.edges('.amv-focus').removeClass('amv-focus');
    const selected = element.dataset.selected ?? '';
    if (selected.startsWith('e')) cy.getElementById(selected).connectedEdges().addClass('amv-focus');
  }

  /**
   * Moves `movable` nodes (in order) off every node already placed, so no two node boxes
   * (the circle and its label, with a small gap) overlap: fcose keeps nodes apart on
   * average, not always, and with the old nodes fixed it may set a new one on top of one.
   * Each node that overlaps goes to the nearest free spot on a spiral around where the
   * layout put it. With `all`, the first nodes (nearest the start) stay and later ones move;
   * otherwise every node not in `movable` is fixed.
   */
  function separate(movable: NodeSingular[], all: boolean): void {
    const gap = 6;
    type Box = { x1: number; x2: number; y1: number; y2: number };
    const boxOf = (n: NodeSingular): Box => n.boundingBox({ includeLabels: true, includeOverlays: false } as never);
    const moving = new Set(movable.map((n) => n.id()));
    const shown = (n: NodeSingular) => !model.hidden.has(Number(n.data('entity')));
    const placed: Box[] = all ? [] : (cy.nodes().toArray() as NodeSingular[]).filter((n) => !moving.has(n.id()) && shown(n)).map(boxOf);
    const hits = (b: Box) => placed.some((p) => b.x1 < p.x2 + gap && b.x2 + gap > p.x1 && b.y1 < p.y2 + gap && b.y2 + gap > p.y1);
    const order = all ? [...movable].sort((a, b) => Number(a.data('ring')) - Number(b.data('ring')) || a.id().localeCompare(b.id())) : movable;
    for (const n of order) {
      if (!shown(n)) continue;
      const box = boxOf(n);
      if (hits(box)) {
        const at = n.position();
        const off = { x1: box.x1 - at.x, x2: box.x2 - at.x, y1: box.y1 - at.y, y2: box.y2 - at.y };
        const step = Math.max(12, Math.min(box.x2 - box.x1, box.y2 - box.y1) / 2);
        search: for (let r = step; r < step * 200; r += step) {
          const tries = Math.max(8, Math.round((2 * Math.PI * r) / step));
          for (let k = 0; k < tries; k += 1) {
            const a = (2 * Math.PI * k) / tries;
            const p = { x: at.x + r * Math.cos(a), y: at.y + r * Math.sin(a) };
            const b = { x1: p.x + off.x1, x2: p.x + off.x2, y1: p.y + off.y1, y2: p.y + off.y2 };
            if (!hits(b)) { n.position(p); break search; }
          }
        }
      }
      placed.push(boxOf(n));
    }
  }

  function fitCapped(): void {
    cy.fit(undefined, 36);
    if (cy.zoom() > 1.5) cy.zoom({ level: 1.5, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
    if (cy.zoom() === 1.5) cy.center();
  }

  /** Fits again only when part of the drawing is out of view. */
  function keepInSight(): void {
    const box = cy.elements().boundingBox();
    const ext = cy.extent();
    if (box.x1 < ext.x1 || box.x2 > ext.x2 || box.y1 < ext.y1 || box.y2 > ext.y2) fitCapped();
  }

  function markSelected(target: Target | null): void {
    cy.elements(':selected').unselect();
    if (target) cy.getElementById(keyOf(target)).select();
    element.dataset.selected = target ? keyOf(target) : '';
    markFocus();
    for (const b of element.querySelectorAll<HTMLButtonElement>('.amv-list button')) {
      b.setAttribute('aria-pressed', String(b.dataset.key === element.dataset.selected));
    }
  }

  /** One list entry: a button that picks `target` as a tap on it would. */
  function listItem(target: Target, text: string, entity?: ViewEntity, title?: string): HTMLLIElement {
    const li = doc.createElement('li');
    const b = doc.createElement('button');
    b.type = 'button';
    b.dataset.key = keyOf(target);
    if ('entity' in target) b.dataset.entity = String(target.entity); else b.dataset.relation = String(target.relation);
    if (entity) {
      b.dataset.name = entity.name;
      b.title = entity.aliases?.length ? `${entity.name} — also ${entity.aliases.join(', ')}` : entity.name;
    }
    if (title) b.title = title;
    b.textContent = text;
    b.setAttribute('aria-pressed', String(element.dataset.selected === b.dataset.key));
    b.addEventListener('click', () => events.onPick(target));
    // Enter on an entity expands it (as a double-click does); Space, like a click, only selects.
    if ('entity' in target) {
      b.setAttribute('aria-keyshortcuts', 'Enter');
      b.addEventListener('keydown', (ev: KeyboardEvent) => {
        if (ev.key !== 'Enter' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
        ev.preventDefault();
        events.onExpand(target.entity);
      });
    }
    li.append(b);
    return li;
  }

  /** One toggle per predicate drawn (with its edge count), pressed while its edges show. */
  function renderPredicates(): void {
    const counts = new Map<string, number>();
    for (const r of relations.values()) counts.set(r.predicate, (counts.get(r.predicate) ?? 0) + 1);
    const names = [...counts.keys()].sort((a, b) => a.localeCompare(b));
    predicates.hidden = names.length === 0;
    const label = doc.createElement('span');
    label.className = 'amv-predicates-label';
    label.textContent = 'relations';
    label.setAttribute('aria-hidden', 'true');
    predicates.replaceChildren(label, ...names.map((p) => {
      const b = doc.createElement('button');
      b.type = 'button';
      b.dataset.predicate = p;
      const shown = !model.hiddenPredicates.has(p);
      b.setAttribute('aria-pressed', String(shown));
      b.title = `${shown ? 'Hide' : 'Show'} the ${counts.get(p)} “${p}” ${counts.get(p) === 1 ? 'edge' : 'edges'}`;
      const swatch = doc.createElement('i');
      swatch.setAttribute('aria-hidden', 'true');
      const count = doc.createElement('span');
      count.className = 'amv-count';
      count.textContent = String(counts.get(p));
      b.append(swatch, p, ' ', count);
      b.addEventListener('click', () => {
        events.onPredicate(p, model.hiddenPredicates.has(p));
        predicates.querySelector<HTMLButtonElement>(`button[data-predicate="${CSS.escape(p)}"]`)?.focus();
      });
      return b;
    }));
    element.dataset.hiddenPredicates = [...model.hiddenPredicates].sort().join(' ');
  }

  function renderList(): void {
    if (!entityList || !relationList || !listSummary) return;
    // What is hidden is left out of the list as it is of the canvas.
    const sorted = [...entities.values()].filter((e) => !model.hidden.has(e.id)).sort((a, b) => a.ring - b.ring || a.name.localeCompare(b.name));
    const shown = [...relations.values()].filter((r) => !model.hidden.has(r.subject) && !model.hidden.has(r.object) && !model.hiddenPredicates.has(r.predicate));
    listSummary.textContent = `Graph as a list: ${sorted.length} ${sorted.length === 1 ? 'entity' : 'entities'}, ${shown.length} ${shown.length === 1 ? 'relation' : 'relations'}`;
    entityList.replaceChildren(...sorted.map((e) => listItem({ entity: e.id }, `${e.name} · ${e.ring}`, e)));
    relationList.replaceChildren(...shown.map((r) =>
      listItem({ relation: r.id }, `${entities.get(r.subject)?.name} —${r.predicate}→ ${entities.get(r.object)?.name}${endText(r) ? ` (${endText(r)})` : ''}`, undefined, timeLines(r).join('; '))));
  }

  function applyMarks(): { nodes: number; edges: number } {
    cy.batch(() => {
      cy.elements().removeClass('amv-dim amv-walked amv-seed');
      for (const e of entities.values()) cy.getElementById(nodeId(e.id)).data('label', e.name);
    });
    element.dataset.highlightedRelations = '';
    const lit = model.highlight();
    if (!lit) { element.dataset.highlighted = '0'; element.dataset.highlightedEdges = '0'; return { nodes: 0, edges: 0 }; }
    cy.batch(() => {
      for (const id of lit.walked) cy.getElementById(nodeId(id)).addClass('amv-walked');
      for (const [id, paths] of lit.paths) {
        const n = cy.getElementById(nodeId(id));
        n.data('label', `${entities.get(id)!.name}\n← ${paths[0]}${paths.length > 1 ? ` (+${paths.length - 1})` : ''}`);
        n.data('paths', paths.join('; '));
      }
      for (const id of lit.seeds) cy.getElementById(nodeId(id)).addClass('amv-seed');
      for (const id of lit.relations) cy.getElementById(edgeId(id)).addClass('amv-walked');
      if (lit.walked.size || lit.seeds.size) cy.elements().not(cy.elements('.amv-walked, .amv-seed')).addClass('amv-dim');
    });
    const nodes = lit.walked.size + lit.seeds.size;
    element.dataset.highlighted = String(nodes);
    element.dataset.highlightedEdges = String(lit.relations.size);
    element.dataset.highlightedRelations = [...lit.relations].sort((a, b) => a - b).join(' ');
    return { nodes, edges: lit.relations.size };
  }

  function reveal(entity: number | null): boolean {
    cy.nodes('.amv-found').removeClass('amv-found');
    element.dataset.found = '';
    if (entity === null) return true;
    const n = cy.getElementById(nodeId(entity));
    if (n.empty() || model.hidden.has(entity)) return false;
    n.addClass('amv-found');
    element.dataset.found = String(entity);
    // Centre it at the present zoom, unless that is too far out to read the label.
    if (cy.zoom() < 0.8) cy.zoom({ level: 0.8, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
    // The node's centre, not its box with the label (what cy.center would use), at the canvas's centre.
    const p = n.position();
    cy.pan({ x: cy.width() / 2 - p.x * cy.zoom(), y: cy.height() / 2 - p.y * cy.zoom() });
    return true;
  }

  function reportError(err: unknown): void {
    setState('error');
    element.dataset.error = String((err as Error)?.message ?? err);
    console.warn('graph view:', err);
  }

  cy.on('tap', 'node', (ev: EventObject) => events.onPick({ entity: Number(ev.target.data('entity')) }));
  cy.on('dbltap', 'node', (ev: EventObject) => events.onExpand(Number(ev.target.data('entity'))));
  cy.on('tap', 'edge', (ev: EventObject) => events.onPick({ relation: Number(ev.target.data('relation')) }));
  cy.on('tap', (ev: EventObject) => { if (ev.target === cy) events.onClear(); });
  cy.on('mouseover', 'node', (ev: EventObject) => {
    const e = entities.get(Number(ev.target.data('entity')));
    if (!e) return;
    (ev.target as NodeSingular).connectedEdges().addClass('amv-hover');
    const degree = Number(ev.target.data('degree'));
    canvas.title = `${e.name}${e.aliases?.length ? `\naliases: ${e.aliases.join(', ')}` : ''}\n${e.mention_count} ${e.mention_count === 1 ? 'mention' : 'mentions'} · ${degree} ${degree === 1 ? 'relation' : 'relations'} · ${e.ring} ${e.ring === 1 ? 'hop' : 'hops'}`;
  });
  cy.on('mouseover', 'edge', (ev: EventObject) => {
    const r = relations.get(Number(ev.target.data('relation')));
    ev.target.addClass('amv-hover');
    if (r) canvas.title = [`${entities.get(r.subject)?.name} —${r.predicate}→ ${entities.get(r.object)?.name}`, `declared by ${r.declared_by}, ${r.declared_at}`, ...timeLines(r)].join('\n');
  });
  const unhover = () => { canvas.title = ''; cy.edges('.amv-hover').removeClass('amv-hover'); };
  cy.on('mouseout', 'node, edge', unhover);
  // cytoscape tells no mouseout when the pointer leaves the canvas from a node.
  canvas.addEventListener('mouseleave', unhover);
  // A labelled edge's font size depends on the zoom (view-style.ts): follow it.
  cy.on('zoom', () => { (cy.edges(LABELLED) as unknown as { updateStyle(): void }).updateStyle(); });
  // The canvas from the keyboard: arrows pan, + and - zoom, 0 fits; the list below selects.
  canvas.setAttribute('aria-keyshortcuts', 'ArrowLeft ArrowRight ArrowUp ArrowDown + - 0');
  canvas.addEventListener('keydown', (ev: KeyboardEvent) => {
    const step = 40;
    const moves: Record<string, () => void> = {
      ArrowLeft: () => cy.panBy({ x: step, y: 0 }), ArrowRight: () => cy.panBy({ x: -step, y: 0 }),
      ArrowUp: () => cy.panBy({ x: 0, y: step }), ArrowDown: () => cy.panBy({ x: 0, y: -step }),
      '+': () => zoomBy(1.2), '=': () => zoomBy(1.2), '-': () => zoomBy(1 / 1.2), '0': () => fitCapped(),
    };
    const move = moves[ev.key];
    if (move && !ev.ctrlKey && !ev.metaKey && !ev.altKey) { ev.preventDefault(); move(); }
  });

  // When the element changes size (a list opened, a phone turned), keep the drawing in sight.
  const resize = typeof ResizeObserver === 'function' ? new ResizeObserver(() => {
    cy.resize();
    if (!cy.nodes().empty()) keepInSight();
  }) : null;
  resize?.observe(canvas);

  return {
    cy, draw, layout, fitCapped, keepInSight, markSelected, applyMarks, reportError, reveal,
    setState, setLayout, setNodeSize, png,
    setColorScheme(next) { schemeOption = next; applyScheme(); },
    countExpansion() { element.dataset.expanded = String(Number(element.dataset.expanded ?? 0) + 1); },
    destroy() {
      resize?.disconnect();
      dark?.removeEventListener?.('change', onSystemScheme);
      cy.destroy();
      canvas.remove();
      listRoot?.remove();
      controls.remove();
      predicates.remove();
      element.classList.remove('amv-root');
    },
  };
}
