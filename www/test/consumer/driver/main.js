// A page that only loads the installed package, for tests that drive it with
// page.evaluate (package-tabs.test.mjs, package-crash.test.mjs, www/bench/opfs-bench.mjs).
// It keeps every Worker the package starts in `window.workers`, so a test can
// `terminate()` the OPFS worker in the middle of a write, as a crash would.
const workers = [];
const NativeWorker = globalThis.Worker;
globalThis.Worker = class extends NativeWorker {
  constructor(...args) {
    super(...args);
    workers.push(this);
  }
};
window.workers = workers;
window.pkg = await import('associative-memory');
document.getElementById('out').textContent = 'ready';
document.body.dataset.state = 'ready';
