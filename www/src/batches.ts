// Splitting many memories into the batches one `storeMany` takes.

import { LIMITS } from './operations.js';
import type { StoreItem } from './types.js';

/** A run of consecutive items, and where it starts in the list it was cut from. */
export interface StoreBatch<T> {
  /** The index of its first item in the whole list. */
  readonly start: number;
  /** The items, in order. */
  readonly items: T[];
}

/**
 * Cuts `items` into consecutive batches that one `storeMany` takes: at most `size` items
 * (at most the engine's 10,000) and 16 Mi characters of `content` in each, counted as
 * JavaScript counts a string's length (UTF-16 units, never fewer than the engine's
 * characters). Each batch is one transaction, so an import of more stores in several. An
 * item longer than a batch allows is a batch of its own, which the engine then refuses
 * naming it.
 */
export function storeBatches<T extends Pick<StoreItem, 'content'>>(items: readonly T[], size: number = LIMITS.batch): StoreBatch<T>[] {
  const most = Math.max(1, Math.min(size, LIMITS.batch));
  const out: StoreBatch<T>[] = [];
  let current: T[] = [];
  let start = 0;
  let characters = 0;
  items.forEach((item, i) => {
    const length = typeof item.content === 'string' ? item.content.length : 0;
    if (current.length > 0 && (current.length === most || characters + length > LIMITS.batchContent)) {
      out.push({ start, items: current });
      current = [];
      start = i;
      characters = 0;
    }
    current.push(item);
    characters += length;
  });
  if (current.length > 0) out.push({ start, items: current });
  return out;
}
