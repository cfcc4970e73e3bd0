// A user's MCP server on the edge: one memory per isolate, served over Streamable HTTP
// (stateless: a server and transport per request, the memory shared) by the official SDK's
// web-standard transport. Bundled and served by workerd; see package-mcp.test.mjs.
import { openMemory } from 'associative-memory';
import { createMcpServer } from 'associative-memory/mcp';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

let memory;

export default {
  async fetch(request) {
    memory ??= await openMemory();
    const server = createMcpServer(memory);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(request);
  },
};
