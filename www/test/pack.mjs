// Packs pkg/ with `npm pack` and installs the tarball into a fresh consumer project in
// test-output/consumer/ (from www/test/consumer/), as a user's `npm install` would. The
// package tests (www/test/package-*.test.mjs) all load the package from there.
//
//   node www/test/pack.mjs        # after scripts/build-wasm.sh; `make test-www` runs it
//
// With WWW_TEST_DIR set, consumer/ and pack/ go there instead: `make test-www` gives each
// run its own directory, so two runs in one checkout never install over each other.
//
// The consumer's other tools (vite, typescript, workerd, esbuild, playwright-core) resolve
// from the repository's node_modules above it, so nothing is downloaded. The package's own
// dependencies (pkg.json's `dependencies`: the MCP SDK its command serves with) are given to
// the same `npm install` as links to the repository's copies, which satisfy the tarball's
// ranges, so npm resolves them without the registry (`--offline` holds no registry
// metadata for them) and the installed package finds them as a user's install would.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIR = resolve(process.env.WWW_TEST_DIR ?? join(ROOT, 'test-output'));
/** Where the consumer project lives. */
export const CONSUMER = join(DIR, 'consumer');
/** Where the tarball is written. */
export const PACKS = join(DIR, 'pack');

/** The installed package's entry for the given conditions, as Node resolves it from the consumer. */
export async function importPackage() {
  const resolved = createRequire(join(CONSUMER, 'index.js')).resolve('associative-memory');
  return import(pathToFileURL(resolved).href);
}

export function packAndInstall() {
  rmSync(PACKS, { recursive: true, force: true });
  rmSync(CONSUMER, { recursive: true, force: true });
  mkdirSync(PACKS, { recursive: true });
  execFileSync('npm', ['pack', '--loglevel=error', '--pack-destination', PACKS, join(ROOT, 'pkg')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const [tarball] = readdirSync(PACKS).filter((f) => f.endsWith('.tgz'));
  cpSync(fileURLToPath(new URL('./consumer/', import.meta.url)), CONSUMER, { recursive: true });
  const { dependencies = {} } = JSON.parse(readFileSync(join(ROOT, 'pkg', 'package.json'), 'utf8'));
  const local = Object.keys(dependencies).map((name) => join(ROOT, 'node_modules', name));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', join(PACKS, tarball), ...local], { cwd: CONSUMER, stdio: ['ignore', 'ignore', 'inherit'] });
  return join(PACKS, tarball);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`installed ${packAndInstall()} into ${CONSUMER}`);
}
