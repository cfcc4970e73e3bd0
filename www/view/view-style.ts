// How the graph view looks: the hop-ring palette, the light and dark palettes of everything
// else, the CSS of the elements around the canvas, and cytoscape's stylesheet. Kept apart from
// the DOM and the state so a restyle touches one file; the legend and the nodes read their
// colours from the same two arrays, and the CSS and the canvas theirs from one PALETTES.

import type { Core, EdgeSingular, StylesheetJson } from 'cytoscape';

/** Fill of a node by its ring (hops from the start); the last colour serves ring 5 and beyond. */
export const RING_COLOURS = ['#e8590c', '#1971c2', '#2f9e44', '#9c36b5', '#e67700', '#495057'];
/** Border of a node by its ring, a darker shade of its fill. */
export const RING_BORDERS = ['#a33b00', '#0b4f8a', '#1b6b2b', '#6a1b80', '#a34f00', '#212529'];

/**
 * Node diameter by a count (mentions, or drawn relations with `nodeSize: 'degree'`): grows
 * with the square root, so a busy entity does not swamp the drawing.
 */
export const sizeOf = (count: number) => Math.round(Math.min(64, 18 + 7 * Math.sqrt(count)));

/**
 * Edge labels are drawn at this size and only while the zoom keeps them at least this big on
 * screen, so a hub's crowd of labels goes when zoomed out instead of shrinking into an
 * unreadable smear; the selected or hovered node's edges and the selected edge keep theirs at
 * this size on screen at any zoom (`edgeLabelSize`).
 */
export const EDGE_LABEL_PX = 11;

/**
 * The `min-zoomed-font-size` that hides an edge label below `EDGE_LABEL_PX` on screen.
 * cytoscape compares it with the font size times the zoom rounded up to a power of two (its
 * texture level), so a label is drawn at zoom 0.6 as at 1; a bound just over the font size
 * draws labels only above zoom 1, where they are over 11 px.
 */
const EDGE_LABEL_MIN = EDGE_LABEL_PX + 0.5;

/** The font size that shows an edge label at `EDGE_LABEL_PX` on screen at `zoom` (never smaller in the model). */
export const edgeLabelSize = (zoom: number) => Math.max(EDGE_LABEL_PX, EDGE_LABEL_PX / zoom);

export type ColorScheme = 'light' | 'dark';

/**
 * How the nodes are placed. 'force': fcose, a force-directed layout (an expansion places only
 * the new nodes). 'concentric': rings around the start, one per hop distance. 'hierarchical':
 * cytoscape's breadthfirst, a tree rooted at the start, one row per hop distance. Under the
 * last two an expansion lays out the whole drawing again, so the rings or rows stay true.
 */
export type LayoutName = 'force' | 'concentric' | 'hierarchical';
/** What a node's size tells: its records' mentions, or its degree (the relations drawn on it). */
export type NodeSize = 'mentions' | 'degree';
/** The view's colours: the system's (`prefers-color-scheme`, followed live), or one fixed. */
export type ColorSchemeOption = 'auto' | ColorScheme;


/**
 * Every colour of the view but the ring fills, per scheme. The CSS around the canvas reads
 * them as custom properties (`--amv-<key>`), cytoscape's stylesheet as they are. Text
 * colours meet WCAG AA (4.5:1) on `canvas` and `surface`. Text that sits on the host's own
 * background (the legend's and the list's captions) takes the host's colour instead.
 */
export const PALETTES: Record<ColorScheme, Record<'fg' | 'muted' | 'canvas' | 'border' | 'surface' | 'hover' | 'control' | 'off' | 'legend' | 'focus' | 'edge' | 'arrow' | 'operator' | 'ended' | 'selected' | 'onSelected' | 'walkedText', string>> = {
  light: {
    fg: '#212529', muted: '#495057', canvas: '#fbfbfc', border: '#dee2e6', surface: '#ffffff', hover: '#e9ecef', control: '#adb5bd',
    off: '#f1f3f5', legend: 'rgba(255,255,255,.85)', focus: '#1971c2', edge: '#adb5bd', arrow: '#868e96', operator: '#5c7cfa', ended: '#c92a2a',
    selected: '#212529', onSelected: '#ffffff', walkedText: '#a34f00',
  },
  dark: {
    fg: '#e9ecef', muted: '#ced4da', canvas: '#1b1e22', border: '#495057', surface: '#25292e', hover: '#343a40', control: '#6c757d',
    off: '#2b3035', legend: 'rgba(27,30,34,.85)', focus: '#74c0fc', edge: '#6c757d', arrow: '#adb5bd', operator: '#91a7ff', ended: '#ff8787',
    selected: '#f8f9fa', onSelected: '#212529', walkedText: '#ffc078',
  },
};

const STYLE_ID = 'amv-style';
/** `--amv-<key>: value;` for each colour of a palette. */
const cssVars = (scheme: ColorScheme) => Object.entries(PALETTES[scheme]).map(([k, v]) => `--amv-${k}:${v}`).join(';');
const CSS = `
.amv-root{${cssVars('light')};color-scheme:light}
.amv-root[data-scheme=dark]{${cssVars('dark')};color-scheme:dark}
.amv-root{position:relative;display:flex;flex-direction:column;min-height:0;font:13px/1.4 system-ui,sans-serif}
.amv-canvas{position:relative;flex:1 1 auto;min-height:200px;background:var(--amv-canvas);border:1px solid var(--amv-border);border-radius:6px;overflow:hidden}
.amv-canvas:focus-visible{outline:3px solid var(--amv-focus);outline-offset:1px}
.amv-legend{position:absolute;left:8px;bottom:6px;z-index:2;display:flex;gap:8px;flex-wrap:wrap;font-size:11px;color:var(--amv-fg);background:var(--amv-legend);padding:2px 6px;border-radius:4px;pointer-events:none}
.amv-legend i{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:3px;vertical-align:-1px;border:2px solid}
.amv-empty[hidden]{display:none}
.amv-controls{position:absolute;top:6px;right:6px;z-index:3;display:flex;gap:4px}
.amv-controls button{min-width:32px;height:32px;font:600 15px/1 system-ui,sans-serif;border:1px solid var(--amv-control);background:var(--amv-surface);color:var(--amv-fg);border-radius:6px;cursor:pointer;padding:0 8px}
.amv-controls button:hover{background:var(--amv-hover)}
.amv-controls button:focus-visible,.amv-predicates button:focus-visible{outline:3px solid var(--amv-focus);outline-offset:1px}
.amv-predicates[hidden]{display:none}
.amv-predicates{display:flex;flex-wrap:wrap;align-items:center;gap:4px;margin-top:6px;font-size:12px;max-height:80px;overflow:auto}
@media (max-width:600px){.amv-predicates{max-height:52px}}
.amv-predicates-label{margin-right:2px}
.amv-predicates button{font:inherit;height:24px;line-height:20px;white-space:nowrap;border:1px solid var(--amv-control);background:var(--amv-surface);color:var(--amv-fg);border-radius:12px;padding:1px 8px;cursor:pointer}
.amv-predicates button i{display:inline-block;width:14px;height:0;border-top:2px solid var(--amv-arrow);margin-right:4px;vertical-align:3px}
.amv-predicates button .amv-count{color:var(--amv-muted)}
.amv-predicates button[aria-pressed=false]{background:var(--amv-off);color:var(--amv-muted);text-decoration:line-through}
.amv-predicates button[aria-pressed=false] i{border-top-style:dotted}
.amv-empty{position:absolute;inset:0;display:flex;align-items:center;justify-content:center;color:var(--amv-muted);pointer-events:none;padding:1em;text-align:center}
.amv-list{margin-top:6px;font-size:12px}
.amv-list summary{cursor:pointer;min-height:24px;line-height:24px}
.amv-list ul{list-style:none;margin:4px 0;padding:0;display:flex;flex-wrap:wrap;gap:4px;max-height:9em;overflow:auto}
.amv-list button{font:inherit;min-height:24px;min-width:24px;border:1px solid var(--amv-control);background:var(--amv-surface);border-radius:4px;padding:1px 6px;cursor:pointer;color:var(--amv-fg)}
.amv-list button[aria-pressed=true]{background:var(--amv-selected);color:var(--amv-onSelected)}
.amv-list button:focus-visible{outline:3px solid var(--amv-focus)}
`;

/** Adds the view's CSS to `doc` once, however many views the page mounts. */
export function injectStyle(doc: Document): void {
  if (doc.getElementById(STYLE_ID)) return;
  const style = doc.createElement('style');
  style.id = STYLE_ID;
  style.textContent = CSS;
  doc.head.append(style);
}

/** The legend's markup: one swatch per ring colour, the last one standing for 5 and beyond. */
export function legendHtml(): string {
  return 'hops ' + RING_COLOURS.map((c, i) => `<span><i style="background:${c};border-color:${RING_BORDERS[i]}"></i>${i === 5 ? '5+' : i}</span>`).join('');
}

/** Edges whose labels show at any zoom: the selected edge, a walked one, and those of the selected or hovered node (classes set by the DOM module). */
export const LABELLED = 'edge:selected, edge.amv-walked, edge.amv-focus, edge.amv-hover';

/**
 * Cytoscape's stylesheet in `scheme`'s colours. Edge data `ended` (a relation with an end,
 * `valid_to`) and `declared_by` style edges. The classes it styles are set by the DOM
 * module: `expanded` (the node's neighbourhood is drawn), `amv-hidden` (hidden by `hide`),
 * `amv-found` (`reveal`), `amv-off` (an edge whose predicate the legend turned off),
 * `amv-walked` / `amv-seed` / `amv-dim` (a highlight), `amv-focus` / `amv-hover` (an edge of
 * the selected / hovered node). A labelled edge's font size follows the zoom: the DOM module
 * restyles them (`updateStyle`) when the zoom changes.
 */
export function stylesheet(scheme: ColorScheme = 'light'): StylesheetJson {
  const c = PALETTES[scheme];
  const rings = RING_COLOURS.map((colour, i) => ({
    selector: `node[ring = ${i}]`,
    style: { 'background-color': colour, 'border-color': RING_BORDERS[i] },
  }));
  return [
    {
      selector: 'node',
      style: {
        label: 'data(label)', width: 'data(size)', height: 'data(size)',
        'font-size': 11, color: c.fg, 'text-valign': 'bottom', 'text-halign': 'center', 'text-margin-y': 3,
        'text-wrap': 'wrap', 'text-max-width': '140px',
        'text-background-color': c.canvas, 'text-background-opacity': 0.8, 'text-background-padding': '1px',
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
        width: 1.5, 'line-color': c.edge, 'target-arrow-color': c.arrow, 'target-arrow-shape': 'triangle',
        'curve-style': 'bezier', 'arrow-scale': 0.9, label: 'data(predicate)', 'font-size': EDGE_LABEL_PX, color: c.muted,
        'text-rotation': 'autorotate', 'text-background-color': c.canvas, 'text-background-opacity': 0.9,
        'text-background-padding': '1px', 'min-zoomed-font-size': EDGE_LABEL_MIN,
      },
    },
    { selector: 'edge[declared_by = "operator"]', style: { 'line-style': 'dashed', 'line-color': c.operator, 'target-arrow-color': c.operator } },
    // A relation with an end (closed, or declared until an instant): long red dashes, a little
    // wider, and its label, in the same red (AA on the canvas), says until when, outlined
    // rather than on a box, so the dashes show between its letters.
    { selector: 'edge[ended]', style: { width: 2.5, 'line-style': 'dashed', 'line-dash-pattern': [7, 4], 'line-color': c.ended, 'target-arrow-color': c.ended, label: 'data(label)', 'text-background-opacity': 0, 'text-outline-color': c.canvas, 'text-outline-width': 2 } },
    {
      selector: LABELLED,
      style: { 'font-size': (edge: EdgeSingular) => edgeLabelSize(edge.cy().zoom()), 'min-zoomed-font-size': 0, color: c.fg, 'z-index': 5 },
    },
    // An ended relation's label stays red when it is labelled at any zoom (after LABELLED's colour).
    { selector: 'edge[ended]', style: { color: c.ended } },
    // While a PNG is made (`amv-print`, on everything): every label, at its drawing's size.
    { selector: '.amv-print', style: { 'min-zoomed-font-size': 0 } },
    { selector: 'edge.amv-print', style: { 'font-size': EDGE_LABEL_PX } },
    { selector: '.amv-dim', style: { opacity: 0.28 } },
    // A hidden node takes its edges with it (cytoscape does not draw an edge to an undisplayed node).
    { selector: 'node.amv-hidden', style: { display: 'none' } },
    // A relation type turned off in the legend.
    { selector: 'edge.amv-off', style: { display: 'none' } },
    {
      selector: 'node.amv-seed',
      style: { 'underlay-color': '#d6336c', 'underlay-padding': 7, 'underlay-opacity': 0.45, 'underlay-shape': 'ellipse' },
    },
    {
      selector: 'node.amv-walked',
      style: { 'underlay-color': '#fab005', 'underlay-padding': 9, 'underlay-opacity': 0.7, 'underlay-shape': 'ellipse', 'font-weight': 'bold' },
    },
    { selector: 'edge.amv-walked', style: { width: 4, 'line-color': '#f08c00', 'target-arrow-color': '#f08c00', color: c.walkedText, 'font-weight': 'bold', 'z-index': 10 } },
    {
      selector: 'node.amv-found',
      style: { 'underlay-color': c.focus, 'underlay-padding': 10, 'underlay-opacity': 0.55, 'underlay-shape': 'ellipse', 'font-weight': 'bold', 'z-index': 20 },
    },
    { selector: 'node:selected', style: { 'overlay-color': c.selected, 'overlay-opacity': 0.18, 'overlay-padding': 6 } },
    { selector: 'edge:selected', style: { width: 4, 'line-color': c.selected, 'target-arrow-color': c.selected, color: c.fg } },
  ];
}

/** Restyles a mounted cytoscape in `scheme`'s colours (the positions and classes stay). */
export function restyle(cy: Core, scheme: ColorScheme): void {
  cy.style(stylesheet(scheme));
}
