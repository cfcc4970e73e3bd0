// A tiny zero-dependency static server for the demo.
//
//   node www/serve.mjs            # http://127.0.0.1:8080/www/demo/
//   PORT=9000 node www/serve.mjs
//
// It serves the repository root (the directory above this file), so the demo page can
// load the wasm-bindgen output from /pkg/. Import it to start it from a test:
//
//   const { url, close } = await serve({ port: 0 });

import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const DEMO_PATH = '/www/demo/';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.map': 'application/json; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};

function send(res, status, body, headers = {}) {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
  res.end(body);
}

async function handle(req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return send(res, 405, 'method not allowed\n', { Allow: 'GET, HEAD' });
  }
  let pathname;
  try {
    pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  } catch {
    return send(res, 400, 'bad request\n');
  }
  if (pathname === '/') return send(res, 302, '', { Location: DEMO_PATH });

  // Resolve inside ROOT only; anything that escapes it (.., absolute tricks) is a 404.
  let file = resolve(join(ROOT, pathname));
  if (file !== ROOT && !file.startsWith(ROOT + sep)) return send(res, 404, 'not found\n');

  let info;
  try {
    info = await stat(file);
    if (info.isDirectory()) {
      if (!pathname.endsWith('/')) return send(res, 301, '', { Location: pathname + '/' });
      file = join(file, 'index.html');
      info = await stat(file);
    }
  } catch {
    return send(res, 404, 'not found\n');
  }
  if (!info.isFile()) return send(res, 404, 'not found\n');

  const body = await readFile(file);
  res.writeHead(200, {
    'Content-Type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': body.length,
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * Start the server.
 * @param {{port?: number, host?: string}} [options] port 0 picks a free port.
 * @returns {Promise<{url: string, port: number, close: () => Promise<void>}>}
 *   url is the demo page's address.
 */
export async function serve({ port = 8080, host = '127.0.0.1' } = {}) {
  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, 'internal error\n');
      else res.destroy();
      console.error(err);
    });
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => { server.off('error', fail); ok(); });
  });
  const actual = server.address().port;
  return {
    url: `http://${host}:${actual}${DEMO_PATH}`,
    port: actual,
    close: () => new Promise((ok) => {
      server.closeAllConnections?.();
      server.close(() => ok());
    }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const port = Number.parseInt(process.env.PORT ?? '8080', 10);
  const { url } = await serve({ port: Number.isNaN(port) ? 8080 : port });
  console.log(`Demo running at ${url}`);
}
