// The MCP face in a browser page: `createMcpServer` from the installed package serves a
// memory (storage from `?storage=`, 'memory' or 'opfs') over the official SDK's in-memory
// transport, and the SDK's `Client` in the same page talks to it (and a read-only server,
// `{ readOnly: true }`, to `window.readOnlyClient`). package-mcp.test.mjs
// drives `window.client` from Node with the checks every MCP face passes.
import { openMemory } from 'associative-memory';
import { createMcpServer } from 'associative-memory/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

const storage = new URLSearchParams(location.search).get('storage') ?? 'memory';
const memory = await openMemory({ storage, name: `mcp-${Date.now()}` });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await createMcpServer(memory).connect(serverSide);
const client = new Client({ name: 'page', version: '1.0.0' });
await client.connect(clientSide);
window.client = client;
// a second server on the same memory serving only the tools that do not write
const [readOnlyClientSide, readOnlyServerSide] = InMemoryTransport.createLinkedPair();
await createMcpServer(memory, { readOnly: true }).connect(readOnlyServerSide);
window.readOnlyClient = new Client({ name: 'page', version: '1.0.0' });
await window.readOnlyClient.connect(readOnlyClientSide);
window.tools = memory.tools({ format: 'mcp' });
document.getElementById('out').textContent = `ready (${storage})`;
document.body.dataset.state = 'ready';
