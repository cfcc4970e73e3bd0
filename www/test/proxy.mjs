// A TCP proxy the sync tests and bench cut a device's connection with (package-sync.test.mjs,
// www/bench/sync-bench.mjs).

import { createServer, connect as tcp } from 'node:net';

/**
 * A TCP proxy to `port` on 127.0.0.1: `port` its own; `cut()` ends every connection through
 * it and refuses new ones until `restore()`.
 */
export async function proxy(target) {
  const sockets = new Set();
  let down = false;
  const server = createServer((client) => {
    if (down) return client.destroy();
    const upstream = tcp(target, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => { sockets.delete(s); client.destroy(); upstream.destroy(); });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore() { down = false; },
    close() {
      this.cut();
      server.close();
    },
  };
}
