// `associative-memory/mcp`: the memory as a Model Context Protocol server, on the official
// TypeScript SDK. The tools it lists are `tools({ format: 'mcp' })` — the schemas generated
// from the engine's option and response types, with the reference server's names and
// arguments, each with its annotations (read-only, destructive) and output schema — or the
// selection of them the options name. A result carries the response object as
// `structuredContent` (which the SDK's client validates against the output schema) and as
// JSON text, for clients older than structured content. Arguments are checked by the engine
// (as every call is); a refused call is an MCP tool error (`isError`) whose text names the
// code and the argument, so the model can correct itself. A tool the server does not list is
// a protocol error, as the MCP specification has it: JSON-RPC `-32602` (invalid params),
// `unknown tool: <name>; tools: …` (the native binary answers the same).
//
// The server is transport-free: connect it to whatever the host offers — an
// `InMemoryTransport` pair in a page or worker, `WebStandardStreamableHTTPServerTransport`
// in workerd or Deno, `StdioServerTransport` in Node.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolErrorText } from './errors.js';
import type { McpToolDefinition, ToolSelection, ToolsOptions } from './tools.js';

/** What the server needs of a memory: an `AssociativeMemory` or an `AgentMemory` handle. */
export interface McpMemory {
  tools(options: ToolsOptions<'mcp'>): McpToolDefinition[];
  callTool(name: string, args: unknown, selection?: ToolSelection): Promise<unknown>;
}

/** Options of `createMcpServer`: the handshake's name and version, and which tools to serve. */
export interface McpServerOptions extends ToolSelection {
  /** The server's name in the MCP handshake; default `'associative-memory'`. */
  name?: string;
  /** The server's version in the handshake; default the package's. */
  version?: string;
}

/** The package version announced by default. */
const VERSION = '0.1.0';

/**
 * An MCP server serving `memory`'s tools, or the selection of them `options` names
 * (`{ readOnly: true }`: none that writes; `only`, `exclude`: by name). Pass an agent
 * handle (`memory.agent('a')`) to serve one agent: its tools then take no `agent_id`, and no
 * call can reach another agent.
 *
 * ```ts
 * const server = createMcpServer(memory, { exclude: ['delete_agent_data'] });
 * await server.connect(transport);
 * ```
 * @throws `AssociativeMemoryError` `invalid_value` naming `only` or `exclude` when a name is no tool.
 */
export function createMcpServer(memory: McpMemory, options: McpServerOptions = {}): Server {
  const { name, version, ...selection } = options;
  const server = new Server(
    { name: name ?? 'associative-memory', version: version ?? VERSION },
    { capabilities: { tools: {} } },
  );
  const tools = memory.tools({ ...selection, format: 'mcp' });
  const names: string[] = tools.map((t) => t.name);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = request.params.name;
    if (!names.includes(tool)) {
      // the SDK answers a thrown error's `code` and `message` as they are (`McpError` would
      // prefix the message with its code, which the native binary's answer does not have)
      throw Object.assign(new Error(`unknown tool: ${tool}; tools: ${names.join(', ') || '(none)'}`), { code: ErrorCode.InvalidParams });
    }
    try {
      const result = await memory.callTool(tool, request.params.arguments ?? {}, selection) as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      // the engine's typed error, in the words a model reads: code, argument, what to do
      const text = toolErrorText(error);
      if (text === undefined) throw error;
      return { isError: true, content: [{ type: 'text', text }] };
    }
  });
  return server;
}
