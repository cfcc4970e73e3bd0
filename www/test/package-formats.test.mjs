// tools({ format }) from the packed package, each format checked against what its vendor
// publishes: the MCP SDK's own `Tool` schema (zod) at run time; OpenAI's strict-mode rules
// (every object closed, every property required, optional ones nullable); and, for all three,
// the vendor SDKs' TypeScript types (openai, @anthropic-ai/sdk, @modelcontextprotocol/sdk)
// by `tsc` on a consumer file (www/test/consumer/formats/check.ts). A strict-mode call —
// every argument present, the unused ones null — is accepted by the engine.

import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Ajv from 'ajv';
import { ListToolsResultSchema, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { CONSUMER, importPackage } from './pack.mjs';
import { assertStrict } from './strict.mjs';

describe('tools({ format })', () => {
  let memory;
  before(async () => { memory = await (await importPackage()).openMemory(); });

  it('anthropic is the default: input_schema', () => {
    assert.deepEqual(memory.tools(), memory.tools({ format: 'anthropic' }));
    for (const t of memory.tools()) assert.deepEqual(Object.keys(t), ['name', 'description', 'input_schema']);
  });

  it('mcp parses with the MCP SDK\'s Tool schema, the same schemas as inputSchema', () => {
    const anthropic = memory.tools();
    const mcp = memory.tools({ format: 'mcp' });
    ListToolsResultSchema.parse({ tools: mcp });
    mcp.forEach((t, i) => {
      assert.deepEqual(ToolSchema.parse(t), t, t.name);
      assert.deepEqual(t.inputSchema, anthropic[i].input_schema);
    });
  });

  it('openai is {type: function, function}, strict wherever the schema allows, valid JSON Schema', () => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true });
    const tools = memory.tools({ format: 'openai' });
    assert.deepEqual(tools.map((t) => t.function.name), memory.tools().map((t) => t.name));
    for (const { type, function: f } of tools) {
      assert.equal(type, 'function');
      ajv.compile(f.parameters);
      if (f.strict) assertStrict(f.parameters, f.name);
    }
    // strict mode cannot say "any object": only the tools with free-form metadata are not strict
    assert.deepEqual(tools.filter((t) => !t.function.strict).map((t) => t.function.name), ['store', 'update_memory']);
    assert.ok(tools.filter((t) => t.function.strict).length >= 8);
  });

  it('a strict-mode call (every argument, the unused null) is accepted by the engine', async () => {
    const traverse = memory.tools({ format: 'openai' }).find((t) => t.function.name === 'traverse').function;
    const args = Object.fromEntries(Object.keys(traverse.parameters.properties).map((k) => [k, null]));
    Object.assign(args, { agent_id: 'a', entity: 'Nobody' });
    assert.ok(new Ajv({ allowUnionTypes: true }).validate(traverse.parameters, args));
    const out = await memory.callTool('traverse', args);
    assert.deepEqual(out.entities, []);
    const list = memory.tools({ format: 'openai' }).find((t) => t.function.name === 'list_memories').function;
    const all = Object.fromEntries(Object.keys(list.parameters.properties).map((k) => [k, null]));
    assert.equal((await memory.callTool('list_memories', { ...all, agent_id: 'a' })).total, 0);
  });

  it('refuses an unknown format, naming it', () => {
    assert.throws(() => memory.tools({ format: 'gemini' }), { code: 'invalid_value', field: 'format' });
  });

  it('each format is the type its vendor SDK publishes (tsc)', () => {
    const tsc = createRequire(join(CONSUMER, 'index.js')).resolve('typescript/bin/tsc');
    const run = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '-p', join(CONSUMER, 'formats')], { encoding: 'utf8' });
    assert.equal(run.status, 0, `tsc:\n${run.stdout}${run.stderr}`);
  });
});
