// `associative-memory/durable-object-mcp`: `MemoryObject` with its MCP face at `/mcp`, over
// Streamable HTTP on the official SDK's web-standard transport (stateless: a server and a
// transport per request, JSON answers). A module of its own, so a Worker that serves no MCP
// needs no SDK. Its tools, results and errors are `createMcpServer`'s: annotations and
// output schemas listed, `structuredContent` in results, an unlisted tool JSON-RPC -32602.

import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { MemoryObject } from './durable-object.js';
import { createMcpServer } from './mcp.js';
import type { AgentMemory, AssociativeMemory } from './workerd.js';

export { fromRpcError, sqlPages, MAX_BODY, type MemoryObjectEnv } from './durable-object.js';

/**
 * A `MemoryObject` that also serves MCP at `/mcp` with a bearer token: an agent's token gets
 * its agent's tools (no `agent_id` argument, no way to another agent), the owner's every
 * agent's. Export it from your Worker in place of `MemoryObject` (examples/edge/worker.js).
 */
export class McpMemoryObject extends MemoryObject {
  protected override async mcp(request: Request, memory: AssociativeMemory | AgentMemory): Promise<Response> {
    const server = createMcpServer(memory);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(request);
  }
}
