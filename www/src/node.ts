// The entry for Node: the .wasm is read from the package directory.

import { readFile } from 'node:fs/promises';
import { setDefaultWasm } from './core.js';

setDefaultWasm(() => readFile(new URL('./associative_memory_bg.wasm', import.meta.url)));

export * from './index.js';
