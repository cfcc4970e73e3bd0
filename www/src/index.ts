// The entry for browsers, bundlers and any runtime without a more specific condition:
// the .wasm is fetched from next to the module (`new URL(…, import.meta.url)`), which
// Vite, esbuild and webpack follow without configuration.

export { init, openMemory, AssociativeMemory, AgentMemory } from './core.js';
export type { Storage, OpenOptions, ExportOptions, ImportOptions, Embed, NamedEmbed, Rerank, RerankCandidate, ReembedOptions, Scope, WasmSource, Scoped, Agented, StoreManyProgress, StoreManyCallOptions } from './core.js';
export type { Key } from './rpc.js';
export type { MemorySync, SyncOptions, SyncSocket, SyncStatus, SyncErrorEvent } from './sync.js';
export type { ToolDefinition, ToolName, JsonSchema, ToolFormat, ToolsOptions, ToolSelection, ToolAnnotations, ToolDefinitions, AnthropicToolDefinition, OpenAiToolDefinition, McpToolDefinition } from './tools.js';
export { AssociativeMemoryError, isMemoryError } from './errors.js';
export type { ErrorCode } from './errors.js';
export { importMcpMemoryGraph } from './import-mcp.js';
export { storeBatches } from './batches.js';
export type { StoreBatch } from './batches.js';
export type { McpGraphImportOptions, McpGraphImportResult } from './import-mcp.js';
export type * from './types.js';
