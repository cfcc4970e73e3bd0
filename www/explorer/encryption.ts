// Whether the open memory has a key, shown in the header as a lock and the word "encrypted"
// (not by colour alone). The package does not say whether a memory has a key, so the page
// remembers it where it opens one: every memory the explorer opens with a key goes through
// `openKeyed`.

import { openMemory, type AssociativeMemory, type OpenOptions } from 'associative-memory';
import { h } from './dom.js';

const keyed = new WeakSet<AssociativeMemory>();

/** `openMemory`, remembering that the memory has a key when `options.key` gives one. */
export async function openKeyed(options: OpenOptions): Promise<AssociativeMemory> {
  const memory = await openMemory(options);
  if (options.key !== undefined && options.key !== null) keyed.add(memory);
  return memory;
}

/** The header's badge, placed after `anchor`; `show(memory)` sets it for the memory open. */
/** A padlock drawn inline (an emoji needs a font the machine may lack); the word beside it says it. */
function lock(): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('width', '12');
  svg.setAttribute('height', '12');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const shackle = document.createElementNS(ns, 'path');
  shackle.setAttribute('d', 'M4.5 7V5a3.5 3.5 0 0 1 7 0v2');
  shackle.setAttribute('fill', 'none');
  shackle.setAttribute('stroke', 'currentColor');
  shackle.setAttribute('stroke-width', '2');
  const body = document.createElementNS(ns, 'rect');
  for (const [k, v] of Object.entries({ x: '2.5', y: '7', width: '11', height: '8', rx: '1.5', fill: 'currentColor' })) body.setAttribute(k, v);
  svg.append(shackle, body);
  return svg;
}

export function mountKeyBadge(anchor: HTMLElement): { show(memory: AssociativeMemory | null): void } {
  const badge = h('span', {
    class: 'keyed', dataset: { testid: 'keyed' }, hidden: true,
    title: 'This memory has a key: its file and its exports are encrypted, and only the key opens them',
  }, lock(), 'encrypted');
  anchor.after(badge);
  return {
    show(memory) {
      const on = !!memory && keyed.has(memory);
      badge.hidden = !on;
      document.body.dataset.keyed = String(on);
    },
  };
}
