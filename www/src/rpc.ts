// The one channel between the main thread and the OPFS worker: requests carry ids,
// replies carry the value or a structured error, and a worker that dies rejects every
// pending call instead of leaving it hanging.

import { errorFromData, errorToData, memoryError, type ErrorData } from './errors.js';

/**
 * The Web Lock the OPFS worker holds while it has memory `name` open. It is let go when the
 * worker ends, however it ends, which is how the main thread notices a worker that closed
 * or was stopped without an `error` event.
 */
export function lockName(name: string): string {
  return `associative-memory:${name}`;
}

/** A request: `method` of the worker's handlers, with its arguments. */
export interface RpcRequest { id: number; method: string; args: unknown[] }
/** A reply to request `id`. */
export type RpcReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: ErrorData };

/** What the client needs of a Worker (a real one, or a test double). */
export interface Endpoint {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: 'message' | 'error' | 'messageerror', listener: (event: Event) => void): void;
  terminate(): void;
}

/** The main thread's side: `call` returns a promise per request. */
export class RpcClient<Api extends Record<string, (...args: never[]) => unknown>> {
  #next = 1;
  #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  #dead: Error | null = null;

  constructor(private readonly endpoint: Endpoint) {
    endpoint.addEventListener('message', (event) => {
      const reply = (event as MessageEvent<RpcReply>).data;
      const pending = this.#pending.get(reply.id);
      if (!pending) return;
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

  /** Calls `method` in the worker. */
  call<M extends keyof Api & string>(method: M, args: Parameters<Api[M]>, transfer: Transferable[] = []): Promise<Awaited<ReturnType<Api[M]>>> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.endpoint.postMessage({ id, method, args } satisfies RpcRequest, transfer);
    });
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

/** The worker's side: answers each request with its handler's result, in arrival order. */
export function serve(scope: { addEventListener(type: 'message', l: (e: MessageEvent<RpcRequest>) => void): void; postMessage(m: unknown, t?: Transferable[]): void },
  handlers: Record<string, (...args: never[]) => unknown>): void {
  let queue: Promise<unknown> = Promise.resolve();
  scope.addEventListener('message', ({ data: { id, method, args } }) => {
    queue = queue.then(async () => {
      try {
        const handler = handlers[method];
        if (!handler) throw memoryError('unknown_tool', `the worker has no method ${JSON.stringify(method)}`);
        const value = await (handler as (...a: unknown[]) => unknown)(...args);
        scope.postMessage({ id, ok: true, value } satisfies RpcReply, value instanceof Uint8Array ? [value.buffer] : []);
      } catch (e) {
        scope.postMessage({ id, ok: false, error: errorToData(e) } satisfies RpcReply);
      }
    });
  });
}
