#!/usr/bin/env node
// The package's command, `associative-memory` (what `npx -y associative-memory` runs: npx
// runs the bin named like the package) and `associative-memory-mcp` (the native server's
// name; `npx -y -p associative-memory associative-memory-mcp`): a memory in a file (storage
// 'file') served over the Model Context Protocol's stdio transport, on the official SDK. The flags are the native binary's
// (src/bin/associative-memory-mcp.rs), and one test suite drives both
// (www/test/package-mcp-bin.test.mjs); `--import-mcp-memory` and `--compat` are this one's
// alone, since they are the package's TypeScript (import-mcp.ts, server-memory.ts).
//
//   npx -y associative-memory --db memory.sqlite --agent assistant
//
// Exit status: 2 for a usage error (the message names the flag), 1 when the memory cannot
// be opened or the import fails, 0 when the client closes the connection.

import { readFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { openMemory, importMcpMemoryGraph, type AgentMemory, type AssociativeMemory } from './node.js';
import { createMcpServer, type McpServerOptions } from './mcp.js';
import { createServerMemoryServer, SERVER_MEMORY_TOOLS, type ServerMemoryToolName } from './server-memory.js';
import { TOOL_DEFINITIONS, type ToolName } from './tool-schemas.js';

const NAME = 'associative-memory-mcp';

/** The environment variable the key is read from when `--key-env` names none. */
const KEY_VARIABLE = 'ASSOCIATIVE_MEMORY_KEY';

/**
 * The agent `--compat server-memory` and `--import-mcp-memory` use when `--agent` is not
 * given: the official server has no agents, so its graph becomes this one's memory.
 */
const DEFAULT_AGENT = 'default';

const USAGE = `usage: ${NAME} --db <path> [options]
  --db <path>                  the SQLite file of the memory, created if absent (required)
  --agent <id>                 serve one agent: the tools take no agent_id, and reach no other agent
  --project <id>               with --agent: the agent's project (the tools take no project_id)
  --key-env <VAR>              encrypt the file with the key in $VAR (64 hex digits: a raw key;
                               anything else: a passphrase); default $${KEY_VARIABLE} when set
  --tools <selection>          all (default), read-only, or a comma list of tool names
  --import-mcp-memory <file>   first import the official MCP memory server's memory.jsonl into
                               the agent (default '${DEFAULT_AGENT}'); only into an empty memory, so
                               a restart does not import it twice
  --compat server-memory       serve the nine tools of @modelcontextprotocol/server-memory
                               instead, on the agent's memories (default agent '${DEFAULT_AGENT}')
  --help                       this text`;

/** A usage error: the message and the usage, on stderr, and status 2. */
function usage(message: string): never {
  process.stderr.write(`${NAME}: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** Fails the process with status 1, naming what went wrong. */
function fail(message: string): never {
  process.stderr.write(`${NAME}: ${message}\n`);
  process.exit(1);
}

interface Flags {
  db: string;
  agent?: string;
  project?: string;
  keyEnv?: string;
  tools?: string;
  importMcpMemory?: string;
  compat?: 'server-memory';
}

/** The flags that take a value, by name, and where each goes. */
const VALUED: Record<string, keyof Flags> = {
  '--db': 'db', '--agent': 'agent', '--project': 'project', '--key-env': 'keyEnv',
  '--tools': 'tools', '--import-mcp-memory': 'importMcpMemory', '--compat': 'compat',
};

function parseFlags(argv: string[]): Flags {
  const flags: Partial<Record<keyof Flags, string>> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const key = VALUED[flag];
    if (key === undefined) usage(`unknown flag ${arg}`);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === '') usage(`${flag} needs a value`);
    if (flags[key] !== undefined) usage(`${flag} is given twice`);
    flags[key] = value;
  }
  if (flags.db === undefined) usage('--db is required');
  if (flags.project !== undefined && flags.agent === undefined) usage('--project needs --agent (a project is one agent\'s)');
  if (flags.compat !== undefined && flags.compat !== 'server-memory') usage(`--compat takes server-memory, got ${JSON.stringify(flags.compat)}`);
  if (flags.keyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(flags.keyEnv)) usage(`--key-env takes an environment variable's name, got ${JSON.stringify(flags.keyEnv)}`);
  return flags as Flags;
}

/**
 * A `--tools` selection as `createMcpServer` takes it: `all`, `read-only`, or a comma list
 * of the served tools' names (an unknown one is a usage error listing them).
 */
function parseSelection<N extends string>(text: string | undefined, names: readonly N[]): { only?: N[]; readOnly?: boolean } {
  if (text === undefined || text === 'all') return {};
  if (text === 'read-only') return { readOnly: true };
  const only = text.split(',').map((n) => n.trim());
  const unknown = only.find((n) => !(names as readonly string[]).includes(n));
  if (unknown !== undefined) usage(`--tools: ${JSON.stringify(unknown)} is no tool here (all, read-only, or a comma list of: ${names.join(', ')})`);
  return { only: only as N[] };
}

/** The key in `variable`: 64 hex digits are a raw 32-byte key, anything else a passphrase. */
function keyFrom(variable: string, required: boolean): Uint8Array | string | undefined {
  const value = process.env[variable];
  if (value === undefined || value === '') {
    if (required) usage(`--key-env: the environment variable ${variable} is not set`);
    return undefined;
  }
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Uint8Array.from(value.match(/../g)!, (pair) => parseInt(pair, 16));
  return value;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const compat = flags.compat === 'server-memory';
  const agent = flags.agent ?? (compat || flags.importMcpMemory !== undefined ? DEFAULT_AGENT : undefined);
  const scope = flags.project === undefined ? {} : { project_id: flags.project };
  // checked before the memory is opened, so a usage error changes nothing
  const compatTools = compat ? parseSelection<ServerMemoryToolName>(flags.tools, SERVER_MEMORY_TOOLS.map((t) => t.name)) : {};
  const tools = compat ? {} : parseSelection<ToolName>(flags.tools, TOOL_DEFINITIONS.map((t) => t.name));
  const key = keyFrom(flags.keyEnv ?? KEY_VARIABLE, flags.keyEnv !== undefined);
  const jsonl = flags.importMcpMemory === undefined ? undefined : readText(flags.importMcpMemory);

  let memory: AssociativeMemory;
  try {
    memory = await openMemory({ storage: 'file', path: flags.db, ...(key === undefined ? {} : { key }) });
  } catch (e) {
    const { code, message } = e as { code?: string; message?: string };
    fail(`cannot open ${flags.db} (${code ?? 'error'}): ${message}`);
  }
  const closeAndExit = async (status: number) => {
    await memory.close().catch(() => undefined);
    process.exit(status);
  };
  const handle: AgentMemory | undefined = agent === undefined ? undefined : memory.agent(agent, scope);

  if (jsonl !== undefined && handle !== undefined) {
    const { total } = await handle.listMemories({ limit: 1 });
    if (total > 0) {
      process.stderr.write(`${NAME}: --import-mcp-memory: agent ${JSON.stringify(agent)} already has ${total} memories; ${flags.importMcpMemory} is imported only into an empty memory, so not again\n`);
    } else {
      try {
        const result = await importMcpMemoryGraph(memory, jsonl, { agent_id: agent!, ...scope });
        process.stderr.write(`${NAME}: imported ${flags.importMcpMemory}: ${result.entities} entities, ${result.relations} relations, ${result.memories} memories\n`);
      } catch (e) {
        const { code, field, message } = e as { code?: string; field?: string; message?: string };
        process.stderr.write(`${NAME}: cannot import ${flags.importMcpMemory} (${code}${field ? `, ${field}` : ''}): ${message}\n`);
        await closeAndExit(1);
      }
    }
  }

  // The selection as the tool subsets of `createMcpServer` take it ({ only } or { readOnly }).
  const options: McpServerOptions = { name: 'associative-memory', ...tools };
  const server = compat ? createServerMemoryServer(handle!, compatTools) : createMcpServer(handle ?? memory, options);
  // The client leaving (stdin ends) or a signal: the database is closed (its log
  // checkpointed, its lock file removed) before the process ends.
  let closing = false;
  const shutdown = async (status: number) => {
    if (closing) return;
    closing = true;
    await server.close().catch(() => undefined);
    await closeAndExit(status);
  };
  process.stdin.on('end', () => void shutdown(0));
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  await server.connect(new StdioServerTransport());
}

/** A file's text, or status 1 naming it. */
function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    fail(`--import-mcp-memory: cannot read ${path}: ${(e as Error).message}`);
  }
}

main().catch((e) => fail(String((e as Error)?.stack ?? e)));
