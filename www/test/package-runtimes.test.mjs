// The packed package in Bun and Deno, as installed for Node: each runtime, from the repository's
// devDependencies (`bun` and `deno`, whose binaries npm installs from the registry), runs
// consumer/runtimes/child.mjs in the consumer project, which imports 'associative-memory' by
// name. Both take the package's Node entry (node.js: neither has a condition of its own in
// `exports`, and both match "node"), so storage 'file' is there; a memory, in a file with a
// key and on 'memory', answers the same calls with the same bytes as in Node (a fixed
// clock); a file written by one runtime is read by another process of it and by Node; one
// opener at a time, across runtimes, and the lock of a process that ended is taken over.
// Deno runs with the permissions the README lists, also narrowed to two directories; without
// `--allow-run` it cannot tell whether a lock's process lives, and a lock counts as held
// rather than being taken over; without `--allow-sys=hostname` open fails with `storage`.
// Nothing here uses the network (it passes under `unshare -n`).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSUMER } from './pack.mjs';
import { DENO_ALLOW, deno, ENV, RUNTIMES } from './runtimes.mjs';

const CWD = join(CONSUMER, 'runtimes');

/**
 * child.mjs run by `command` with `args`: its lines as they come (`lines`, `until(test)`
 * resolving with the first passing `test`), `end()` closing its stdin, and its end (`exited`,
 * with its stderr).
 */
function child(command, ...args) {
  const [exe, ...flags] = command;
  const proc = spawn(exe, [...flags, 'child.mjs', ...args], { cwd: CWD, env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = [];
  const waiting = new Set();
  let rest = '';
  let stderr = '';
  proc.stderr.on('data', (chunk) => { stderr += chunk; });
  proc.stdout.on('data', (chunk) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop();
    for (const part of parts) {
      lines.push(part);
      for (const w of waiting) if (w.test(JSON.parse(part))) { waiting.delete(w); w.resolve(JSON.parse(part)); }
    }
  });
  const exited = new Promise((resolve) => proc.on('close', (code, signal) => resolve({ code, signal, stderr })));
  const until = (test) => new Promise((resolve, reject) => {
    const seen = lines.map((l) => JSON.parse(l)).find(test);
    if (seen) return resolve(seen);
    waiting.add({ test, resolve });
    exited.then(({ stderr: said }) => reject(new Error(`${exe} ended without the line waited for; it said ${JSON.stringify(lines.slice(-3))}, stderr ${said}`)));
  });
  return { proc, lines, until, exited, end: () => { proc.stdin.end(); return exited; } };
}

/** child.mjs run to its end; its lines (each a JSON text), after checking it exited 0. */
async function run(command, ...args) {
  const c = child(command, ...args);
  c.end();
  const { code, stderr } = await c.exited;
  assert.equal(code, 0, `${command.join(' ')} ${args.join(' ')}: ${stderr}`);
  return c.lines;
}

describe('the package in Bun and Deno', () => {
  let root;
  let n = 0;
  /** A path for a memory file in a directory of its own. */
  const fresh = async () => {
    const dir = join(root, `d${++n}`);
    await mkdir(dir);
    return join(dir, 'memory.sqlite3');
  };
  const key = 'runtime passphrase';
  const node = {};

  before(async () => {
    for (const [name, [exe]] of Object.entries(RUNTIMES)) assert.ok(existsSync(exe), `${name}: no ${exe} (npm ci installs bun and deno, devDependencies)`);
    root = await mkdtemp(join(tmpdir(), 'am-runtimes-'));
    node.memory = await run(RUNTIMES.node, 'write', 'memory');
    node.path = await fresh();
    node.write = await run(RUNTIMES.node, 'write', node.path, key);
    node.read = await run(RUNTIMES.node, 'read', node.path, key);
    // what every runtime is held to: Node's answers, which the other package tests pin
    assert.deepEqual(JSON.parse(node.write[0]), { entry: 'node.js' });
    assert.deepEqual(JSON.parse(node.write[1]), { storage: 'file' });
    assert.deepEqual(JSON.parse(node.write.at(-3)), { second: { error: { name: 'AssociativeMemoryError', code: 'already_open', field: 'path' } } });
    assert.deepEqual(JSON.parse(node.read[0]), { ok: true, problems: [] });
    assert.equal(JSON.parse(node.read[1]).total, 22);
    assert.match(node.read[2], /Charles Babbage designed/);
  });
  after(() => rm(root, { recursive: true, force: true }));

  for (const name of ['bun', 'deno']) {
    describe(name, () => {
      it("takes the Node entry, and answers on storage 'memory' as Node does", async () => {
        assert.deepEqual(await run(RUNTIMES[name], 'write', 'memory'), node.memory);
      });

      it("keeps a memory in a file with a key: the same answers as Node's, in a second process and in Node", async () => {
        const path = await fresh();
        assert.deepEqual(await run(RUNTIMES[name], 'write', path, key), node.write);
        assert.deepEqual(await readdir(join(path, '..')), ['memory.sqlite3'], 'close() checkpoints, removes the log and lets go of the lock');
        assert.deepEqual(await run(RUNTIMES[name], 'read', path, key), node.read);
        assert.deepEqual(await run(RUNTIMES.node, 'read', path, key), node.read);
        assert.deepEqual(await run(RUNTIMES[name], 'read', node.path, key), node.read, "reads Node's file");
        const wrong = JSON.parse((await run(RUNTIMES[name], 'open', path, 'not the key'))[0]);
        assert.equal(wrong.error?.code, 'wrong_key', JSON.stringify(wrong));
      });

      it('lets one opener at a time have a file, across runtimes, and takes over the lock of one that ended', async () => {
        const path = await fresh();
        const holder = child(RUNTIMES[name], 'hold', path);
        const { holding } = await holder.until((l) => 'holding' in l);
        for (const other of [name, 'node']) {
          const refused = JSON.parse((await run(RUNTIMES[other], 'open', path))[0]);
          assert.deepEqual(refused.error, { name: 'AssociativeMemoryError', code: 'already_open', field: 'path' }, `${other}: ${JSON.stringify(refused)}`);
          assert.match(refused.message, new RegExp(`open in process ${holding}; `));
        }
        // it ends without close(): its lock stays, and is taken over since its process is gone
        assert.equal((await holder.end()).code, 0);
        assert.ok(existsSync(`${path}-lock`));
        assert.deepEqual(await run(RUNTIMES[name], 'open', path), ['{"opened":true}']);
        const nodeHolder = child(RUNTIMES.node, 'hold', path);
        await nodeHolder.until((l) => 'holding' in l);
        assert.equal(JSON.parse((await run(RUNTIMES[name], 'open', path))[0]).error?.code, 'already_open');
        await nodeHolder.end();
      });
    });
  }

  describe('deno with fewer permissions', () => {
    it("with reads and writes narrowed to the package's directory and the memory's", async () => {
      const path = await fresh();
      const dir = join(path, '..');
      const narrow = deno([`--allow-read=${join(CONSUMER, 'node_modules', 'associative-memory')},${dir}`, `--allow-write=${dir}`, '--allow-sys=hostname', '--allow-run']);
      assert.deepEqual(await run(narrow, 'write', path, key), node.write);
      const elsewhere = JSON.parse((await run(narrow, 'open', join(root, 'elsewhere.sqlite3')))[0]);
      assert.deepEqual(elsewhere.error, { name: 'AssociativeMemoryError', code: 'storage', field: 'path' }, JSON.stringify(elsewhere));
    });

    it('without --allow-run, counts a lock as held, since whether its process lives cannot be checked', async () => {
      const noRun = deno(DENO_ALLOW.filter((f) => f !== '--allow-run'));
      const path = await fresh();
      const holder = child(RUNTIMES.node, 'hold', path);
      const { holding } = await holder.until((l) => 'holding' in l);
      const refused = JSON.parse((await run(noRun, 'open', path))[0]);
      assert.equal(refused.error?.code, 'already_open', JSON.stringify(refused));
      assert.match(refused.message, new RegExp(`open in process ${holding} \\(whether it lives cannot be checked here: Requires run access`));
      await holder.end();
      // the holder is gone, but Deno cannot tell: still refused, and the message says which file to delete
      const stale = JSON.parse((await run(noRun, 'open', path))[0]);
      assert.equal(stale.error?.code, 'already_open', JSON.stringify(stale));
      assert.ok(stale.message.includes(`delete ${path}-lock`), stale.message);
      assert.deepEqual(await run(RUNTIMES.deno, 'open', path), ['{"opened":true}'], 'with --allow-run it is taken over');
    });

    it('without --allow-sys=hostname, fails with a storage error naming path, and makes no file', async () => {
      const path = await fresh();
      const refused = JSON.parse((await run(deno(['--allow-read', '--allow-write', '--allow-run']), 'open', path))[0]);
      assert.deepEqual(refused.error, { name: 'AssociativeMemoryError', code: 'storage', field: 'path' }, JSON.stringify(refused));
      assert.match(refused.message, /--allow-sys/);
      assert.deepEqual(await readdir(join(path, '..')), []);
    });
  });
});
