// Serves the built pages (www/dist/, from build.mjs) on localhost with `vite preview` and
// prints their addresses: the explorer, and the view's host example. `make demo` builds
// everything first.
//
//   node www/explorer/serve.mjs          # http://127.0.0.1:8080/explorer/
//   PORT=9000 node www/explorer/serve.mjs

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { servePages } from './build.mjs';

if (!existsSync(fileURLToPath(new URL('../dist/explorer/index.html', import.meta.url)))) {
  console.error('www/dist/explorer/ is not built: run `node www/explorer/build.mjs` (after scripts/build-wasm.sh), or `make demo`');
  process.exit(1);
}
const port = Number.parseInt(process.env.PORT ?? '8080', 10);
const { url } = await servePages({ port: Number.isNaN(port) ? 8080 : port });
console.log(`Explorer running at ${new URL('explorer/', url).href}`);
console.log(`  (graph view in a host app: ${new URL('view-host/', url).href})`);
