// The deployable example (examples/edge/worker.js, copied beside this file by the test), with
// two routes more for the tests: `/m/<memory>/rpc` calls the object over Workers RPC
// (`stub.call`, `stub.storeMany` with a progress callback, …) and answers what it returned or
// threw; `/r/<memory>/stats` answers the relay's `stats()`. Served by workerd in
// package-durable-object.test.mjs and package-relay.test.mjs.
import example, { MemoryObject, MemoryRelay } from './example.js';
import { fromRpcError } from 'associative-memory/durable-object';

export { MemoryObject, MemoryRelay };

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const relay = /^\/r\/([^/]+)\/stats$/.exec(url.pathname);
    if (relay) return Response.json(await env.MEMORY_RELAY.get(env.MEMORY_RELAY.idFromName(relay[1])).stats());
    const route = /^\/m\/([^/]+)\/rpc$/.exec(url.pathname);
    if (!route) return example.fetch(request, env);
    const stub = env.MEMORY_OBJECT.get(env.MEMORY_OBJECT.idFromName(decodeURIComponent(route[1])));
    const { method, args } = await request.json();
    const progress = [];
    if (method === 'storeMany') args[1] = (p) => { progress.push(p); };
    try {
      const value = await stub[method](...args);
      return Response.json({ value: value instanceof Uint8Array ? value.byteLength : value, progress });
    } catch (thrown) {
      const e = fromRpcError(thrown);
      return Response.json({ error: { name: e.name, message: e.message, code: e.code, field: e.field } });
    }
  },
};
