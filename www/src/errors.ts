// Errors of the package: every failure is an `Error` named `AssociativeMemoryError` with a
// stable `code` and, for bad input, the `field` it concerns, on every thread and runtime.

/** Every code an error of this package can carry. */
export type ErrorCode =
  // the engine's (`Error::code` in src/error.rs)
  | 'missing_field' | 'wrong_type' | 'out_of_range' | 'bad_ref' | 'unknown_option' | 'invalid_value'
  | 'not_found' | 'unknown_tool' | 'newer_schema' | 'not_a_memory' | 'sqlite'
  /** An encrypted memory opened (or its export imported) without its key; a key that does not open it. */
  | 'encrypted' | 'wrong_key'
  /** OPFS cannot be used in this realm (no dedicated worker, no secure context, old browser). */
  | 'opfs_unavailable'
  /** The OPFS pool could not be opened. */
  | 'opfs'
  /** Another page or worker holds this OPFS memory open. */
  | 'already_open'
  /** The memory was closed, or its worker ended. */
  | 'closed' | 'worker_crashed'
  /** `init` was given a module this entry does not load (in Node, the size-built one). */
  | 'wrong_module';

/** What every thrown error carries besides its message. */
export interface AssociativeMemoryError extends Error {
  name: 'AssociativeMemoryError';
  code: ErrorCode;
  /** The option the error concerns, as a path (`source.type`, `embedding[1]`), when it concerns one. */
  field?: string;
}

/** A new `AssociativeMemoryError`. */
export function memoryError(code: ErrorCode, message: string, field?: string): AssociativeMemoryError {
  const err = new Error(message) as AssociativeMemoryError;
  err.name = 'AssociativeMemoryError';
  err.code = code;
  err.field = field;
  return err;
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

/** The error back as a real `Error`, with its code, field and the far side's stack. */
export function errorFromData(d: ErrorData): Error {
  const err = d.code ? memoryError(d.code as ErrorCode, d.message, d.field) : new Error(d.message);
  err.name = d.name;
  if (d.stack) err.stack = `${d.stack}\n    at (worker boundary)`;
  return err;
}
