// The entry for Node: the module built for speed (Cargo.toml's wasm-node profile), read from
// the package directory with its own glue. No page downloads it, so its size is not the
// budget the size-built module keeps.

import { readFile } from 'node:fs/promises';
import * as speedBuilt from './associative_memory_node.js';
import { setDefaultWasm } from './core.js';

setDefaultWasm(() => readFile(new URL('./associative_memory_node_bg.wasm', import.meta.url)), speedBuilt);

export * from './index.js';
