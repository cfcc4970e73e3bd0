// The wasm-bindgen glue this thread's engine runs through: the size-built module's, which
// pages, workers and edge runtimes download, unless the entry point chose another (node.ts:
// the module built for speed, read from disk). The two are one engine compiled two ways and
// answer byte for byte alike (www/test/package-modules.test.mjs); each glue names its own
// module's exports, so a module is loaded through its own glue.

//
// All of a realm's memories with storage 'memory' live in one instance of the module (the
// glue instantiates it once). A trap (an allocation that fails, a panic: wasm32 aborts)
// leaves that instance unusable, every object in it included, so a trap marks the instance
// crashed: every memory open on it rejects with `engine_crashed` from then on, without
// calling into it again, and the next memory opened gets a new instance (wasm-bindgen's
// `__wbg_reset_state`, scripts/build-wasm.sh), in which the old objects are refused.

import * as sizeBuilt from './associative_memory.js';
import { asMemoryError, isTrap, memoryError, trapName } from './errors.js';

/** What the package uses of a glue module: its loader, the engine's class and its reset. */
export interface Glue {
  default(source?: Parameters<typeof sizeBuilt.default>[0]): Promise<unknown>;
  /** Instantiates a compiled module on this thread, at once (Node's entry: no `fetch` path). */
  initSync(source: { module: WebAssembly.Module }): unknown;
  Memory: typeof sizeBuilt.Memory;
  /** Replaces the realm's instance with a new one (the old one's objects are refused). */
  __wbg_reset_state(): void;
}

/** One instance of the module in this realm: the memories open on it, and its trap, once it trapped. */
export interface Instance {
  open: number;
  /** Calls into it under way: more than one when a callback (`onProgress`) calls again. */
  depth: number;
  crash: { cause: string; during: string; open: number } | null;
}

let current: Instance = { open: 0, depth: 0, crash: null };

let glue: Glue = sizeBuilt;

/** @internal For the entry points: the glue `init` loads the module through. */
export function useGlue(chosen: Glue): void {
  glue = chosen;
}

/** The glue in use. */
export function engine(): Glue {
  return glue;
}

/** The instance a memory opened now lives in: the realm's, or a new one if that one trapped. */
export function liveInstance(): Instance {
  if (current.crash) {
    glue.__wbg_reset_state();
    current = { open: 0, depth: 0, crash: null };
  }
  return current;
}

/**
 * Runs `f`, a call into `instance` named `during`, unless the instance trapped before; if `f`
 * traps, marks the instance crashed. Either way the call rejects with `engine_crashed`. The
 * engine's own errors are made `AssociativeMemoryError`s here.
 */
export function engineCall<T>(instance: Instance, during: string, f: () => T): T {
  if (instance.crash) throw crashedError(instance, false);
  const reentered = instance.depth > 0;
  instance.depth++;
  try {
    return f();
  } catch (e) {
    // A call made from a callback of another (an `onProgress` calling the memory) finds the
    // object borrowed, which says nothing of a trap: only a trap itself counts then.
    if (!isTrap(e) || (reentered && !(e instanceof WebAssembly.RuntimeError))) throw asMemoryError(e);
    instance.crash = { cause: trapName(e), during, open: instance.open };
    const err = crashedError(instance, true);
    (err as { cause?: unknown }).cause = e;
    throw err;
  } finally {
    instance.depth--;
  }
}

function crashedError(instance: Instance, now: boolean): Error {
  const { cause, during, open } = instance.crash!;
  const memories = open <= 1 ? "this realm's one memory with storage 'memory'" : `all ${open} memories with storage 'memory' open in this realm (they share one engine)`;
  return memoryError('engine_crashed', `${now ? 'the engine stopped during this call' : `this memory's engine stopped earlier, during a ${during} call`} (${cause}: it ran out of memory, or hit a bug) and cannot be used again: the contents of ${memories} are lost, except what an export() saved; open a new memory (it gets a new engine) and import() what was saved`);
}
