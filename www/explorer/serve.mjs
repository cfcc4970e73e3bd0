// Serves the built explorer (www/dist/explorer/, from build.mjs) on localhost and prints its
// address; the traverse demo stays at /www/demo/ and the view's host example at
// /www/dist/view-host/. `make demo` builds everything first.
//
//   node www/explorer/serve.mjs          # http://127.0.0.1:8080/www/dist/explorer/
//   PORT=9000 node www/explorer/serve.mjs

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serve } from '../serve.mjs';

if (!existsSync(fileURLToPath(new URL('../dist/explorer/index.html', import.meta.url)))) {
  console.error('www/dist/explorer/ is not built: run `node www/explorer/build.mjs` (after scripts/build-wasm.sh), or `make demo`');
  process.exit(1);
}
const port = Number.parseInt(process.env.PORT ?? '8080', 10);
const { url } = await serve({ port: Number.isNaN(port) ? 8080 : port });
const base = new URL('/', url);
console.log(`Explorer running at ${new URL('/www/dist/explorer/', base).href}`);
console.log(`  (traverse demo: ${url} · graph view in a host app: ${new URL('/www/dist/view-host/', base).href})`);
