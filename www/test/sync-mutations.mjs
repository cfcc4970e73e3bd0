#!/usr/bin/env node
// The sync client's named mutations (as relay-mutations.mjs does for the relay): each
// replaces one exact text of www/src/sync.ts or www/src/seal.ts, rebuilds that module of the
// package from it (esbuild: types stripped, imports kept), installs the package into the test
// consumer and runs package-sync.test.mjs, which must fail. Prints `killed` or `SURVIVED` per
// mutation and exits non-zero if one survives or its text is not in its file exactly once;
// the sources and the package are rebuilt from the unmutated files at the end.
//
//   node www/test/sync-mutations.mjs [name…]      after a build (pkg/ exists); ~1 min each

import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** name → [module, what it breaks, the exact text, its replacement] */
const MUTATIONS = {
  'sync-ack-not-applied': ['sync', "this device's own change is not applied at the position its ack gives", '        if (frame.position > this.#applied) this.#buffer.set(', '        if (false) this.#buffer.set('],
  'sync-reconnect-pushes-nothing': ['sync', 'after a reconnection no pending change is pushed', '        this.#pushedUpTo = frame.seq;', '        this.#pushedUpTo = Number.MAX_SAFE_INTEGER;'],
  'sync-write-not-pushed': ['sync', 'a local write does not push its change', '    this.#wrote = true;\n', '\n'],
  'sync-no-reconnect': ['sync', 'a dropped socket is not reconnected', '    this.#timer = setTimeout(() => this.#connect(), wait);', '    this.#timer = null;'],
  'sync-snapshot-never-uploaded': ['sync', 'no snapshot is uploaded', '    if (this.#applied - this.#floor < this.#every ||', '    if (true ||'],
  'sync-snapshot-not-joined': ['sync', 'a snapshot frame is not joined', '        await this.#backend.syncJoin(bytes, frame.position, this.#device!);', '        void bytes;'],
  'sync-nonempty-start-allowed': ['sync', 'a memory holding data starts syncing', '      if (agents.total > 0) {', '      if (false) {'],
  'sync-refused-snapshot-keeps-floor': ['sync', "a device whose snapshot was refused as not newer keeps its old floor, and uploads again at every step", '          this.#floor = Math.max(this.#floor, this.#uploading);\n', '\n'],
  'sync-rekey-allowed': ['sync', 'a memory that syncs is rekeyed', "    rekey: async () => {\n      throw memoryError(", "    rekey: async () => {\n      if (Math.random() > 2) throw memoryError("],
  'seal-place-ignores-device': ['seal', "a change's associated data leaves out its device", "number): string => `${memory}\\nchange\\n${device}\\n${seq}`", "number): string => `${memory}\\nchange\\n${seq}`"],
  'seal-unpadded': ['seal', 'the plaintext is not padded', 'Math.ceil((4 + bytes.length) / PAD) * PAD', '4 + bytes.length'],
  'seal-token-is-seal-key': ['seal', 'the token is derived with the seal key\'s info', "token: base64url(await derive('token'))", "token: base64url(await derive('seal'))"],
};

const sources = { sync: `${ROOT}www/src/sync.ts`, seal: `${ROOT}www/src/seal.ts` };
const originals = Object.fromEntries(Object.entries(sources).map(([m, f]) => [m, readFileSync(f, 'utf8')]));
const build = () => {
  for (const [m, f] of Object.entries(sources)) {
    execFileSync('npx', ['esbuild', f, `--outfile=${ROOT}pkg/${m}.js`, '--format=esm', '--log-level=warning'], { cwd: ROOT, stdio: 'inherit' });
  }
  execFileSync('node', ['www/test/pack.mjs'], { cwd: ROOT, stdio: 'ignore' });
};
const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(MUTATIONS);
let failed = 0;
try {
  for (const name of names) {
    const [module, what, from, to] = MUTATIONS[name] ?? [];
    const count = from === undefined ? 0 : originals[module].split(from).length - 1;
    if (count !== 1) {
      console.log(`MUTATION ${name}: ${from === undefined ? 'no such mutation' : `its text is in ${module}.ts ${count} times`}`);
      failed = 1;
      continue;
    }
    for (const [m, f] of Object.entries(sources)) writeFileSync(f, m === module ? originals[m].replace(from, to) : originals[m]);
    build();
    const run = spawnSync('node', ['--test', 'www/test/package-sync.test.mjs'], { cwd: ROOT, encoding: 'utf8' });
    const red = run.stdout.split('\n').filter((l) => /^ {4}not ok/.test(l)).map((l) => l.replace(/^ {4}not ok \d+ - /, ''));
    if (run.status === 0) failed = 1;
    console.log(run.status === 0 ? `MUTATION ${name}: SURVIVED (${what})` : `MUTATION ${name}: killed (${what}) by: ${red.join('; ')}`);
  }
} finally {
  for (const [m, f] of Object.entries(sources)) writeFileSync(f, originals[m]);
  build();
}
process.exit(failed);
