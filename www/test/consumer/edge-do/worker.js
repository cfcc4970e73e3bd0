// A user's Worker hosting memories in Durable Objects: the package's `MemoryObject`, and a
// front that routes `/m/<memory>/…` to the object named `<memory>` (its HTTP face), or, for
// `/m/<memory>/rpc`, calls the object over Workers RPC (`stub.call`, `stub.storeMany`) and
// answers what it returned or threw. Served by workerd in package-durable-object.test.mjs.
import { MemoryObject, fromRpcError } from 'associative-memory/durable-object';

export { MemoryObject };

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const route = url.pathname.match(/^\/m\/([^/]+)(\/.*)?$/);
    if (!route) return new Response('no such route', { status: 404 });
    const stub = env.MEMORY_OBJECT.get(env.MEMORY_OBJECT.idFromName(decodeURIComponent(route[1])));
    if (route[2] === '/rpc') {
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
    }
    return stub.fetch(new Request(new URL(route[2] ?? '/', url), request));
  },
};
