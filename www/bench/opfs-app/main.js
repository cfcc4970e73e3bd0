// The OPFS bench page (opfs-bench.mjs builds it with Vite): the package and the replay,
// driven from Node with page.evaluate.
import { replay, workloadClock } from './replay.mjs';

window.pkg = await import('associative-memory');
window.replay = replay;
window.workloadClock = workloadClock;
window.workload = await (await fetch('./workload.json')).json();
document.getElementById('out').textContent = 'ready';
document.body.dataset.state = 'ready';
