// The edge bench's Worker (edge-bench.mjs bundles it for workerd with SQLite-backed Durable
// Objects on disk): `?mode=memory` replays the workload on an in-memory memory in this
// isolate, `?mode=object` through Workers RPC on a fresh MemoryObject (its memory in the
// object's storage), each followed by a recall per reconstruct query (the workload has
// none); `?mode=fill&n=` stores n memories in the object `bench-cold` and `?mode=cold`
// times its first recall (after a restart of workerd: the object and the
// module loaded anew, the memory opened from storage, its indexes built).
import { DurableObject } from 'cloudflare:workers';
import { openMemory } from 'associative-memory';
import { MemoryObject } from 'associative-memory/durable-object';
import workload from './workload.json';
import { replay, summary, workloadClock } from './replay.mjs';

export { MemoryObject };

/** What any write of an object costs here, with no engine: one 4096-byte row per call. */
export class Probe extends DurableObject {
  write(i) {
    this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS rows (i INTEGER PRIMARY KEY, data BLOB)');
    this.ctx.storage.sql.exec('INSERT OR REPLACE INTO rows VALUES (?, ?)', i, new ArrayBuffer(4096));
  }
  read() {
    return 0;
  }
}

/** The workload has no recall: one per reconstruct query, after the replay, each timed. */
async function recalls(call) {
  const k = { times: [], errors: 0 };
  for (const op of workload.ops.filter((o) => o.op === 'reconstruct')) {
    const t0 = performance.now();
    try {
      await call('recall', { agent_id: workload.agent_id, query: op.query });
    } catch {
      k.errors += 1;
    }
    k.times.push(performance.now() - t0);
  }
  return summary(k);
}

export default {
  async fetch(request, env) {
    const params = new URL(request.url).searchParams;
    const mode = params.get('mode');
    const clock = workloadClock(workload);
    if (mode === 'memory') {
      const memory = await openMemory({ clock: () => clock.now() });
      const call = (tool, args) => memory.call(tool, args);
      const run = await replay(call, workload, clock);
      run.ops.recall = await recalls(call);
      await memory.close();
      return Response.json(run);
    }
    if (mode === 'object') {
      const stub = env.MEMORY_OBJECT.get(env.MEMORY_OBJECT.newUniqueId());
      const call = (tool, args) => stub.call(tool, args);
      const run = await replay(call, workload, clock);
      run.ops.recall = await recalls(call);
      return Response.json(run);
    }
    if (mode === 'probe') {
      const probe = env.PROBE.get(env.PROBE.newUniqueId());
      const t0 = performance.now();
      for (let i = 0; i < 200; i++) await probe.write(i);
      const t1 = performance.now();
      for (let i = 0; i < 200; i++) await probe.read();
      return Response.json({ write_ms: (t1 - t0) / 200, read_ms: (performance.now() - t1) / 200 });
    }
    const cold = env.MEMORY_OBJECT.get(env.MEMORY_OBJECT.idFromName('bench-cold'));
    if (mode === 'fill') {
      const n = Number(params.get('n'));
      const words = ['ledger', 'service', 'release', 'budget', 'review', 'launch', 'incident', 'migration', 'design', 'kaito', 'rin', 'planner'];
      for (let start = 0; start < n; start += 5000) {
        const items = Array.from({ length: Math.min(5000, n - start) }, (_, k) => {
          const i = start + k;
          return { content: `note ${i}: ${words[i % 12]} ${words[(i * 7) % 12]} ${words[(i * 5 + 3) % 12]} item${i}` };
        });
        await cold.storeMany({ agent_id: 'a', items });
      }
      return Response.json({ stored: n });
    }
    if (mode === 'cold') {
      const t0 = performance.now();
      const out = await cold.call('recall', { agent_id: 'a', query: 'ledger migration item17' });
      return Response.json({ ms: performance.now() - t0, first: out.messages[0]?.content });
    }
    return new Response('modes: memory, object, fill, cold', { status: 404 });
  },
};
