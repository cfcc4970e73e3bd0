// tools() and callTool from the packed package: the schemas (generated from the engine's
// option types) are valid JSON Schema (ajv, strict); callTool leaves the arguments to the
// engine, which refuses what the schemas refuse — except declaration items, which the
// engine reads leniently (a malformed item is dropped and reported, the rest applied) —
// and a recorded conformance scenario of the reference replayed through callTool gives the
// recorded outputs (the rules of tests/conformance.rs: fixed clock from the scenario's
// start, +step per write op, a store without timestamp stamped with the clock's now; the
// reference's server-only `embedded` field ignored).

import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { importPackage } from './pack.mjs';

const SCENARIOS = fileURLToPath(new URL('../../../shared/conformance/scenarios/', import.meta.url));
const TOOL_NAMES = ['store', 'recall', 'reconstruct', 'traverse', 'declare_associations', 'get_contents', 'delete_memory', 'list_memories', 'update_memory', 'delete_agent_data', 'list_entities', 'history'];
const READ_TOOLS = ['recall', 'reconstruct', 'traverse', 'get_contents', 'list_memories', 'list_entities', 'history'];

/**
 * Arguments a model might send: [tool, args, valid for the schema?, what callTool does]:
 * 'ok', 'dropped' (accepted, the malformed declaration item reported in `dropped`), or the
 * error code.
 */
const SAMPLES = [
  ['store', { agent_id: 'a', content: 'x' }, true, 'ok'],
  ['store', { agent_id: 'a', content: 'x', associations: { entities: [{ name: 'E', aliases: ['e'] }], relations: [{ subject: 'E', predicate: 'p', object: 'F' }] } }, true, 'ok'],
  ['store', { agent_id: 'a' }, false, 'missing_field'],
  ['store', { agent_id: 'a', content: '' }, false, 'invalid_value'],
  ['store', { agent_id: 'a', content: 'x', associations: { relations: [{ subject: 'E', predicate: 'p' }] } }, false, 'dropped'],
  ['store', { agent_id: 'a', content: 'x', mood: 'happy' }, false, 'unknown_option'],
  ['recall', { agent_id: 'a', query: 'q', limit: 100, deep: true }, true, 'ok'],
  ['recall', { agent_id: 'a', query: 'q', limit: 101 }, false, 'out_of_range'],
  ['reconstruct', { agent_id: 'a', query: 'q', count: 3, top_k: 20, max_hops: 5, max_evidence: 100, budget: 2000, trace: true }, true, 'ok'],
  ['reconstruct', { agent_id: 'a', query: 'q', top_k: 0 }, false, 'out_of_range'],
  ['traverse', { agent_id: 'a', entity: 'E', max_hops: 0, limit: 1 }, true, 'ok'],
  ['traverse', { agent_id: 'a', entity: 'E', max_hops: 9 }, false, 'out_of_range'],
  ['traverse', { agent_id: 'a', entity: 'E', max_hops: 1.5 }, false, 'wrong_type'],
  ['traverse', { agent_id: 'a', entity: 7 }, false, 'wrong_type'],
  ['declare_associations', { agent_id: 'a', retract: { relations: [1], mentions: [{ entity: 1, ref: 'mem:1' }] } }, true, 'ok'],
  ['declare_associations', { agent_id: 'a', retract: { relations: ['1'] } }, false, 'dropped'],
  ['declare_associations', { agent_id: 'a', retract: { relation: [1] } }, false, 'unknown_option'],
  ['get_contents', { agent_id: 'a', refs: ['mem:1', 'ep:2'] }, true, 'ok'],
  ['get_contents', { agent_id: 'a', refs: [] }, false, 'out_of_range'],
  ['get_contents', { agent_id: 'a', refs: Array.from({ length: 21 }, (_, i) => `mem:${i + 1}`) }, false, 'out_of_range'],
  ['delete_memory', { agent_id: 'a', memory_id: 3 }, true, 'ok'], // the third memory the samples above stored
  ['delete_memory', { agent_id: 'a', memory_id: 'ep:3' }, false, 'invalid_value'], // a ref, of an episode
  ['delete_memory', { agent_id: 'a', memory_id: true }, false, 'wrong_type'],
  ['delete_memory', { memory_id: 3 }, false, 'missing_field'],
];

describe('tools() and callTool', () => {
  let pkg;
  before(async () => { pkg = await importPackage(); });

  it('describes the twelve tools with valid JSON Schemas', async () => {
    const memory = await pkg.openMemory();
    const tools = memory.tools();
    assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
    const ajv = new Ajv({ strict: true, allErrors: true });
    for (const tool of memory.tools({ format: 'mcp' })) {
      assert.ok(ajv.validateSchema(tool.outputSchema), `${tool.name}: ${ajv.errorsText(ajv.errors)}`);
      ajv.compile(tool.outputSchema);
      assert.equal(tool.annotations.readOnlyHint, READ_TOOLS.includes(tool.name), tool.name);
    }
    for (const tool of tools) {
      assert.deepEqual(Object.keys(tool), ['name', 'description', 'input_schema'], 'the keys Anthropic takes, no other');
      assert.ok(tool.description.length > 40, `${tool.name} has a real description`);
      assert.equal(tool.input_schema.type, 'object');
      assert.ok(ajv.validateSchema(tool.input_schema), `${tool.name}: ${ajv.errorsText(ajv.errors)}`);
      ajv.compile(tool.input_schema); // strict mode: unknown keywords and bad types throw
      assert.ok(tool.input_schema.required.includes('agent_id'));
    }
    JSON.stringify(tools); // JSON-able, to hand to a model
    tools[0].input_schema.properties.content.type = 'number';
    assert.equal(memory.tools()[0].input_schema.properties.content.type, 'string', 'tools() returns copies');
  });

  it('refuses in the engine what the schemas refuse, declaration items aside; answers as the output schemas say', async () => {
    const memory = await pkg.openMemory();
    const ajv = new Ajv({ strict: true });
    const schemas = Object.fromEntries(memory.tools().map((t) => [t.name, ajv.compile(t.input_schema)]));
    const outputs = Object.fromEntries(memory.tools({ format: 'mcp' }).map((t) => [t.name, ajv.compile(t.outputSchema)]));
    for (const [tool, args, valid, outcome] of SAMPLES) {
      const what = `${tool} ${JSON.stringify(args)}`;
      assert.equal(schemas[tool](args), valid, `ajv on ${what}`);
      let result = null;
      let error = null;
      try { result = await memory.callTool(tool, args); } catch (e) { error = e; }
      if (!error) assert.ok(outputs[tool](result), `${what}: the response breaks the output schema: ${ajv.errorsText(outputs[tool].errors)}`);
      if (outcome === 'ok') assert.ok(!error, `callTool refused valid ${what}: ${error?.message}`);
      else if (outcome === 'dropped') {
        assert.ok(!error, `callTool refused ${what} for a declaration item: ${error?.message}`);
        assert.ok((result.associations ?? result).dropped.length > 0, `${what}: the malformed item is reported`);
      } else {
        assert.ok(error, `callTool accepted ${what}`);
        assert.equal(error.name, 'AssociativeMemoryError');
        assert.equal(error.code, outcome, `${what}: ${error.message}`);
        assert.ok(error.field, `the error names the argument: ${error.message}`);
      }
    }
    await assert.rejects(memory.callTool('drop_database', { agent_id: 'a' }), { code: 'unknown_tool' });
    await assert.rejects(memory.callTool('delete_entity', { agent_id: 'a', entity_id: 1 }), { code: 'unknown_tool' }, 'only the twelve tools');
  });

  it('hands out a selection, and callTool given it runs no other tool', async () => {
    const memory = await pkg.openMemory();
    const names = (options) => memory.tools(options).map((t) => t.name);
    assert.deepEqual(names({ readOnly: true }), READ_TOOLS);
    assert.deepEqual(memory.tools({ readOnly: true, format: 'openai' }).map((t) => t.function.name), READ_TOOLS);
    assert.deepEqual(memory.tools({ readOnly: true, format: 'mcp' }).map((t) => t.name), READ_TOOLS);
    assert.deepEqual(names({ only: ['list_entities', 'store'] }), ['store', 'list_entities'], 'in the tools\' order');
    assert.deepEqual(names({ exclude: ['delete_memory', 'delete_agent_data'] }), TOOL_NAMES.filter((n) => !n.startsWith('delete_')));
    assert.deepEqual(names({ only: ['store', 'recall'], readOnly: true }), ['recall'], 'every part of a selection applies');
    assert.deepEqual(names({ only: [] }), []);
    for (const [options, code, field] of [
      [{ only: ['recall', 'forget_everything'] }, 'invalid_value', 'only'],
      [{ exclude: ['delete_entity'] }, 'invalid_value', 'exclude'],
      [{ only: 'recall' }, 'wrong_type', 'only'],
      [{ readOnly: 'yes' }, 'wrong_type', 'readOnly'],
    ]) {
      assert.throws(() => memory.tools(options), (e) => e.code === code && e.field === field && e instanceof pkg.AssociativeMemoryError,
        JSON.stringify(options));
      await assert.rejects(memory.callTool('recall', { agent_id: 'a', query: 'q' }, options), { code, field });
    }
    assert.throws(() => memory.tools({ exclude: ['delete'] }), /exclude names no tool "delete"; tools: store, recall/);

    const { id } = await memory.store({ agent_id: 'a', content: 'the ledger moved' });
    await assert.rejects(memory.callTool('delete_memory', { agent_id: 'a', memory_id: id }, { readOnly: true }),
      { code: 'unknown_tool', message: `unknown tool "delete_memory"; tools: ${READ_TOOLS.join(', ')}` });
    await assert.rejects(memory.callTool('store', { agent_id: 'a', content: 'x' }, { only: [] }), { message: 'unknown tool "store"; tools: (none)' });
    assert.equal((await memory.listMemories({ agent_id: 'a' })).total, 1, 'a refused call ran nothing');
    const recalled = await memory.callTool('recall', { agent_id: 'a', query: 'ledger' }, { readOnly: true });
    assert.equal(recalled.messages.length, 1);

    const bot = memory.agent('a');
    assert.deepEqual(bot.tools({ readOnly: true }).map((t) => t.name), READ_TOOLS);
    for (const tool of bot.tools({ readOnly: true, format: 'mcp' })) assert.ok(!('agent_id' in tool.inputSchema.properties), tool.name);
    await assert.rejects(bot.callTool('delete_memory', { memory_id: id }, { exclude: ['delete_memory'] }), { code: 'unknown_tool' });
    const entities = await bot.callTool('list_entities', { query: 'x' }, { only: ['list_entities'] });
    assert.deepEqual(entities, { entities: [], total: 0 });
    const page = await bot.callTool('list_memories', { max_content: 0 }, { readOnly: true });
    assert.deepEqual([page.memories[0].content, page.memories[0].truncated, page.memories[0].id], ['', true, id], 'metadata only');
    assert.equal((await bot.callTool('delete_memory', { memory_id: id })).ok, true, 'no selection: every tool');
  });

  it('keeps a stored memory whose relation lacks its object, and reports the drop', async () => {
    const memory = await pkg.openMemory();
    const args = { agent_id: 'a', content: 'Kaito took over the ledger.', associations: { relations: [{ subject: 'Kaito', predicate: 'maintains' }] } };
    const stored = await memory.callTool('store', args);
    assert.equal(stored.ok, true);
    assert.deepEqual(stored.associations.dropped.map((d) => d.item), ['relations[0].object']);
    const { items } = await memory.getContents({ agent_id: 'a', refs: [`mem:${stored.id}`] });
    assert.equal(items[0].content, args.content, 'the memory was stored');
    assert.deepEqual(await memory.store({ ...args, content: 'again' }).then((r) => r.associations.dropped), stored.associations.dropped,
      'store() and callTool read the associations alike');
  });

  it('refuses an empty content with the same code through callTool and store()', async () => {
    const memory = await pkg.openMemory();
    const viaTool = await memory.callTool('store', { agent_id: 'a', content: '' }).then(() => null, (e) => e);
    const viaStore = await memory.store({ agent_id: 'a', content: '' }).then(() => null, (e) => e);
    assert.ok(viaTool && viaStore);
    assert.deepEqual([viaTool.code, viaTool.field], [viaStore.code, viaStore.field]);
    assert.deepEqual([viaStore.code, viaStore.field], ['invalid_value', 'content']);
    const bot = memory.agent('a');
    await assert.rejects(bot.callTool('store', { agent_id: 'b', content: 'x' }), { code: 'unknown_option', field: 'agent_id' },
      'a scoped handle fixes its agent');
  });

  it('replays the recorded traverse_aliases scenario with the recorded outputs', async () => {
    const scenario = JSON.parse(readFileSync(`${SCENARIOS}traverse_aliases.json`, 'utf8'));
    const recorded = readFileSync(`${SCENARIOS}traverse_aliases.out.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    let now = Date.parse(scenario.clock.start);
    const step = scenario.clock.step_seconds * 1000;
    const memory = await pkg.openMemory({ clock: () => now });
    const iso = (ms) => `${new Date(ms).toISOString().slice(0, 19)}+00:00`;
    const withoutEmbedded = (v) => JSON.parse(JSON.stringify(v, (k, x) => (k === 'embedded' ? undefined : x)));
    let compared = 0;
    for (const [i, { op, ...rest }] of scenario.ops.entries()) {
      let tool = op === 'declare' || op === 'retract' ? 'declare_associations' : op;
      const args = { agent_id: scenario.agent_id, ...rest };
      if (op === 'retract') {
        args.retract = { relations: args.relations, mentions: args.mentions };
        delete args.relations; delete args.mentions;
        if (args.retract.mentions === undefined) delete args.retract.mentions;
      }
      if (op === 'delete') {
        const [kind, id] = args.ref.split(':');
        assert.equal(kind, 'mem');
        tool = 'delete_memory';
        delete args.ref;
        args.memory_id = Number(id);
      }
      if (op === 'store' && !args.timestamp) args.timestamp = iso(now);
      let ours;
      try { ours = await memory.callTool(tool, args); } catch (e) { ours = { error: e.code }; }
      if (['store', 'declare', 'retract'].includes(op)) now += step;
      const want = recorded[i].result;
      if (want.isError) assert.ok(ours.error, `op ${i} (${op}): the reference refused, we returned ${JSON.stringify(ours)}`);
      else assert.deepEqual(ours, withoutEmbedded(want), `op ${i} (${op})`);
      compared += 1;
    }
    assert.equal(compared, scenario.ops.length);
  });
});
