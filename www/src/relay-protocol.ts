// The relay protocol of sync: the frames a device and a `MemoryRelay` exchange over one
// WebSocket (`GET /ws`), as types both sides import (the relay in relay.ts, the package's
// sync client), and the limits both keep. Every frame is one JSON text message; sealed bytes
// travel as standard base64. The relay orders what devices push into one append-only log per
// memory and never reads it: `sealed` is ciphertext made on a device, opaque to the relay.
//
// www/README.md, "Relay protocol", describes the exchange in prose.

import type { ErrorCode } from './errors.js';

/** The largest frame the relay reads, in bytes of its text: past it, `body_too_large`. */
export const MAX_FRAME = 1024 * 1024;

/** Device numbers are 1 … `MAX_DEVICE - 1` (they fit in 21 bits beside a 32-bit counter in a 53-bit id). */
export const MAX_DEVICE = 2 ** 21;

/** The longest `token` a hello may carry, in characters. */
export const MAX_TOKEN = 1024;

/** The close codes the relay ends a socket with after an error frame. */
export const CLOSE = {
  /** Another memory's token (the relay is claimed by another key). */
  unauthorized: 4401,
  /** A device number this relay never allocated. */
  forbidden: 4403,
  /** The relay holds another schema version. */
  schema: 4409,
} as const;

// ---- device → relay ------------------------------------------------------------------------

/**
 * The first frame of every connection. `token` is derived on the device from the memory's
 * key (the relay keeps only its SHA-256); `schema` is the device's schema version; `device`
 * its number, or `null` to be given one; `after` the last log position it holds (0: none).
 * The first hello on an empty relay claims it with its token and schema.
 */
export interface HelloFrame { type: 'hello'; token: string; schema: number; device: number | null; after: number }

/** A sealed changeset, the device's `seq`-th (1, 2, …): appended as the next position, once. */
export interface PushFrame { type: 'push'; seq: number; sealed: string }

/** A sealed snapshot of the memory as of log position `position` (`floor < position <= head`). */
export interface SnapshotUploadFrame { type: 'snapshot'; position: number; sealed: string }

/** Every frame a device sends. */
export type ClientFrame = HelloFrame | PushFrame | SnapshotUploadFrame;

// ---- relay → device ------------------------------------------------------------------------

/**
 * The answer to a hello: the socket's `device`, the log's `head` (its last position, 0 when
 * empty) and `floor` (the stored snapshot's position, 0 without one: entries at or below it
 * may have been compacted away), and `seq`, the last seq logged from this device (0: none):
 * a device drops the queued changesets up to it instead of pushing them again.
 */
export interface WelcomeFrame { type: 'welcome'; device: number; head: number; floor: number; seq: number }

/** The stored snapshot, sent after the welcome when the hello's `after` is below `floor`. */
export interface SnapshotFrame { type: 'snapshot'; position: number; sealed: string }

/** A log entry: to a connecting device (every one past `after`, in order), and to every other socket when pushed. */
export interface EntryFrame { type: 'entry'; position: number; device: number; seq: number; sealed: string }

/**
 * A push is in the log at `position`. Sent again for a push sent again; `position` is `null`
 * when that entry has since been compacted into the snapshot (it is at or below `floor`).
 */
export interface AckFrame { type: 'ack'; seq: number; position: number | null }

/** A snapshot upload was stored; compaction of the entries at or below `position` follows. */
export interface StoredFrame { type: 'stored'; position: number }

/** The error codes a relay answers with. */
export type RelayErrorCode = Extract<ErrorCode,
  'unauthorized' | 'forbidden' | 'schema' | 'out_of_order' | 'body_too_large' | 'invalid_value' | 'out_of_range'>;

/**
 * A refused frame: nothing of it was stored. `field` names the frame's field at fault;
 * `expected` (`out_of_order`) is the seq the relay waits for; `relay` (`schema`) its schema
 * version. `unauthorized`, `forbidden` and `schema` after a hello end the socket (`CLOSE`).
 */
export interface ErrorFrame {
  type: 'error';
  code: RelayErrorCode;
  message: string;
  field?: string;
  expected?: number;
  relay?: number;
}

/** Every frame the relay sends. */
export type RelayFrame = WelcomeFrame | SnapshotFrame | EntryFrame | AckFrame | StoredFrame | ErrorFrame;

// ---- base64 --------------------------------------------------------------------------------

/** Standard base64 with its padding: what `sealed` holds. */
export const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `bytes` as standard base64. */
export function toBase64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** The bytes of standard base64 `text` (checked with `BASE64` first). */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
