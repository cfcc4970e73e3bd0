// The explorer's controls of how the graph is drawn: the layout, what a node's size tells,
// and the whole drawing as a PNG download. The logic is the view's (`setLayout`,
// `setNodeSize`, `png`); here the page's controls are wired to it and its errors shown
// beside them.

import type { GraphView, LayoutName, NodeSize } from 'associative-memory/view';
import { describeError } from './dom.js';

export interface DrawingHooks {
  /** Hands the PNG to the browser as a download named `name`. */
  save(png: Blob, name: string): void;
  /** The download's name, `<agent>-graph-<date>.png`. */
  fileName(): string;
}

/** Wires `#layout`, `#node-size` and `#png-btn` to `view`; a failure shows in `#drawing-error`. */
export function mountDrawingControls(view: GraphView, hooks: DrawingHooks): void {
  const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
  const layout = $<HTMLSelectElement>('layout');
  const size = $<HTMLSelectElement>('node-size');
  const png = $<HTMLButtonElement>('png-btn');
  const error = $('drawing-error');
  const fail = (what: string) => (err: unknown) => {
    error.textContent = `${what}: ${describeError(err)}`;
    error.hidden = false;
  };
  const clear = () => { error.textContent = ''; error.hidden = true; };

  layout.addEventListener('change', () => {
    clear();
    view.setLayout(layout.value as LayoutName).catch(fail('Could not lay out the graph'));
  });
  size.addEventListener('change', () => {
    clear();
    try { view.setNodeSize(size.value as NodeSize); } catch (err) { fail('Could not size the nodes')(err); }
  });
  png.addEventListener('click', () => {
    clear();
    view.png().then((blob) => {
      hooks.save(blob, hooks.fileName());
      png.dataset.saved = String(blob.size);
    }).catch(fail('No PNG'));
  });
}
