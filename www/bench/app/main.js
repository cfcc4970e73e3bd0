// The bench page (package-bench.mjs builds it with Vite): ?storage=memory|opfs, and ?key=1
// for an encrypted memory (a raw 32-byte key, so no key derivation on open). Cold start
// is the dynamic import of the package + openMemory (fetching and instantiating the wasm;
// for 'opfs' also starting the worker and installing the pool); then the workload replays.
import { replay, workloadClock } from './replay.mjs';

const params = new URLSearchParams(location.search);
const storage = params.get('storage') ?? 'memory';
const key = params.get('key') ? new Uint8Array(32).fill(7) : undefined;
const workload = await (await fetch('./workload.json')).json();
const clock = workloadClock(workload);
const t0 = performance.now();
const { openMemory } = await import('associative-memory');
const memory = await openMemory({ storage, name: `bench-${Date.now()}`, clock: () => clock.now(), key });
const cold_ms = performance.now() - t0;
const run = await replay((tool, args) => memory.call(tool, args), workload, clock);
await memory.close();
window.result = { storage, encrypted: Boolean(key), cold_ms, ...run };
document.getElementById('out').textContent = JSON.stringify(window.result, null, 1);
