// What the explorer's panels share for drawing: an element builder and the few ways they
// write times, counts, sources and errors.

import type { Source } from 'associative-memory';

/** Create an element: h('p', {class: 'x', dataset: {a: '1'}}, 'text', child). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, any> = {}, ...children: (Node | string | null | undefined | false)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k in node && typeof v !== 'string') (node as any)[k] = v;
    else node.setAttribute(k, String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

/** `2024-03-01 09:30` from an ISO timestamp (as stored: UTC). */
export const shortTime = (ts?: string) => {
  const m = typeof ts === 'string' ? ts.match(/^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d)/) : null;
  return m ? `${m[1]} ${m[2]}` : ts ?? '';
};

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** An engine error as `code (field): message`; anything else as its message. */
export const describeError = (err: any) => (err && typeof err === 'object' && 'code' in err ? `${err.code}${err.field ? ` (${err.field})` : ''}: ${err.message}` : String(err?.message ?? err));

export function sourceText(source: Source | undefined): string {
  if (!source) return '';
  return [source.type, source.name || source.id].filter(Boolean).join(' · ');
}
