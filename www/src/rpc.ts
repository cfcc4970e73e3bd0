// The channels to the OPFS worker: from the tab that started it, a postMessage RPC
// (requests carry ids, replies the value or a structured error, and a worker that dies
// rejects every pending call instead of leaving it hanging); from the other tabs using the
// same memory, a BroadcastChannel the worker also listens on (share.ts).

import { errorFromData, memoryError, type ErrorData } from './errors.js';

/** An encrypted memory's key: 32 bytes, or a passphrase. */
export type Key = Uint8Array | string;

/**
 * The Web Lock the OPFS worker holds while it has memory `name` open. It is let go when the
 * worker ends, however it ends, which is how the main thread notices a worker that closed
 * or was stopped without an `error` event.
 */
export function lockName(name: string): string {
  return `associative-memory:${name}`;
}

/**
 * The Web Lock that elects the tab holding memory `name`: the first to take it starts the
 * worker, the others use that worker over the BroadcastChannel until it is let go.
 */
export function holderLockName(name: string): string {
  return `associative-memory-holder:${name}`;
}

/**
 * The lock the worker of holder `holder` keeps while it serves memory `name`: another tab
 * learns that this holder is gone (closed, crashed, its tab closed) when it is granted it.
 */
export function holderIdLockName(name: string, holder: string): string {
  return `associative-memory-holder:${name}:${holder}`;
}

/**
 * The lock a tab takes, and keeps while it lives, before it closes its holder `holder` of
 * memory `name`. The lock `holderIdLockName` names can come free before the holder's `gone`
 * message arrives; a tab granted it that finds this lock held knows the holder closed and
 * waits for `gone` to tell which of its calls were not run.
 */
export function holderClosingLockName(name: string, holder: string): string {
  return `associative-memory-closing:${name}:${holder}`;
}

/**
 * A key's SHA-256, raw keys and passphrases kept apart (null for no key): what another tab
 * sends the holder to have its key checked, so that the key itself never crosses the
 * BroadcastChannel.
 */
export async function keyDigest(key: Uint8Array | string | null | undefined): Promise<string | null> {
  if (key == null) return null;
  const tag = new TextEncoder().encode(typeof key === 'string' ? 'passphrase:' : 'raw:');
  const body = typeof key === 'string' ? new TextEncoder().encode(key) : key;
  const bytes = new Uint8Array(tag.length + body.length);
  bytes.set(tag);
  bytes.set(body, tag.length);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The BroadcastChannel between the holder's worker and the other tabs using memory `name`. */
export function channelName(name: string): string {
  return `associative-memory:${name}`;
}

/** The version of the BroadcastChannel messages; a holder speaking another is not shared with. */
export const PROTOCOL = 2;

/** The messages on the BroadcastChannel (`v` is always PROTOCOL). */
export type ShareMessage =
  /** A tab asks the holder to announce itself. */
  | { kind: 'hello'; v: number }
  /** The worker of `holder` is open and takes requests addressed to it. */
  | { kind: 'ready'; v: number; holder: string }
  /** Request `id` of tab `client` for holder `holder`: a worker method with its arguments. */
  | { kind: 'request'; v: number; holder: string; client: string; id: number; method: string; args: unknown[] }
  /** The reply to request `id` of tab `client`. */
  | ({ kind: 'reply'; v: number; holder: string; client: string } & RpcReply)
  /** How far request `id` of tab `client` has got (a `storeMany`). */
  | { kind: 'progress'; v: number; holder: string; client: string; id: number; progress: Progress }
  /**
   * Holder `holder` closed: it answered every request it took before this message, and
   * takes none after it; a request without a reply was not run.
   */
  | { kind: 'gone'; v: number; holder: string };

/** A request: `method` of the worker's handlers, with its arguments. */
export interface RpcRequest { id: number; method: string; args: unknown[] }
/** A reply to request `id`. */
export type RpcReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: ErrorData };
/** How far a long request has got: `done` of `total` items. */
export interface Progress { done: number; total: number }
/** A progress report on request `id`, sent before its reply. */
export interface RpcProgress { id: number; progress: Progress }
/**
 * The worker's engine trapped (`error` is the trap): it answered what it was running with
 * `engine_crashed`, runs nothing more, and a request it has not answered was not run.
 */
export interface RpcCrashed { crashed: ErrorData }

/** What the client needs of a Worker (a real one, or a test double). */
export interface Endpoint {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: 'message' | 'error' | 'messageerror', listener: (event: Event) => void): void;
  terminate(): void;
}

/** The main thread's side: `call` returns a promise per request. */
export class RpcClient<Api extends Record<string, (...args: never[]) => unknown>> {
  #next = 1;
  #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; onProgress?: (p: Progress) => void }>();
  #dead: Error | null = null;

  /** `onCrashed` hears the worker say its engine trapped (RpcCrashed), after the replies it sent before. */
  constructor(private readonly endpoint: Endpoint, onCrashed?: (trap: Error) => void) {
    endpoint.addEventListener('message', (event) => {
      const reply = (event as MessageEvent<RpcReply | RpcProgress | RpcCrashed>).data;
      if ('crashed' in reply) {
        onCrashed?.(errorFromData(reply.crashed));
        return;
      }
      const pending = this.#pending.get(reply.id);
      if (!pending) return;
      if ('progress' in reply) {
        pending.onProgress?.(reply.progress);
        return;
      }
      this.#pending.delete(reply.id);
      if (reply.ok) pending.resolve(reply.value);
      else pending.reject(errorFromData(reply.error));
    });
    const crash = (what: string) => (event: Event) => {
      const detail = (event as ErrorEvent).message;
      event.preventDefault?.();
      this.fail(memoryError('worker_crashed', `the memory's worker ${what}${detail ? `: ${detail}` : ''}`));
    };
    endpoint.addEventListener('error', crash('failed (it crashed, or its script could not be loaded)'));
    endpoint.addEventListener('messageerror', crash('sent a message that could not be read'));
  }

  /** Calls `method` in the worker; `onProgress` hears the progress it reports. */
  call<M extends keyof Api & string>(
    method: M, args: Parameters<Api[M]>, transfer: Transferable[] = [], onProgress?: (p: Progress) => void,
  ): Promise<Awaited<ReturnType<Api[M]>>> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject, onProgress });
      this.endpoint.postMessage({ id, method, args } satisfies RpcRequest, transfer);
    });
  }

  /** Why this client stopped (the first error given to `fail`), or null while it works. */
  get error(): Error | null {
    return this.#dead;
  }

  /** Ends the worker; pending and later calls reject with `error`. */
  fail(error: Error): void {
    if (this.#dead) return;
    this.#dead = error;
    this.endpoint.terminate();
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }
}
