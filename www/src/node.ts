// The entry for Node: the module built for speed (Cargo.toml's wasm-node profile), read from
// the package directory with its own glue. No page downloads it, so its size is not the
// budget the size-built module keeps. It alone has storage 'file' (file.ts).

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as speedBuilt from './associative_memory_node.js';
import { setDefaultWasm, useFiles } from './core.js';
import { fileBackend } from './file.js';

// The bytes in one read (fs/promises reads 512 KiB at a time, a round trip to the thread
// pool each), compiled off this thread (V8 validates the module there and compiles each
// function on its first call), and instantiated here.
setDefaultWasm(async () => WebAssembly.compile(readFileSync(new URL('./associative_memory_node_bg.wasm', import.meta.url))), speedBuilt);
useFiles((path, clock, key) => {
  const absolute = resolve(path);
  return { backend: fileBackend(absolute, clock, key), path: absolute };
});

export * from './index.js';
