// Bundles the explorer (www/explorer/) and the view's host example (www/view/host/) with
// Vite into www/dist/ (git-ignored): everything the pages load is in there, the .wasm and
// the OPFS worker included, so they work offline. The pages import the package by its
// public names only; here those names point at the built package in pkg/
// (scripts/build-wasm.sh first), as `npm install associative-memory` would. `servePages`
// serves what was built with `vite preview` (serve.mjs, the tests and the explorer bench).
//
//   node www/explorer/build.mjs            # both
//   node www/explorer/build.mjs explorer   # one of them

import { build, preview } from 'vite';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const PKG = join(ROOT, 'pkg');
const DIST = join(ROOT, 'www/dist');

export const TARGETS = {
  explorer: { root: join(ROOT, 'www/explorer'), outDir: join(DIST, 'explorer') },
  'view-host': { root: join(ROOT, 'www/view/host'), outDir: join(DIST, 'view-host') },
};

/**
 * Builds one page; resolves to its output directory. `dir`, a folder of www/dist/ other than
 * the page's own, lets a test file build its own copy while another test file serves the usual
 * one (node --test runs files at once).
 */
export async function buildPage(name, dir) {
  const target = TARGETS[name];
  if (!target) throw new Error(`no page ${name}; one of ${Object.keys(TARGETS).join(', ')}`);
  for (const f of ['index.js', 'view.js', 'associative_memory_bg.wasm']) {
    if (!existsSync(join(PKG, f))) throw new Error(`pkg/${f} is missing: run scripts/build-wasm.sh first`);
  }
  await build({
    root: target.root,
    base: './',
    configFile: false,
    logLevel: 'warn',
    resolve: {
      alias: [
        { find: /^associative-memory$/, replacement: join(PKG, 'index.js') },
        { find: /^associative-memory\/view$/, replacement: join(PKG, 'view.js') },
      ],
    },
    worker: { format: 'es' },
    build: {
      outDir: dir ? join(DIST, dir) : target.outDir,
      emptyOutDir: true,
      target: 'es2022',
      chunkSizeWarningLimit: 4096,
      assetsInlineLimit: 0,
      sourcemap: false,
    },
  });
  return dir ? join(DIST, dir) : target.outDir;
}

/** Sends `/` to the explorer, the page a person opening the address wants. */
const rootToExplorer = {
  name: 'root-to-explorer',
  configurePreviewServer(server) {
    server.middlewares.use((req, res, next) => {
      if (req.url !== '/') return next();
      res.writeHead(302, { Location: '/explorer/' });
      res.end();
    });
  },
};

/**
 * Serves www/dist/ (the built pages, at /explorer/ and /view-host/) on `host`:`port` with
 * `vite preview`; port 0 picks a free one. Resolves to the address of www/dist/ and a way
 * to stop. `mpa`: a missing file is a 404, never the page's HTML, so a test sees it.
 */
export async function servePages({ port = 8080, host = '127.0.0.1' } = {}) {
  const server = await preview({
    root: join(ROOT, 'www'), configFile: false, appType: 'mpa', logLevel: 'warn', plugins: [rootToExplorer],
    build: { outDir: DIST }, preview: { port, host, strictPort: false },
  });
  return { url: server.resolvedUrls.local[0], close: () => server.close() };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const names = process.argv.slice(2);
  for (const name of names.length ? names : Object.keys(TARGETS)) {
    const out = await buildPage(name);
    console.log(`built ${name} → ${out.slice(ROOT.length + 1)}/`);
  }
}
