// A user's MCP server on the edge: one memory per isolate, served over Streamable HTTP
// (stateless: a server and transport per request, the memory shared) by the official SDK's
// web-standard transport; at `/read-only`, only the tools that do not write. Bundled and
// served by workerd; see package-mcp.test.mjs.
import { openMemory } from 'associative-memory';
import { createMcpServer } from 'associative-memory/mcp';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

let memory;

export default {
  async fetch(request) {
    memory ??= await openMemory();
    // `/read-only` serves the tools that do not write, over the same memory
    const server = createMcpServer(memory, { readOnly: new URL(request.url).pathname === '/read-only' });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(request);
  },
};
