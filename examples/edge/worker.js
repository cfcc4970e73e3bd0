// A Worker that hosts memories at the edge: one Durable Object per memory (the package's
// `MemoryObject`, its memory in the object's own SQLite storage, with its MCP face), reached
// at `/m/<memory>/…` from any device with a token; and the blind relay that devices sync a
// memory through (`MemoryRelay`, one per memory, at `/r/<memory>/ws`), which keeps only
// sealed bytes. Copy this folder to deploy it (its README.md).
// A Worker that serves no MCP exports `MemoryObject` from 'associative-memory/durable-object'
// instead, and needs no MCP SDK.
import { McpMemoryObject } from 'associative-memory/durable-object-mcp';

export { McpMemoryObject as MemoryObject };
export { MemoryRelay } from 'associative-memory/durable-object';

/** A memory's name in the URL: 1–64 of A–Z a–z 0–9 . _ - */
const NAME = /^[A-Za-z0-9._-]{1,64}$/;

export default {
  /**
   * Routes `/m/<memory>/<route>` to the object named `<memory>`, as `/<route>`, and
   * `/r/<memory>/ws` (a WebSocket upgrade) to the relay named `<memory>`.
   */
  async fetch(request, env) {
    const url = new URL(request.url);
    const relay = /^\/r\/([^/]+)\/ws$/.exec(url.pathname);
    if (relay && NAME.test(relay[1])) {
      const stub = env.MEMORY_RELAY.get(env.MEMORY_RELAY.idFromName(relay[1]));
      return stub.fetch(new Request(new URL('/ws', url), request));
    }
    const route = /^\/m\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!route || !NAME.test(route[1])) {
      return Response.json({ error: { code: 'not_found', message: 'routes are /m/<memory>/call, /mcp, /export, /import, /check, /tokens, and /r/<memory>/ws', field: null } }, { status: 404 });
    }
    const stub = env.MEMORY_OBJECT.get(env.MEMORY_OBJECT.idFromName(route[1]));
    return stub.fetch(new Request(new URL(route[2] ?? '/', url), request));
  },
};
