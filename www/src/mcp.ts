// `associative-memory/mcp`: the memory as a Model Context Protocol server, on the official
// TypeScript SDK. The tools it lists are `tools({ format: 'mcp' })` — the schemas generated
// from the engine's option types, with the reference server's names and arguments, so an
// MCP host that used the reference finds the same tools here. Arguments are checked by the
// engine (as every call is); a refused call is an MCP tool error (`isError`) whose text
// names the code and the argument, so the model can correct itself.
//
// The server is transport-free: connect it to whatever the host offers — an
// `InMemoryTransport` pair in a page or worker, `WebStandardStreamableHTTPServerTransport`
// in workerd or Deno, `StdioServerTransport` in Node.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolErrorText } from './errors.js';
import type { McpToolDefinition, ToolsOptions } from './tools.js';

/** What the server needs of a memory: an `AssociativeMemory` or an `AgentMemory` handle. */
export interface McpMemory {
  tools(options: ToolsOptions<'mcp'>): McpToolDefinition[];
  callTool(name: string, args: unknown): Promise<unknown>;
}

/** Options of `createMcpServer`. */
export interface McpServerOptions {
  /** The server's name in the MCP handshake; default `'associative-memory'`. */
  name?: string;
  /** The server's version in the handshake; default the package's. */
  version?: string;
}

/** The package version announced by default. */
const VERSION = '0.1.0';

/**
 * An MCP server serving `memory`'s tools. Pass an agent handle (`memory.agent('a')`) to
 * serve one agent: its tools then take no `agent_id`, and no call can reach another agent.
 *
 * ```ts
 * const server = createMcpServer(memory);
 * await server.connect(transport);
 * ```
 */
export function createMcpServer(memory: McpMemory, options: McpServerOptions = {}): Server {
  const server = new Server(
    { name: options.name ?? 'associative-memory', version: options.version ?? VERSION },
    { capabilities: { tools: {} } },
  );
  const tools = memory.tools({ format: 'mcp' });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    try {
      const result = await memory.callTool(request.params.name, request.params.arguments ?? {});
      return { content: [{ type: 'text', text: JSON.stringify(result) }] };
    } catch (error) {
      // the engine's typed error, in the words a model reads: code, argument, what to do
      const text = toolErrorText(error);
      if (text === undefined) throw error;
      return { isError: true, content: [{ type: 'text', text }] };
    }
  });
  return server;
}
