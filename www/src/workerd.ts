// The entry for Cloudflare's workerd (and wrangler): the .wasm is imported as a compiled
// module, which edge runtimes require (they may not fetch or compile bytes at run time).

import wasm from './associative_memory_bg.wasm';
import { setDefaultWasm } from './core.js';

setDefaultWasm(async () => wasm);

export * from './index.js';
