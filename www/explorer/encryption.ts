// Whether the open memory has a key, shown in the header as a lock and the word "encrypted"
// (not by colour alone). The package does not say whether a memory has a key, so the page
// remembers it where it opens one: every memory the explorer opens with a key goes through
// `openKeyed`.

import { openMemory, type AssociativeMemory, type OpenOptions } from 'associative-memory';
import { h } from './dom.js';

const keyed = new WeakSet<AssociativeMemory>();
/** How each memory was opened, so a closed one can be opened again as it was (`reopen`). */
const opened = new WeakMap<AssociativeMemory, OpenOptions>();

/** `openMemory`, remembering that the memory has a key when `options.key` gives one. */
export async function openKeyed(options: OpenOptions): Promise<AssociativeMemory> {
  const memory = await openMemory(options);
  if (options.key !== undefined && options.key !== null) keyed.add(memory);
  opened.set(memory, options);
  return memory;
}

/**
 * Opens again, with the same options and key, a memory `openKeyed` opened and that was closed
 * since: an OPFS name is open once per page, so opening it with another key closes it first,
 * and a wrong key must leave it as it was.
 */
export function reopen(memory: AssociativeMemory): Promise<AssociativeMemory> {
  const options = opened.get(memory);
  if (!options) return Promise.reject(new Error('this memory was not opened by the explorer'));
  return openKeyed(options);
}

/**
 * A key as typed: 64 hex digits are a raw key (32 bytes, what `associative-memory-mcp` and
 * `MEMORY_KEY` take too), anything else a passphrase; empty is no key.
 */
export function keyFromText(text: string): string | Uint8Array | undefined {
  if (!text) return undefined;
  return /^[0-9a-fA-F]{64}$/.test(text) ? Uint8Array.from(text.match(/../g)!, (pair) => parseInt(pair, 16)) : text;
}

/**
 * What to say when `what` ("the OPFS memory “notes”") did not open for its key: a wrong key
 * (`wrong_key`) or none for an encrypted memory (`encrypted`); null for any other failure.
 */
export function keyErrorText(err: unknown, what: string): string | null {
  const code = (err as { code?: string } | null)?.code;
  if (code === 'wrong_key') return `The key does not open ${what} (a wrong key, or a memory without one): nothing was opened.`;
  if (code === 'encrypted') return `${what[0]!.toUpperCase()}${what.slice(1)} is encrypted: give its key to open it.`;
  return null;
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
