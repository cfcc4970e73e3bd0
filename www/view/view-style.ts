// How the graph view looks: the hop-ring palette, the CSS of the elements around the canvas,
// and cytoscape's stylesheet. Kept apart from the DOM and the state so a restyle touches
// one file, and so the legend and the nodes read their colours from the same two arrays.

import type { StylesheetJson } from 'cytoscape';

/** Fill of a node by its ring (hops from the start); the last colour serves ring 5 and beyond. */
export const RING_COLOURS = ['#e8590c', '#1971c2', '#2f9e44', '#9c36b5', '#e67700', '#495057'];
/** Border of a node by its ring, a darker shade of its fill. */
export const RING_BORDERS = ['#a33b00', '#0b4f8a', '#1b6b2b', '#6a1b80', '#a34f00', '#212529'];

/** Node diameter by mentions: grows with the square root, so a busy entity does not swamp the drawing. */
export const sizeOf = (mentions: number) => Math.round(Math.min(64, 18 + 7 * Math.sqrt(mentions)));

const STYLE_ID = 'amv-style';
const CSS = `
.amv-root{position:relative;display:flex;flex-direction:column;min-height:0;font:13px/1.4 system-ui,sans-serif;color:#212529}
.amv-canvas{position:relative;flex:1 1 auto;min-height:200px;background:#fbfbfc;border:1px solid #dee2e6;border-radius:6px;overflow:hidden}
.amv-canvas:focus-visible{outline:3px solid #1971c2;outline-offset:1px}
.amv-legend{position:absolute;left:8px;bottom:6px;z-index:2;display:flex;gap:8px;flex-wrap:wrap;font-size:11px;background:rgba(255,255,255,.85);padding:2px 6px;border-radius:4px;pointer-events:none}
.amv-legend i{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:3px;vertical-align:-1px;border:2px solid}
.amv-empty[hidden]{display:none}
.amv-controls{position:absolute;top:6px;right:6px;z-index:3;display:flex;gap:4px}
.amv-controls button{min-width:32px;height:32px;font:600 15px/1 system-ui,sans-serif;border:1px solid #adb5bd;background:#fff;color:#212529;border-radius:6px;cursor:pointer;padding:0 8px}
.amv-controls button:hover{background:#e9ecef}
.amv-controls button:focus-visible,.amv-predicates button:focus-visible{outline:3px solid #1971c2;outline-offset:1px}
.amv-predicates[hidden]{display:none}
.amv-predicates{display:flex;flex-wrap:wrap;align-items:center;gap:4px;margin-top:6px;font-size:12px;max-height:80px;overflow:auto}
@media (max-width:600px){.amv-predicates{max-height:52px}}
.amv-predicates-label{color:#495057;margin-right:2px}
.amv-predicates button{font:inherit;height:24px;line-height:20px;white-space:nowrap;border:1px solid #ced4da;background:#fff;color:#212529;border-radius:12px;padding:1px 8px;cursor:pointer}
.amv-predicates button i{display:inline-block;width:14px;height:0;border-top:2px solid #868e96;margin-right:4px;vertical-align:3px}
.amv-predicates button .amv-count{color:#495057}
.amv-predicates button[aria-pressed=false]{background:#f1f3f5;color:#495057;text-decoration:line-through}
.amv-predicates button[aria-pressed=false] i{border-top-style:dotted}
.amv-empty{position:absolute;inset:0;display:flex;align-items:center;justify-content:center;color:#868e96;pointer-events:none;padding:1em;text-align:center}
.amv-list{margin-top:6px;font-size:12px}
.amv-list summary{cursor:pointer;color:#495057;min-height:24px;line-height:24px}
.amv-list ul{list-style:none;margin:4px 0;padding:0;display:flex;flex-wrap:wrap;gap:4px;max-height:9em;overflow:auto}
.amv-list button{font:inherit;min-height:24px;min-width:24px;border:1px solid #ced4da;background:#fff;border-radius:4px;padding:1px 6px;cursor:pointer;color:#212529}
.amv-list button[aria-pressed=true]{background:#212529;color:#fff}
.amv-list button:focus-visible{outline:3px solid #1971c2}
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

/**
 * Cytoscape's stylesheet. The classes it styles are set by the DOM module: `expanded` (the
 * node's neighbourhood is drawn), `amv-hidden` (hidden by `hide`), `amv-found` (`reveal`), `amv-off` (an edge whose predicate the legend turned off), `amv-walked` / `amv-seed` / `amv-dim` (a highlight).
 */
export function stylesheet(): StylesheetJson {
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
    { selector: 'edge.amv-walked', style: { width: 4, 'line-color': '#f08c00', 'target-arrow-color': '#f08c00', color: '#a34f00', 'font-weight': 'bold', 'z-index': 10 } },
    {
      selector: 'node.amv-found',
      style: { 'underlay-color': '#1971c2', 'underlay-padding': 10, 'underlay-opacity': 0.55, 'underlay-shape': 'ellipse', 'font-weight': 'bold', 'z-index': 20 },
    },
    { selector: 'node:selected', style: { 'overlay-color': '#212529', 'overlay-opacity': 0.18, 'overlay-padding': 6 } },
    { selector: 'edge:selected', style: { width: 4, 'line-color': '#212529', 'target-arrow-color': '#212529', color: '#000' } },
  ];
}
