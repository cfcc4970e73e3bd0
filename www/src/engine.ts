// The wasm-bindgen glue this thread's engine runs through: the size-built module's, which
// pages, workers and edge runtimes download, unless the entry point chose another (node.ts:
// the module built for speed, read from disk). The two are one engine compiled two ways and
// answer byte for byte alike (www/test/package-modules.test.mjs); each glue names its own
// module's exports, so a module is loaded through its own glue.

import * as sizeBuilt from './associative_memory.js';

/** What the package uses of a glue module: its loader and the engine's class. */
export interface Glue {
  default(source?: Parameters<typeof sizeBuilt.default>[0]): Promise<unknown>;
  Memory: typeof sizeBuilt.Memory;
}

let glue: Glue = sizeBuilt;

/** @internal For the entry points: the glue `init` loads the module through. */
export function useGlue(chosen: Glue): void {
  glue = chosen;
}

/** The glue in use. */
export function engine(): Glue {
  return glue;
}
