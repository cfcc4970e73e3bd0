// The bench as an edge worker (package-bench.mjs bundles it for workerd): the first request
// measures openMemory (the .wasm module is compiled when workerd loads the worker; this is
// instantiate + open) and replays the workload. workerd's timer has 1 ms resolution.
import { openMemory } from 'associative-memory';
import workload from './workload.json';
import { replay, workloadClock } from './replay.mjs';

export default {
  async fetch() {
    const clock = workloadClock(workload);
    const t0 = performance.now();
    const memory = await openMemory({ clock: () => clock.now() });
    const cold_ms = performance.now() - t0;
    const run = await replay((tool, args) => memory.call(tool, args), workload, clock);
    await memory.close();
    return Response.json({ cold_ms, ...run });
  },
};
