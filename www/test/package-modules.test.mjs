// The package's two modules of one engine: the size-built one that pages, workers and edge
// runtimes download, and the one built for speed that the Node entry reads (Cargo.toml's
// wasm-node profile). Node must run the second, and the two must answer byte for byte alike:
// the same responses over a replay with vectors, and the same database bytes after it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OP_TOOL } from '../bench/replay.mjs';
import { CONSUMER } from './pack.mjs';

const INSTALLED = join(CONSUMER, 'node_modules/associative-memory');
const WORKLOAD = new URL('../../../shared/conformance/bench/bench_1000.json', import.meta.url);

/** A module's own glue, instantiated with its bytes, and a fresh in-memory engine on `clock`. */
async function engine(glue, wasm, clock) {
  const { initSync, Memory } = await import(pathToFileURL(join(INSTALLED, glue)).href);
  initSync({ module: readFileSync(join(INSTALLED, wasm)) });
  return Memory.openInMemory(clock);
}

describe("the package's two modules", () => {
  it('Node resolves the module built for speed, and its entry reads it', () => {
    const requireHere = createRequire(join(CONSUMER, 'index.js'));
    assert.equal(requireHere.resolve('associative-memory/associative_memory_bg.wasm'), join(INSTALLED, 'associative_memory_node_bg.wasm'));
    const sizes = ['associative_memory_bg.wasm', 'associative_memory_node_bg.wasm'].map((f) => readFileSync(join(INSTALLED, f)).length);
    assert.notEqual(sizes[0], sizes[1], 'two builds');
    // A copy of the installed package without the Node module: its Node entry cannot open a memory.
    const dir = mkdtempSync(join(tmpdir(), 'am-modules-'));
    try {
      cpSync(INSTALLED, join(dir, 'node_modules/associative-memory'), { recursive: true });
      rmSync(join(dir, 'node_modules/associative-memory/associative_memory_node_bg.wasm'));
      const script = "import('associative-memory').then((p) => p.openMemory()).then(() => console.log('opened'), (e) => console.log(e.code, e.path))";
      const out = execFileSync(process.execPath, ['--input-type=commonjs', '-e', script], { cwd: dir, encoding: 'utf8' }).trim();
      assert.equal(out, `ENOENT ${join(dir, 'node_modules/associative-memory/associative_memory_node_bg.wasm')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("init given the size-built module in Node rejects with wrong_module, naming Node's, and then loads Node's", () => {
    // A fresh process: the glue loads one module per process, so init must be its first load.
    const script = `
      const { readFileSync } = require('node:fs');
      import('associative-memory').then(async (p) => {
        const out = [];
        await p.init(readFileSync('node_modules/associative-memory/associative_memory_bg.wasm')).catch((e) => out.push(e.name, e.code, /associative_memory_node_bg\\.wasm/.test(e.message)));
        await p.init(readFileSync(require.resolve('associative-memory/associative_memory_bg.wasm')));
        const m = await p.openMemory();
        out.push((await m.store({ agent_id: 'a', content: 'loaded' })).id);
        console.log(out.join(' '));
      });`;
    const out = execFileSync(process.execPath, ['--input-type=commonjs', '-e', script], { cwd: CONSUMER, encoding: 'utf8' }).trim();
    assert.equal(out, 'AssociativeMemoryError wrong_module true 1');
  });

  it('answer byte for byte alike: every response of a replay with vectors, and the database after it', async () => {
    const workload = JSON.parse(readFileSync(WORKLOAD, 'utf8'));
    let now = Date.parse(workload.clock.start);
    const clock = () => now;
    const small = await engine('associative_memory.js', 'associative_memory_bg.wasm', clock);
    const fast = await engine('associative_memory_node.js', 'associative_memory_node_bg.wasm', clock);
    // A deterministic 8-d vector per text, so the vector arm, its fusion and the cosines run.
    const vector = (text) => Array.from({ length: 8 }, (_, k) => Math.sin(text.length * (k + 1) + text.charCodeAt(k % text.length)));
    let compared = 0;
    for (const [i, op] of workload.ops.entries()) {
      const { op: kind, ...args } = op;
      args.agent_id = workload.agent_id;
      if (kind === 'store') Object.assign(args, { embedding: vector(args.content), embedding_model: 'm' });
      if (kind === 'reconstruct' && i % 2 === 0) Object.assign(args, { query_embedding: vector(args.query), query_embedding_model: 'm' });
      const calls = [[OP_TOOL[kind], args]];
      if (kind === 'reconstruct') calls.push(['recall', { agent_id: args.agent_id, query: args.query, query_embedding: args.query_embedding, query_embedding_model: args.query_embedding_model, limit: 10 }]);
      for (const [tool, options] of calls) {
        const [a, b] = [small, fast].map((m) => JSON.stringify(m.call(tool, options)));
        assert.equal(b, a, `op ${i} (${tool})`);
        compared += 1;
      }
      if (kind === 'store') now += workload.clock.step_seconds * 1000;
    }
    assert.equal(compared, 1300);
    assert.ok(Buffer.from(fast.export()).equals(Buffer.from(small.export())), 'the same database bytes');
  });
});
