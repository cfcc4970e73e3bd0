// Undo and history: every step of the explorer that writes (a curation step, a memory edited
// or deleted, an import that adds to the open memory or replaces an OPFS one) is kept, since
// the source was opened, so that it and every later one can be undone, restoring exactly what
// was there: content, ids, refs, declarations and timestamps.
//
// How. The engine has no operation that restores deleted records, so a step is kept as whole
// database images: `export()` before and after it, and undo `import()`s the image from before.
// An import restores every row as it was (ids, refs, declarations, timestamps) by
// construction, checked as any import is, in one step; an OPFS memory keeps it in its file
// (it outlives a reload) and a memory with a key keeps its key.
//
// What is held. Not every image: the image after the newest step (`head`), and for each step
// the pages of the image before it that differ from the image after it (a reverse page delta:
// a step changes a few pages, an alias 3 of the demo's 144, an entity deleted 31). Undoing
// back to a step applies the deltas newest first to `head` and imports the result. The page
// size is the image's own (bytes 16–17 of SQLite's header). The deltas together are capped at
// `HISTORY_BYTES`; past it the oldest steps are dropped and the panel says so. Cost per step:
// two exports and two comparisons of the images in page memory, 2 ms for the demo and 16–42
// ms at 5,000 entities; an undo is an import, 0.2 s and 1.1–1.8 s (BENCHMARKS.md, "Explorer
// undo").
// Keeping whole images instead would hold 0.6 MB (6.6 MB) per step, where a delta is 12 KB
// for an alias; one image, the newest, is held either way.
//
// Images are taken decrypted (`export({decrypt: true})`): an encrypted export is encrypted
// anew each time (a fresh nonce per page), so no two would share a page, and decrypting it
// again would cost a rebuild per step. The page can read all of it anyway (an in-memory
// memory with a key is plain in the page's memory: www/README.md, "Encryption at rest"), and
// `import` of plain bytes into a memory with a key keeps the key, so its exports stay
// encrypted under it.
//
// A step's images bracket only its own write, taken in one queue with every other step and
// undo. When the image before a step is not `head`, something outside this page changed the
// memory (another tab on the same OPFS memory, the console): undoing past that would undo it
// too, so the older steps are dropped, and the panel says why.

import type { AssociativeMemory } from 'associative-memory';
import { describeError, h, plural } from './dom.js';

/** What the history needs of the page around it. */
export interface HistoryHost {
  /** The open memory; null while none is. */
  memory(): AssociativeMemory | null;
  /** The agent the page is showing (a step is taken as it), shown beside each step. */
  agentId(): string;
  /** Asks before a destructive step; resolves true to go on. */
  confirm(text: string, action: string): Promise<boolean>;
  /** After an undo: the graph, the panel, the memories and the counts follow. */
  restored(notice: string): Promise<void>;
  /** Called whenever the number of steps changes (the History tab shows it). */
  counted(steps: number): void;
}

export interface HistoryView {
  /**
   * Runs `write`, one step that changes the memory, and keeps what it changed so it can be
   * undone, as `label` says it ("Deleted entity Kaito Mori"), listed as written by `agent`
   * (by default the page's). A step that changed nothing is not listed. Resolves or rejects
   * as `write` does.
   */
  step<T>(label: string, write: () => Promise<T>, agent?: string): Promise<T>;
  /** Undoes the newest step (Ctrl/Cmd+Z); nothing when there is none. */
  undo(): Promise<void>;
  /** Forgets every step: a new source was opened (`label` names it, as the panel will). */
  reset(label: string): void;
  /** What the kept deltas may hold together before the oldest steps are dropped (`HISTORY_BYTES`). */
  maxBytes: number;
}

/** The pages of the image before a step that differ from the image after it. */
interface Delta {
  /** The length of the image before, in bytes. */
  length: number;
  /** The page size the image was compared in. */
  size: number;
  /** Page numbers, ascending. */
  pages: Uint32Array;
  /** Those pages, one after another (the last may be short). */
  data: Uint8Array;
}

interface Step { label: string; at: Date; agent: string; delta: Delta }

/** What the deltas together may hold before the oldest steps are dropped. */
export const HISTORY_BYTES = 64 * 1024 * 1024;

/** The page size of an SQLite image (header bytes 16–17, big-endian; 1 means 65,536). */
function pageSize(image: Uint8Array): number {
  const n = image.length >= 100 ? (image[16]! << 8) | image[17]! : 0;
  const size = n === 1 ? 65_536 : n;
  // Not a database header: compare the image as one piece.
  return size >= 512 && (size & (size - 1)) === 0 ? size : Math.max(1, image.length);
}

/** Whether `a[from, to)` equals `b[from, to)`; `b` may be shorter (then they differ). */
function sameRange(a: Uint8Array, b: Uint8Array, from: number, to: number): boolean {
  if (b.length < to) return false;
  let i = from;
  // Four bytes at a time where both views allow it (the comparison is most of a step's cost).
  if ((a.byteOffset + i) % 4 === 0 && (b.byteOffset + i) % 4 === 0) {
    const words = (to - i) >> 2;
    const x = new Uint32Array(a.buffer, a.byteOffset + i, words);
    const y = new Uint32Array(b.buffer, b.byteOffset + i, words);
    for (let k = 0; k < words; k++) if (x[k] !== y[k]) return false;
    i += words * 4;
  }
  for (; i < to; i++) if (a[i] !== b[i]) return false;
  return true;
}

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && sameRange(a, b, 0, a.length);

/** The reverse delta of a step: what of `before` differs from `after`, page by page. */
export function reverseDelta(after: Uint8Array, before: Uint8Array): Delta {
  const size = pageSize(before);
  const pages: number[] = [];
  for (let p = 0, at = 0; at < before.length; p++, at += size) {
    if (!sameRange(before, after, at, Math.min(at + size, before.length))) pages.push(p);
  }
  const data = new Uint8Array(pages.reduce((n, p) => n + Math.min(size, before.length - p * size), 0));
  let o = 0;
  for (const p of pages) {
    const page = before.subarray(p * size, Math.min((p + 1) * size, before.length));
    data.set(page, o);
    o += page.length;
  }
  return { length: before.length, size, pages: Uint32Array.from(pages), data };
}

/** The image before a step, from the image after it and the step's delta. */
export function applyDelta(after: Uint8Array, delta: Delta): Uint8Array {
  const out = new Uint8Array(delta.length);
  out.set(after.subarray(0, Math.min(after.length, delta.length)));
  let o = 0;
  for (const p of delta.pages) {
    const n = Math.min(delta.size, delta.length - p * delta.size);
    out.set(delta.data.subarray(o, o + n), p * delta.size);
    o += n;
  }
  return out;
}

const bytesOf = (d: Delta) => d.data.length + d.pages.length * 4;
const kib = (n: number) => (n < 1024 * 1024 ? `${Math.max(1, Math.round(n / 1024))} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`);
const clockTime = (d: Date) => d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** The memory's image as the history keeps it: plain SQLite bytes (see the top of this file). */
const snapshot = (memory: AssociativeMemory) => memory.export({ decrypt: true });

export function mountHistory(root: HTMLElement, host: HistoryHost): HistoryView {
  /** Oldest first. */
  let steps: Step[] = [];
  /** The image after the newest step (null before the first). */
  let head: Uint8Array | null = null;
  /** The memory the steps were taken on: another one is a new source. */
  let owner: AssociativeMemory | null = null;
  let sourceLabel = '';
  /** Steps dropped since the source was opened. */
  let dropped = 0;
  let maxBytes = HISTORY_BYTES;
  /** Why older steps are not listed, if any were dropped. */
  let droppedNote = '';
  /** Steps and undos run one at a time, so each step's images bracket its write alone. */
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };

  const summary = h('p', { class: 'muted', dataset: { testid: 'history-summary' }, role: 'status' });
  const error = h('p', { class: 'error', dataset: { testid: 'history-error' }, role: 'alert', hidden: true });
  const note = h('p', { class: 'notice', dataset: { testid: 'history-dropped' }, hidden: true });
  /** What the last undo did (the details panel says it too, but on a phone it is out of sight). */
  const done = h('p', { class: 'notice', dataset: { testid: 'history-done' }, role: 'status', hidden: true });
  const list = h('ol', { class: 'records history-list', dataset: { testid: 'history-list' }, reversed: true });
  root.replaceChildren(summary, done, note, error, h('div', { class: 'scroll' }, list));

  function forget(memory: AssociativeMemory | null, label: string): void {
    steps = [];
    head = null;
    owner = memory;
    sourceLabel = label;
    droppedNote = '';
    dropped = 0;
    error.hidden = true;
    done.hidden = true;
    render();
  }

  /** Drops the `count` oldest steps, and says how many are gone and `why` (the latest reason). */
  function drop(count: number, why: string): void {
    steps = steps.slice(count);
    dropped += count;
    droppedNote = `${plural(dropped, 'older step was', 'older steps were')} dropped ${why}; they can no longer be undone.`;
  }

  function render(): void {
    const held = steps.reduce((n, s) => n + bytesOf(s.delta), 0);
    root.dataset.steps = String(steps.length);
    root.dataset.bytes = String(held);
    summary.textContent = steps.length
      ? `${plural(steps.length, 'step')} since the ${sourceLabel || 'memory'} was opened, newest first (${kib(held)} kept to undo them). Ctrl+Z (⌘Z on a Mac) undoes the newest when no text field has the focus.`
      : `Nothing to undo: no step has changed the ${sourceLabel || 'memory'} since it was opened. Each curation step, memory edit or delete, and import will be listed here, to undo.`;
    note.textContent = droppedNote;
    note.hidden = !droppedNote;
    const newest = steps.length - 1;
    list.replaceChildren(...steps.map((s, i) => h('li', { dataset: { testid: 'history-step', index: String(i) } },
      h('div', { class: 'meta' },
        h('time', { datetime: s.at.toISOString() }, clockTime(s.at)),
        h('span', {}, `agent ${s.agent}`),
        h('span', {}, `${kib(bytesOf(s.delta))} kept`),
        h('span', { class: 'actions' }, h('button', {
          type: 'button', dataset: { testid: i === newest ? 'history-undo' : 'history-undo-to' },
          'aria-label': i === newest ? `Undo: ${s.label}` : `Undo back to here… ${s.label}, and the ${plural(newest - i, 'later step')}`,
          onclick: () => void undoTo(i),
        }, i === newest ? 'Undo' : 'Undo back to here…'))),
      h('p', { dataset: { testid: 'history-label' } }, s.label))).reverse());
    host.counted(steps.length);
  }

  function step<T>(label: string, write: () => Promise<T>, agent = host.agentId()): Promise<T> {
    return serial(async () => {
      const memory = host.memory();
      if (!memory) return write();
      if (memory !== owner) forget(memory, sourceLabel);
      done.hidden = true;
      const started = performance.now();
      const before = await snapshot(memory);
      if (head && !same(before, head) && steps.length) {
        drop(steps.length, 'because the memory was changed outside this page (another tab, or the console), and undoing them would undo that too');
      }
      let failure: { err: unknown } | null = null;
      let result: T | undefined;
      const stepStart = performance.now();
      try {
        result = await write();
      } catch (err) {
        failure = { err };
      }
      const writing = performance.now() - stepStart;
      const after = await snapshot(memory);
      head = after;
      const delta = reverseDelta(after, before);
      if (delta.pages.length || before.length !== after.length) {
        steps.push({ label: failure ? `${label} (stopped by an error part way)` : label, at: new Date(), agent, delta });
        root.dataset.lastStepMs = String(Math.round((performance.now() - started - writing) * 10) / 10);
        bound();
      }
      render();
      if (failure) throw failure.err;
      return result as T;
    });
  }

  /** Drops the oldest steps while the deltas hold more than `maxBytes`. */
  function bound(): void {
    let held = steps.reduce((n, s) => n + bytesOf(s.delta), 0);
    let count = 0;
    while (held > maxBytes && count < steps.length) held -= bytesOf(steps[count++]!.delta);
    if (count) drop(count, `to keep what undo holds within ${kib(maxBytes)}`);
  }

  /** Undoes step `index` and every later one, asking first when there is more than one. */
  async function undoTo(index: number): Promise<void> {
    const undone = steps.slice(index).reverse();
    if (!undone.length) return;
    error.hidden = true;
    if (root.dataset.busy) return;
    if (undone.length > 1 && !(await host.confirm(
      `Undo these ${undone.length} steps, newest first?\n${undone.map((s, i) => `${i + 1}. ${s.label}`).join('\n')}\nThe memory goes back to what it was before the oldest of them.`,
      `Undo ${plural(undone.length, 'step')}`))) return;
    // An undo imports the whole database (a second at 5,000 entities): say so meanwhile.
    root.dataset.busy = 'true';
    summary.textContent = `Undoing ${undone.length === 1 ? `“${undone[0]!.label}”` : `${undone.length} steps`}…`;
    for (const b of list.querySelectorAll('button')) b.disabled = true;
    try {
      await serial(async () => {
        const memory = host.memory();
        if (!memory || memory !== owner || !head || steps.length !== index + undone.length) throw new Error('the history changed while the question was open; nothing was undone');
        const now = await snapshot(memory);
        if (!same(now, head)) {
          forget(memory, sourceLabel);
          droppedNote = 'The history was cleared: the memory was changed outside this page (another tab, or the console) since the last step, and undoing would undo that too. Nothing was undone.';
          throw new Error('the memory was changed outside this page; nothing was undone');
        }
        let image = head;
        for (const s of undone) image = applyDelta(image, s.delta);
        await memory.import(image);
        // The import rebuilds the database: the same rows, pages laid out anew. The next
        // delta is taken against what the memory now exports, so later undos compare alike.
        head = await snapshot(memory);
        steps = steps.slice(0, index);
        const older = steps.at(-1);
        if (older) older.delta = reverseDelta(head, applyDelta(image, older.delta));
        // Nothing left to undo: the image need not be held until the next step.
        else head = null;
      });
    } catch (err) {
      error.textContent = `Could not undo: ${describeError(err)}`;
      error.hidden = false;
      render();
      return;
    } finally {
      delete root.dataset.busy;
    }
    const notice = undone.length === 1 ? `Undone: ${undone[0]!.label}.` : `Undone ${undone.length} steps, back to before: ${undone.at(-1)!.label}.`;
    done.textContent = notice;
    done.hidden = false;
    render();
    await host.restored(notice);
  }

  render();
  return {
    step,
    undo: () => undoTo(steps.length - 1),
    reset: (label) => forget(host.memory(), label),
    get maxBytes() { return maxBytes; },
    set maxBytes(bytes: number) { maxBytes = bytes; bound(); render(); },
  };
}
