// The details as a sheet on a phone (explorer.css draws `.side` so below 760 px): opening
// it moves keyboard focus into it and closing (its button, or Escape) gives focus back to
// what opened it; and a message the page puts in the details while the sheet is closed
// shows in a line over the graph instead, where it can be seen. Wider, the details sit
// beside the graph: no focus moves, and messages stay in the panel.

import { h } from './dom.js';

export interface Sheet {
  /** Opens or closes the sheet. Opening moves focus into it unless `keepFocus` (typing in a find box). */
  open(open: boolean, options?: { keepFocus?: boolean }): void;
  /** Whether the details are a sheet here (a phone's layout), rather than a column. */
  isSheet(): boolean;
  /**
   * Where a message for the details goes: returned to be put in the panel when the panel is
   * seen, or, when it is a closed sheet, shown in the page's message line (null returned).
   */
  place(notice: HTMLElement | null): HTMLElement | null;
}

export function mountSheet(side: HTMLElement, bar: HTMLElement, close: HTMLButtonElement, fallback: () => HTMLElement | null): Sheet {
  let opener: HTMLElement | null = null;
  side.tabIndex = -1;
  const text = h('span', { dataset: { testid: 'toast-text' } });
  const toast = h('div', { class: 'toast', role: 'status', dataset: { testid: 'toast' }, hidden: true },
    text, h('button', { type: 'button', dataset: { testid: 'toast-dismiss' }, onclick: () => { toast.hidden = true; } }, 'Dismiss'));
  document.body.append(toast);

  const isSheet = () => getComputedStyle(bar).display !== 'none';
  const isOpen = () => document.body.classList.contains('sheet-open');

  function open(on: boolean, { keepFocus = false } = {}): void {
    const was = isOpen();
    document.body.classList.toggle('sheet-open', on);
    if (!isSheet() || on === was) return;
    if (on) {
      toast.hidden = true;
      if (keepFocus) return;
      opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
      side.focus({ preventScroll: true });
    } else if (side.contains(document.activeElement)) {
      // Back to what opened it, when it is still on screen; else the graph.
      const back = opener?.isConnected && opener.getClientRects().length ? opener : fallback();
      back?.focus();
    }
  }

  close.addEventListener('click', () => open(false));
  side.addEventListener('keydown', (ev) => { if (ev.key === 'Escape' && isSheet() && isOpen()) { ev.preventDefault(); open(false); } });

  return {
    open,
    isSheet,
    place(notice) {
      if (!notice) return null;
      if (!isSheet() || isOpen()) return notice;
      text.textContent = notice.textContent;
      toast.hidden = false;
      return null;
    },
  };
}
