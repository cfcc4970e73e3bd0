// Sealing for sync: what a device sends a relay is sealed here, on the device, and the relay
// (relay.ts) only ever holds the sealed bytes. Two keys are derived from the memory's `key`
// and its sync id `memory` (the relay's route name) with WebCrypto: the seal key
// (XChaCha20-Poly1305, `@noble/ciphers`) and the token a relay is claimed and opened with.
//
//   ikm       = the key's 32 raw bytes, or for a passphrase
//               PBKDF2-SHA256(passphrase, "associative-memory sync " + memory, 600,000 rounds, 32 bytes)
//   seal key  = HKDF-SHA256(ikm, salt "associative-memory sync " + memory, info "seal", 32 bytes)
//   token     = base64url(HKDF-SHA256(ikm, same salt, info "token", 32 bytes))
//
// Sealed bytes = 0x01 ‖ a random 24-byte nonce ‖ XChaCha20-Poly1305 of (u32 LE length ‖ bytes ‖
// zeros up to a multiple of 512 bytes), with the entry's place as associated data:
// `${memory}\nchange\n${device}\n${seq}` for a change, `${memory}\nsnapshot\n${position}` for a
// snapshot. So the relay sees sizes only to 512 bytes, and cannot move a change to another
// device or seq, a snapshot to another position, or either to another memory: unsealing fails
// (`wrong_key`), as it does under another key.

import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { memoryError } from './errors.js';
import type { Key } from './rpc.js';

/** The first byte of sealed bytes: this format. */
const VERSION = 1;
const NONCE = 24;
/** The plaintext is padded to a multiple of this. */
export const PAD = 512;
/** PBKDF2's rounds for a passphrase. */
export const PBKDF2_ROUNDS = 600_000;

/** The keys of one memory's sync. */
export interface SyncKeys {
  /** The sync id they were derived for. */
  memory: string;
  /** XChaCha20-Poly1305's key. */
  seal: Uint8Array;
  /** What the relay is claimed and opened with (it keeps its SHA-256). */
  token: string;
}

const utf8 = (text: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(text);

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The seal key and the token of the memory `memory` under `key` (a passphrase costs PBKDF2's 600,000 rounds). */
export async function deriveKeys(key: Key, memory: string): Promise<SyncKeys> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw memoryError('invalid_value', 'sync needs WebCrypto (crypto.subtle), which this runtime lacks', 'sync');
  const salt = utf8(`associative-memory sync ${memory}`);
  let ikm: Uint8Array<ArrayBuffer>;
  if (typeof key === 'string') {
    if (key.length === 0) throw memoryError('invalid_value', 'key must not be an empty passphrase', 'key');
    const pass = await subtle.importKey('raw', utf8(key), 'PBKDF2', false, ['deriveBits']);
    ikm = new Uint8Array(await subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations: PBKDF2_ROUNDS }, pass, 256));
  } else {
    if (key.length !== 32) throw memoryError('invalid_value', `key must be 32 bytes, got ${key.length}`, 'key');
    ikm = new Uint8Array(key);
  }
  const base = await subtle.importKey('raw', ikm, 'HKDF', false, ['deriveBits']);
  const derive = async (info: string) => new Uint8Array(await subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt, info: utf8(info) }, base, 256));
  return { memory, seal: await derive('seal'), token: base64url(await derive('token')) };
}

/** The associated data of a change: its memory, device and seq. */
export const changePlace = (memory: string, device: number, seq: number): string => `${memory}\nchange\n${device}\n${seq}`;
/** The associated data of a snapshot: its memory and position. */
export const snapshotPlace = (memory: string, position: number): string => `${memory}\nsnapshot\n${position}`;

/** `bytes` sealed under `keys` for the place `place` (changePlace, snapshotPlace). */
export function seal(keys: SyncKeys, place: string, bytes: Uint8Array): Uint8Array {
  const padded = new Uint8Array(Math.ceil((4 + bytes.length) / PAD) * PAD);
  new DataView(padded.buffer).setUint32(0, bytes.length, true);
  padded.set(bytes, 4);
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE));
  const sealed = xchacha20poly1305(keys.seal, nonce, utf8(place)).encrypt(padded);
  const out = new Uint8Array(1 + NONCE + sealed.length);
  out[0] = VERSION;
  out.set(nonce, 1);
  out.set(sealed, 1 + NONCE);
  return out;
}

/**
 * The bytes `sealed` holds, or `wrong_key` when they were not sealed under `keys` for
 * `place` (another key, another memory, another place) or were changed since.
 */
export function unseal(keys: SyncKeys, place: string, sealed: Uint8Array): Uint8Array {
  const refused = () => memoryError('wrong_key', `an entry of the sync log (${place.split('\n').slice(1).join(' ')}) does not unseal with this memory's key: the relay holds another key's data, or the entry was altered`);
  if (sealed.length < 1 + NONCE + 16 + PAD || sealed[0] !== VERSION) throw refused();
  let padded: Uint8Array;
  try {
    padded = xchacha20poly1305(keys.seal, sealed.subarray(1, 1 + NONCE), utf8(place)).decrypt(sealed.subarray(1 + NONCE));
  } catch {
    throw refused();
  }
  const length = new DataView(padded.buffer, padded.byteOffset, padded.byteLength).getUint32(0, true);
  if (4 + length > padded.length) throw refused();
  return padded.slice(4, 4 + length);
}
