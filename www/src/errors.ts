// Errors of the package: every failure is an `Error` named `AssociativeMemoryError` with a
// stable `code` and, for bad input, the `field` it concerns, on every thread and runtime.

/** Every code an error of this package can carry. */
export type ErrorCode =
  // the engine's (`Error::code` in src/api/error.rs)
  | 'missing_field' | 'wrong_type' | 'out_of_range' | 'bad_ref' | 'unknown_option' | 'invalid_value'
  | 'not_found' | 'unknown_tool' | 'newer_schema' | 'not_a_memory' | 'sqlite'
  /**
   * An encrypted memory opened (or its export imported) without its key; a key that does not
   * open it, or an entry of a sync relay's log that does not unseal with it.
   */
  | 'encrypted' | 'wrong_key'
  /** OPFS cannot be used in this realm (no dedicated worker, no secure context, old browser). */
  | 'opfs_unavailable'
  /** Storage 'file' outside Node's entry (in a browser, say). */
  | 'file_unavailable'
  /** The OPFS pool could not be opened. */
  | 'opfs'
  /** Another page or worker holds this OPFS memory open; another process, or this one, this file; or a memory of this name is open here. */
  | 'already_open'
  /** The storage a memory is kept in could not be set up (a Durable Object's pages; a file's lock file). */
  | 'storage'
  /** A `MemoryObject`'s HTTP face: a body that is not JSON, one over its limit, no such route, an error of its own. */
  | 'invalid_json' | 'body_too_large' | 'internal'
  /**
   * A hosted memory's caller: no token or one that does not open it / a token that may not
   * make this call. In sync: a relay claimed by another memory's key or id / one that never
   * allocated this device's number.
   */
  | 'unauthorized' | 'forbidden'
  /** A sync relay holds another schema version than the device's (its version is in the error). */
  | 'schema'
  /** A sync relay was sent a device's changeset out of its order (the seq it waits for is in the error). */
  | 'out_of_order'
  /** A hosted memory (storage 'remote') could not be reached, after three retries. */
  | 'network'
  /** The memory was closed, or its worker ended. */
  | 'closed' | 'worker_crashed'
  /**
   * The engine (the WebAssembly instance) trapped: it ran out of memory, or hit a bug. With
   * storage 'memory' the contents of every memory open on that instance (all of this realm's
   * in-memory memories) are lost, and every later call on them rejects with this code; a
   * memory opened afterwards gets a new instance. With 'opfs' every acknowledged write is on
   * disk, the worker is restarted and reopens the memory, and later calls work again.
   */
  | 'engine_crashed'
  /** `init` was given a module this entry does not load (in Node, the size-built one). */
  | 'wrong_module';

/**
 * Every error this package throws or rejects with, on every thread and runtime (the OPFS
 * worker's and a hosted memory's errors included): `e instanceof AssociativeMemoryError`,
 * or `isMemoryError(e)`, then branch on `e.code`.
 */
export class AssociativeMemoryError extends Error {
  declare name: 'AssociativeMemoryError';
  /** What went wrong, stable across versions. */
  code: ErrorCode;
  /** The option the error concerns, as a path (`source.type`, `embedding[1]`), when it concerns one. */
  field?: string;

  constructor(code: ErrorCode, message: string, field?: string) {
    super(message);
    this.name = 'AssociativeMemoryError';
    this.code = code;
    this.field = field;
  }
}

/** Whether `e` is an error of this package (an `AssociativeMemoryError`). */
export function isMemoryError(e: unknown): e is AssociativeMemoryError {
  return e instanceof AssociativeMemoryError;
}

/** A new `AssociativeMemoryError`. */
export function memoryError(code: ErrorCode, message: string, field?: string): AssociativeMemoryError {
  return new AssociativeMemoryError(code, message, field);
}

/**
 * `e` as an `AssociativeMemoryError` when it is one in all but its prototype: the engine's
 * errors (src/wasm/error.rs builds a plain `Error` named so, with `code` and `field`), which
 * keep their message and stack. Anything else is returned as it is.
 */
export function asMemoryError(e: unknown): unknown {
  if (e instanceof Error && !(e instanceof AssociativeMemoryError) && e.name === 'AssociativeMemoryError' && typeof (e as { code?: unknown }).code === 'string') {
    Object.setPrototypeOf(e, AssociativeMemoryError.prototype);
  }
  return e;
}

/**
 * Whether `e`, thrown by a call into the engine, means its WebAssembly instance trapped and
 * cannot be used again: a trap itself (`RuntimeError: unreachable` when an allocation fails or
 * Rust panics, which aborts on wasm32), or what wasm-bindgen throws after one, when the call
 * the trap cut short left its object borrowed or moved out.
 */
export function isTrap(e: unknown): boolean {
  if (typeof WebAssembly === 'object' && e instanceof WebAssembly.RuntimeError) return true;
  return e instanceof Error && /recursive use of an object detected|null pointer passed to rust/.test(e.message);
}

/** What a trap was, for a message: `RuntimeError: unreachable`. */
export function trapName(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/**
 * An error of this package as a tool's result tells it to a model: `{"error": code,
 * "message": …, "field": …}` as JSON (`field` when the error names one), so the model reads
 * which argument to correct. `undefined` for any other error (a bug is not the model's to
 * fix; it is thrown on). The MCP server and the AI SDK and LangChain adapters all answer so.
 */
export function toolErrorText(e: unknown): string | undefined {
  const { code, field, message } = (e ?? {}) as { code?: unknown; field?: unknown; message?: unknown };
  if (typeof code !== 'string') return undefined;
  const body: Record<string, string> = { error: code, message: String(message) };
  if (typeof field === 'string') body.field = field;
  return JSON.stringify(body);
}

/** An error as plain data, to cross `postMessage`. */
export interface ErrorData { name: string; message: string; code?: string; field?: string; stack?: string }

export function errorToData(e: unknown): ErrorData {
  if (e instanceof Error) {
    const { code, field } = e as Partial<AssociativeMemoryError>;
    return { name: e.name, message: e.message, code, field, stack: e.stack };
  }
  return { name: 'Error', message: String(e) };
}

/** The error back as a real `Error` (an `AssociativeMemoryError` when it has a code), with its code, field and the far side's stack. */
export function errorFromData(d: ErrorData): Error {
  const err = d.code ? memoryError(d.code as ErrorCode, d.message, d.field) : new Error(d.message);
  if (!d.code) err.name = d.name;
  if (d.stack) err.stack = `${d.stack}\n    at (worker boundary)`;
  return err;
}
