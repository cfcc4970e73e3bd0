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
//
// This file is the public entry: the options, the handle, and the order of operations (one
// traverse at a time). What the view holds is in view-state.ts, how it is drawn and what it
// writes on the element in view-dom.ts, how it looks in view-style.ts.

import type { Core } from 'cytoscape';
import type { TraverseResponse } from './types.js';
import { mountDom } from './view-dom.js';
import type { ColorSchemeOption, LayoutName, NodeSize } from './view-style.js';
import { GraphModel, type GraphSelection, type GraphState, type Query, type RecordMark, type Target } from './view-state.js';

export type { CutReport, GraphSelection, GraphState, RecordMark, ViewEntity } from './view-state.js';
export type { ColorScheme, ColorSchemeOption, LayoutName, NodeSize } from './view-style.js';

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
  /**
   * Read the graph at this instant (ISO 8601), or 'all' for every relation, current or
   * closed; left out (the default), the current state. Passed to every traverse as `as_of`;
   * `setAsOf` changes it. A relation with an end (`valid_to`) is drawn dashed, labelled
   * "until …".
   */
  as_of?: string;
  /** Called when a node or an edge is selected (tap, click, or a list button), null when cleared. */
  onSelect?: (selection: GraphSelection | null) => void;
  /** Called after every change of the drawn graph. */
  onChange?: (state: GraphState) => void;
  /**
   * Selecting a node also expands it by one hop (default false). Without it a click selects
   * only, so a node can be inspected without the drawing growing; expanding is a double-click
   * (double-tap) on the node, Enter on its list button, or `expand(id)` from the host.
   */
  expandOnSelect?: boolean;
  /** Render the keyboard-reachable list of entities and relations under the canvas (default true). */
  list?: boolean;
  /**
   * How nodes are placed (default 'force'): 'force' (fcose; an expansion places only the new
   * nodes), 'concentric' (a ring per hop distance around the start) or 'hierarchical'
   * (breadthfirst rows rooted at the start). Under the last two an expansion lays out the
   * whole drawing again. `setLayout` switches.
   */
  layout?: LayoutName;
  /**
   * What a node's size tells (default 'mentions'): the records mentioning the entity, or
   * 'degree', the relations drawn on it (both ends shown, the type not turned off in the
   * legend), recounted whenever the drawing changes. `setNodeSize` switches.
   */
  nodeSize?: NodeSize;
  /**
   * The view's colours (default 'auto'): the system's `prefers-color-scheme`, followed live
   * when it changes, or 'light' / 'dark' fixed (a host with a theme of its own). The element
   * carries `data-scheme` with the scheme that applies.
   */
  colorScheme?: ColorSchemeOption;
}

export interface GraphView {
  /** The cytoscape instance, for hosts that want more. */
  readonly cy: Core;
  /** Replaces the graph with `entity`'s neighbourhood. */
  show(entity: string, options?: { max_hops?: number; limit?: number }): Promise<GraphState>;
  /** Adds a drawn entity's one-hop neighbourhood in place; existing nodes keep their positions. Resolves to the number of nodes added. */
  expand(entityId: number): Promise<number>;
  /**
   * Undoes a drawn entity's expansion: removes the nodes only it brought in (with any
   * expansions hanging off them); the start, and what another traverse reaches, stay.
   * Resolves to the number of nodes removed (0 when it was not expanded).
   */
  collapse(entityId: number): Promise<number>;
  /** Hides a drawn node and its edges (from the canvas and the list); false when it is not drawn. */
  hide(entityId: number): boolean;
  /** Draws every hidden node again; returns how many there were. */
  showHidden(): number;
  /** Shows or hides the edges of one relation type, as its toggle in the legend does (kept across `show`). */
  showPredicate(predicate: string, shown: boolean): void;
  /** Re-runs every traverse the graph is made of (after a write), keeping positions. */
  refresh(): Promise<GraphState>;
  /**
   * Reads the graph at another instant: an ISO 8601 instant, 'all' (every relation, closed
   * ones too), or undefined for the current state; re-runs every traverse the graph is made
   * of with it (as `refresh` does, positions kept). The element carries `data-as-of`.
   */
  setAsOf(asOf: string | undefined): Promise<GraphState>;
  /** Sets max_hops / limit for the next `show` (and `refresh`). */
  setBounds(bounds: { max_hops?: number; limit?: number }): void;
  /** Marks the relations and entities the walk followed to these records (or, for a seed, the entities mentioning it); returns what lit up. */
  highlight(marks: RecordMark[]): { nodes: number; edges: number };
  clearHighlight(): void;
  /** Selects an entity or a relation as a tap would (without expanding), or clears the selection. */
  select(target: { entity: number } | { relation: number } | null): void;
  state(): GraphState;
  /**
   * Rings a drawn node (class `amv-found`, `data-found` on the element) and centres it, as a
   * find-in-graph box wants; null clears the ring. False when the node is not drawn or hidden.
   */
  reveal(entityId: number | null): boolean;
  /** Fits the drawing into the element. */
  fit(): void;
  /** Lays out everything drawn with another layout (see `GraphViewOptions.layout`); later expansions keep it. */
  setLayout(layout: LayoutName): Promise<void>;
  /** Sizes nodes by mentions or by degree from now on (see `GraphViewOptions.nodeSize`). */
  setNodeSize(size: NodeSize): void;
  /** Follows the system's colour scheme ('auto') or fixes one (see `GraphViewOptions.colorScheme`). */
  setColorScheme(scheme: ColorSchemeOption): void;
  /**
   * The whole drawing (not only what is in view) as a PNG image on the canvas's background,
   * `scale` pixels per drawing unit (default 2, for sharp text), scaled down to at most 4,096
   * pixels a side. Rejects when nothing is drawn.
   */
  png(options?: { scale?: number }): Promise<Blob>;
  /** Removes everything drawn (e.g. when another memory is opened). */
  clear(): void;
  destroy(): void;
}

const LAYOUTS: readonly LayoutName[] = ['force', 'concentric', 'hierarchical'];

/**
 * Mounts a graph view into `element` (give it a height). Resolves nothing by itself: call
 * `show(entity)`, or pass `entity` to draw at once.
 */
export function mountGraphView(element: HTMLElement, memory: TraversingMemory, options: GraphViewOptions = {}): GraphView {
  const scope: Record<string, string> = {};
  for (const k of ['agent_id', 'project_id', 'channel'] as const) if (options[k] !== undefined) scope[k] = options[k]!;
  let maxHops = options.max_hops ?? 1;
  let limit = options.limit ?? 20;
  const expandOnSelect = options.expandOnSelect ?? false;

  const model = new GraphModel();
  model.asOf = options.as_of;
  const dom = mountDom(element, model, {
    list: options.list ?? true, layout: options.layout ?? 'force', nodeSize: options.nodeSize ?? 'mentions', colorScheme: options.colorScheme ?? 'auto',
  }, {
    // A tap (or a list button) selects; with expandOnSelect it also expands a node not yet expanded.
    onPick(target) {
      select(target);
      const e = 'entity' in target ? model.entities.get(target.entity) : undefined;
      if (expandOnSelect && e && !e.expanded) void view.expand(e.id).catch((err) => dom.reportError(err));
    },
    onClear() { select(null); },
    onPredicate(predicate, shown) { view.showPredicate(predicate, shown); },
    // A double-click or Enter on a list button: select the node, and expand it unless it already is.
    onExpand(entity) {
      select({ entity });
      const e = model.entities.get(entity);
      if (e && !e.expanded) void view.expand(e.id).catch((err) => dom.reportError(err));
    },
  });

  // Traverses run one at a time, in call order, so a response never folds into a graph a
  // later call has already replaced; a failed one does not stop those after it.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task, task);
    chain = run.catch(() => undefined);
    return run;
  };

  const run = (q: Query): Promise<TraverseResponse> =>
    memory.traverse({ ...scope, entity: q.entity, max_hops: q.max_hops, limit: q.limit, ...(model.asOf !== undefined ? { as_of: model.asOf } : {}) });
  element.dataset.asOf = model.asOf ?? '';
  const state = () => model.snapshot();
  const changed = () => options.onChange?.(state());

  function select(target: Target | null): void {
    dom.markSelected(target);
    options.onSelect?.(target ? model.selectionOf(target) : null);
  }

  function setBounds(bounds: { max_hops?: number; limit?: number }): void {
    if (bounds.max_hops !== undefined) maxHops = bounds.max_hops;
    if (bounds.limit !== undefined) limit = bounds.limit;
  }

  const view: GraphView = {
    cy: dom.cy,
    show(entity, bounds = {}) {
      return serial(async () => {
        setBounds(bounds);
        dom.setState('loading');
        const q: Query = { entity, max_hops: maxHops, limit, base: 0 };
        const res = await run(q);
        dom.markSelected(null);
        dom.cy.elements().remove();
        const found = model.shown(entity, q, res);
        const added = dom.draw();
        if (found) await dom.layout(added, true);
        dom.setState(found ? 'ready' : 'missing');
        changed();
        return state();
      });
    },
    expand(entityId) {
      return serial(async () => {
        const e = model.entities.get(entityId);
        if (!e) return 0;
        dom.setState('loading');
        const q: Query = { entity: e.name, max_hops: 1, limit, base: e.ring, expands: e.id };
        model.expanded(q, await run(q));
        const added = dom.draw(e.id);
        await dom.layout(added, false);
        dom.setState('ready');
        changed();
        dom.countExpansion();
        return added.length;
      });
    },
    collapse(entityId) {
      return serial(async () => {
        const gone = model.collapsed(entityId);
        if (!gone.length && !model.entities.get(entityId)) return 0;
        const selected = element.dataset.selected;
        dom.draw();
        await dom.layout([], false); // rings and rows follow what is left
        if (selected && dom.cy.getElementById(selected).empty()) select(null);
        changed();
        return gone.length;
      });
    },
    hide(entityId) {
      if (!model.entities.has(entityId)) return false;
      model.hidden.add(entityId);
      dom.draw();
      const selected = dom.cy.getElementById(element.dataset.selected ?? '');
      const ends: string[] = selected.empty() ? [] : selected.group() === 'edges' ? [selected.data('source'), selected.data('target')] : [selected.id()];
      if (ends.includes(`e${entityId}`)) select(null);
      changed();
      return true;
    },
    showHidden() {
      const count = state().hidden.length;
      model.hidden.clear();
      dom.draw();
      if (count) dom.keepInSight(); // a node shown again may sit outside what was in view
      changed();
      return count;
    },
    showPredicate(predicate, shown) {
      if (shown) model.hiddenPredicates.delete(predicate); else model.hiddenPredicates.add(predicate);
      dom.draw();
      const selected = dom.cy.getElementById(element.dataset.selected ?? '');
      if (!shown && selected.nonempty() && selected.group() === 'edges' && selected.data('predicate') === predicate) select(null);
      changed();
    },
    setAsOf(asOf) {
      // Set in the queue, so a traverse already running finishes at the instant it began with.
      void serial(async () => { model.asOf = asOf; element.dataset.asOf = asOf ?? ''; });
      return view.refresh();
    },
    refresh() {
      return serial(async () => {
        if (!model.queries.length && model.start === null) return state();
        dom.setState('loading');
        const queries = model.queries.length ? model.queries : [{ entity: model.start!, max_hops: maxHops, limit, base: 0 }];
        const results: [Query, TraverseResponse][] = [];
        for (const q of queries) {
          const res = await run(q);
          model.last = res;
          if (res.reason !== 'no_such_entity') results.push([q, res]);
        }
        model.refreshed(results);
        const added = dom.draw(results[results.length - 1]?.[0].expands);
        await dom.layout(added, dom.cy.nodes().length === added.length);
        dom.setState(model.missing ? 'missing' : 'ready');
        changed();
        return state();
      });
    },
    setBounds,
    highlight(next) {
      model.marks = [...next];
      return dom.applyMarks();
    },
    clearHighlight() {
      model.marks = [];
      dom.applyMarks();
    },
    select,
    state,
    reveal(entityId) { return dom.reveal(entityId); },
    fit() { dom.fitCapped(); },
    // Through the traverse queue, so a layout never runs on a graph an expansion is changing.
    setLayout(layout) {
      if (!LAYOUTS.includes(layout)) return Promise.reject(new TypeError(`layout must be one of ${LAYOUTS.join(', ')}, not ${String(layout)}`));
      return serial(() => dom.setLayout(layout));
    },
    setNodeSize(size) {
      if (size !== 'mentions' && size !== 'degree') throw new TypeError(`nodeSize must be 'mentions' or 'degree', not ${String(size)}`);
      dom.setNodeSize(size);
    },
    setColorScheme(scheme) {
      if (!['auto', 'light', 'dark'].includes(scheme)) throw new TypeError(`colorScheme must be 'auto', 'light' or 'dark', not ${String(scheme)}`);
      dom.setColorScheme(scheme);
    },
    png(opts = {}) { return dom.png(opts.scale ?? 2); },
    clear() {
      model.reset();
      dom.cy.elements().remove();
      dom.markSelected(null);
      dom.draw();
      dom.setState('idle');
      changed();
    },
    destroy() { dom.destroy(); },
  };

  if (options.entity) void view.show(options.entity).catch((err) => dom.reportError(err));
  return view;
}
