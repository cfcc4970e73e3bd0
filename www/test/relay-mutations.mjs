#!/usr/bin/env node
// The relay's named mutations (tests/mutations/run.sh runs the crate's, through cargo): each
// replaces one exact text of www/src/relay.ts, rebuilds the package's relay.js from it
// (esbuild: types stripped, imports kept), installs the package into the test consumer and runs
// package-relay.test.mjs, which must fail. Prints `killed` or `SURVIVED` per mutation and
// exits non-zero if one survives or its text is not in the file exactly once; the source and
// the package are rebuilt from the unmutated file at the end.
//
//   node www/test/relay-mutations.mjs [name…]      after a build (pkg/ exists); ~30 s each

import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE = `${ROOT}www/src/relay.ts`;

const CHECK = `    if (hello.device !== null && sql.exec('SELECT 1 FROM devices WHERE device = ?', hello.device).toArray().length === 0) {
      throw refuse('forbidden', \`device \${hello.device} was never allocated by this relay: say hello with device null to get a number\`, { field: 'device' }, CLOSE.forbidden);
    }
`;
const CLAIM = `sql.exec("INSERT INTO meta (key, value) VALUES ('token', ?), ('schema', ?)", hash, hello.schema);`;
const CHECK_THEN_CLAIM = `${CHECK}    const device = this.ctx.storage.transactionSync(() => {
      if (claimed === undefined) {
        ${CLAIM}
      }`;
const CLAIM_THEN_CHECK = `    if (claimed === undefined) ${CLAIM}
${CHECK}    const device = this.ctx.storage.transactionSync(() => {
      if (false) {
        ${CLAIM}
      }`;

/** name → [what it breaks, the exact text, its replacement] */
const MUTATIONS = {
  'relay-retry-appended': ['a push of a logged seq is not answered from the log', '    if (push.seq <= last) {', '    if (false) {'],
  'relay-gap-appended': ['a push past the next seq is appended', '    if (push.seq !== last + 1) {', '    if (false) {'],
  'relay-token-unchecked': ['another token is welcomed', 'if (claimed !== undefined && claimed !== hash) throw', 'if (false) throw'],
  'relay-token-stored': ['the claiming token is kept instead of its hash', 'VALUES (\'token\', ?), (\'schema\', ?)", hash,', 'VALUES (\'token\', ?), (\'schema\', ?)", hello.token,'],
  'relay-schema-unchecked': ['another schema is welcomed', 'if (schema !== undefined && schema !== hello.schema) {', 'if (false) {'],
  'relay-device-unchecked': ['a device number never allocated is welcomed', "if (hello.device !== null && sql.exec('SELECT 1 FROM devices", "if (false && sql.exec('SELECT 1 FROM devices"],
  'relay-claimed-before-checks': ['a hello refused as forbidden still claims the empty relay', CHECK_THEN_CLAIM, CLAIM_THEN_CHECK],
  'relay-broadcast-to-sender': ['the pusher gets its own entry too', 'if (other !== ws && welcomed(other))', 'if (welcomed(other))'],
  'relay-broadcast-skipped': ['no entry is broadcast', 'if (other !== ws && welcomed(other))', 'if (false)'],
  'relay-compaction-skipped': ['the alarm deletes nothing', "if (floor > 0) this.ctx.storage.sql.exec('DELETE FROM log", "if (floor < 0) this.ctx.storage.sql.exec('DELETE FROM log"],
  'relay-catch-up-from-floor': ['a device gets every entry past the floor, not past its position', "ORDER BY position', Math.max(hello.after, floor));", "ORDER BY position', floor);"],
  'relay-snapshot-not-sent': ['a device behind the floor gets no snapshot', '    if (hello.after < floor) {', '    if (false) {'],
  'relay-snapshot-range-unchecked': ['a snapshot at or below the floor or past the head is stored', 'if (upload.position <= floor || upload.position > head) {', 'if (upload.position > head + 1) {'],
  'relay-frame-unbounded': ['frames up to 2 MiB are read', 'if (size > MAX_FRAME) throw', 'if (size > 2 * MAX_FRAME) throw'],
};

const original = readFileSync(SOURCE, 'utf8');
const build = () => {
  execFileSync('npx', ['esbuild', SOURCE, `--outfile=${ROOT}pkg/relay.js`, '--format=esm', '--log-level=warning'], { cwd: ROOT, stdio: 'inherit' });
  execFileSync('node', ['www/test/pack.mjs'], { cwd: ROOT, stdio: 'ignore' });
};
const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(MUTATIONS);
let failed = 0;
try {
  for (const name of names) {
    const [what, from, to] = MUTATIONS[name] ?? [];
    const count = from === undefined ? 0 : original.split(from).length - 1;
    if (count !== 1) {
      console.log(`MUTATION ${name}: ${from === undefined ? 'no such mutation' : `its text is in relay.ts ${count} times`}`);
      failed = 1;
      continue;
    }
    writeFileSync(SOURCE, original.replace(from, to));
    build();
    const run = spawnSync('node', ['--test', 'www/test/package-relay.test.mjs'], { cwd: ROOT, encoding: 'utf8' });
    const red = run.stdout.split('\n').filter((l) => /^ {4}not ok/.test(l)).map((l) => l.replace(/^ {4}not ok \d+ - /, ''));
    if (run.status === 0) failed = 1;
    console.log(run.status === 0 ? `MUTATION ${name}: SURVIVED (${what})` : `MUTATION ${name}: killed (${what}) by: ${red.join('; ')}`);
  }
} finally {
  writeFileSync(SOURCE, original);
  build();
}
process.exit(failed);
