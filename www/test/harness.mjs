// What the package tests and package-bench.mjs share: Chromium's flags, watching a page for
// what it must never do, and starting an edge worker in workerd.

import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { build as viteBuild, preview } from 'vite';
import { after, before } from 'node:test';
import { CONSUMER } from './pack.mjs';
import { driverPage } from './crash.mjs';

/** Debian's Chromium, headless, with nothing reaching the network on its own. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-quic'];

/**
 * Records in `problems` what a page under test must never do: log an error (and, with
 * `warnings`, a warning), throw, or have a request fail or answer 4xx/5xx.
 */
export function watch(page, problems, { warnings = false } = {}) {
  const logged = warnings ? ['error', 'warning'] : ['error'];
  page.on('console', (msg) => { if (logged.includes(msg.type())) problems.push(`console.${msg.type()}: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
  page.on('response', (res) => { if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`); });
}

/** Aborts, and records in `problems`, every request of `target` (a page or a context) that would leave 127.0.0.1. */
export function offline(target, problems) {
  return target.route((u) => u.hostname !== '127.0.0.1', (route) => {
    problems.push(`external request: ${route.request().url()}`);
    return route.abort();
  });
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

/**
 * Bundles the edge worker `entry` the way wrangler does (esbuild, conditions
 * workerd/worker/browser, the .wasm and `cloudflare:` modules left as imports) and starts
 * workerd on it (127.0.0.1, a free port); returns its URL, process and log, and `restart`,
 * which kills it (`signal`, SIGKILL by default: as a crash would) and starts it again on the
 * same port and storage.
 *
 * With `objects` (class names the worker exports), each is a Durable Object namespace with
 * SQLite storage, bound under its name in upper case (`MemoryObject` → `MEMORY_OBJECT`
 * unless `binding` names it), kept on disk in `storage`; `text` adds text bindings
 * (a secret's stand-in).
 */
export async function startWorkerd(entry = join(CONSUMER, 'edge', 'worker.js'), bundling = {}, { objects = [], binding = {}, storage, text = {} } = {}) {
  const DIST = join(dirname(entry), 'dist');
  mkdirSync(DIST, { recursive: true });
  await build({
    entryPoints: [entry], bundle: true, format: 'esm', platform: 'neutral', outfile: join(DIST, 'worker.js'),
    conditions: ['workerd', 'worker', 'browser'], external: ['*.wasm', 'cloudflare:*'], logLevel: 'warning', ...bundling,
  });
  copyFileSync(join(CONSUMER, 'node_modules/associative-memory/associative_memory_bg.wasm'), join(DIST, 'associative_memory_bg.wasm'));
  const port = await freePort();
  const upper = (name) => binding[name] ?? name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
  const bindings = [
    ...objects.map((name) => `(name = "${upper(name)}", durableObjectNamespace = "${name}")`),
    ...Object.entries(text).map(([name, value]) => `(name = "${name}", text = ${JSON.stringify(value)})`),
  ];
  const durable = objects.length === 0 ? '' : `
  durableObjectNamespaces = [${objects.map((name) => `(className = "${name}", uniqueKey = "${name}", enableSql = true)`).join(', ')}],
  durableObjectStorage = (localDisk = "storage"),`;
  if (storage) mkdirSync(storage, { recursive: true });
  writeFileSync(join(DIST, 'config.capnp'), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .edge)${storage ? `, (name = "storage", disk = (path = ${JSON.stringify(storage)}, writable = true))` : ''}],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const edge :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "associative_memory_bg.wasm", wasm = embed "associative_memory_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",${durable}
  bindings = [${bindings.join(', ')}],
);
`);
  const bin = createRequire(join(CONSUMER, 'index.js')).resolve('workerd/bin/workerd');
  // npm's postinstall replaces the JS launcher with the native binary; run either.
  const native = readFileSync(bin).subarray(0, 4).toString('latin1') === '\x7fELF';
  const args = ['serve', join(DIST, 'config.capnp'), '--verbose'];
  const url = `http://127.0.0.1:${port}/`;
  const server = { url, child: null, log: () => log };
  let log = '';
  const spawnIt = async () => {
    const child = native ? spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] }) : spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => { log += d; });
    child.stderr.on('data', (d) => { log += d; });
    server.child = child;
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`workerd exited ${child.exitCode}:\n${log}`);
      try { await fetch(url, { method: 'HEAD' }); break; } catch { /* not listening yet */ }
      if (i > 200) throw new Error(`workerd did not listen within 20 s:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  server.restart = async (signal = 'SIGKILL') => {
    const child = server.child;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
    await spawnIt();
  };
  await spawnIt();
  return server;
}

/** The owner's secret the tests' hosted memories hold (`ADMIN_SECRET`). */
export const ADMIN = 'the owner secret of these tests';

/**
 * workerd serving the example's Worker (copied beside the tests' one, where it resolves the
 * installed package) with `secrets`, its objects' storage (the memories' and the relays') in a
 * fresh folder; `stop()` kills it and removes the folder.
 */
export async function hosting(secrets) {
  copyFileSync(new URL('../../examples/edge/worker.js', import.meta.url), join(CONSUMER, 'edge-do', 'example.js'));
  const storage = mkdtempSync(join(tmpdir(), 'am-do-'));
  const entry = join(CONSUMER, 'edge-do', 'worker.js');
  // the MCP SDK's dependencies (ajv) publish `main` only, which wrangler's bundler reads
  const server = await startWorkerd(entry, { mainFields: ['browser', 'module', 'main'] }, { objects: ['MemoryObject', 'MemoryRelay'], storage, text: secrets });
  server.storage = storage;
  server.stop = () => {
    server.child.kill('SIGKILL');
    rmSync(storage, { recursive: true, force: true });
  };
  return server;
}

/**
 * Builds the driver app (consumer/driver) with Vite, serves it with `vite preview` and opens
 * an offline Chromium context on it: what the crash-trial and several-tabs suites share.
 * `problems` collects requests that try to leave 127.0.0.1 (`offline`).
 */
export async function startDriver(problems) {
  const root = join(CONSUMER, 'driver');
  await viteBuild({ root, logLevel: 'warn', build: { outDir: 'dist', emptyOutDir: true } });
  const server = await preview({ root, logLevel: 'warn', preview: { port: 0, host: '127.0.0.1' } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext();
  await offline(context, problems);
  const close = async () => {
    await browser.close();
    await server.close();
  };
  return { url: server.resolvedUrls.local[0], context, close };
}

/**
 * For a `describe` block that drives consumer/driver: the app is built and served (startDriver)
 * before the block's tests and closed after them. `page()` opens a page of it whose errors
 * go to `problems`; `init`, if given, runs in every page before its scripts.
 */
export function driverSuite(init) {
  const problems = [];
  let driver;
  before(async () => {
    driver = await startDriver(problems);
    if (init) await driver.context.addInitScript(init);
  });
  after(async () => {
    await driver?.close();
  });
  return { problems, page: () => driverPage(driver.context, driver.url, (p) => watch(p, problems)) };
}
