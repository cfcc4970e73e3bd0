// tools() and callTool from the packed package: the schemas are valid JSON Schema (ajv,
// strict), ajv and callTool's own checks agree on good and bad arguments, and a recorded
// conformance scenario of the reference replayed through callTool gives the recorded
// outputs (the rules of tests/conformance.rs: fixed clock from the scenario's start, +step
// per write op, a store without timestamp stamped with the clock's now; the reference's
// server-only `embedded` field ignored).

import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { importPackage } from './pack.mjs';

const SCENARIOS = fileURLToPath(new URL('../../../shared/conformance/scenarios/', import.meta.url));
const TOOL_NAMES = ['store', 'recall', 'reconstruct', 'traverse', 'declare_associations', 'get_contents', 'delete_memory'];

/** Arguments a model might send: [tool, args, valid?]. */
const SAMPLES = [
  ['store', { agent_id: 'a', content: 'x' }, true],
  ['store', { agent_id: 'a', content: 'x', associations: { entities: [{ name: 'E', aliases: ['e'] }], relations: [{ subject: 'E', predicate: 'p', object: 'F' }] } }, true],
  ['store', { agent_id: 'a' }, false],
  ['store', { agent_id: 'a', content: '' }, false],
  ['store', { agent_id: 'a', content: 'x', associations: { relations: [{ subject: 'E', predicate: 'p' }] } }, false],
  ['store', { agent_id: 'a', content: 'x', mood: 'happy' }, false],
  ['recall', { agent_id: 'a', query: 'q', limit: 100, deep: true }, true],
  ['recall', { agent_id: 'a', query: 'q', limit: 101 }, false],
  ['reconstruct', { agent_id: 'a', query: 'q', count: 3, top_k: 20, max_hops: 5, max_evidence: 100, budget: 2000, trace: true }, true],
  ['reconstruct', { agent_id: 'a', query: 'q', top_k: 0 }, false],
  ['traverse', { agent_id: 'a', entity: 'E', max_hops: 0, limit: 1 }, true],
  ['traverse', { agent_id: 'a', entity: 'E', max_hops: 9 }, false],
  ['traverse', { agent_id: 'a', entity: 'E', max_hops: 1.5 }, false],
  ['traverse', { agent_id: 'a', entity: 7 }, false],
  ['declare_associations', { agent_id: 'a', retract: { relations: [1], mentions: [{ entity: 1, ref: 'mem:1' }] } }, true],
  ['declare_associations', { agent_id: 'a', retract: { relations: ['1'] } }, false],
  ['get_contents', { agent_id: 'a', refs: ['mem:1', 'ep:2'] }, true],
  ['get_contents', { agent_id: 'a', refs: [] }, false],
  ['get_contents', { agent_id: 'a', refs: Array.from({ length: 21 }, (_, i) => `mem:${i + 1}`) }, false],
  ['delete_memory', { agent_id: 'a', memory_id: 3 }, true],
  ['delete_memory', { agent_id: 'a', memory_id: 'mem:3' }, false],
  ['delete_memory', { memory_id: 3 }, false],
];

describe('tools() and callTool', () => {
  let pkg;
  before(async () => { pkg = await importPackage(); });

  it('describes the seven tools with valid JSON Schemas', async () => {
    const memory = await pkg.openMemory();
    const tools = memory.tools();
    assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
    const ajv = new Ajv({ strict: true, allErrors: true });
    for (const tool of tools) {
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

  it('agrees with ajv on good and bad arguments', async () => {
    const memory = await pkg.openMemory();
    const ajv = new Ajv({ strict: true });
    const schemas = Object.fromEntries(memory.tools().map((t) => [t.name, ajv.compile(t.input_schema)]));
    for (const [tool, args, valid] of SAMPLES) {
      assert.equal(schemas[tool](args), valid, `ajv on ${tool} ${JSON.stringify(args)}`);
      let error = null;
      try { await memory.callTool(tool, args); } catch (e) { error = e; }
      // A valid call may still find nothing to delete; it is never refused for its arguments.
      if (valid) assert.ok(!error || error.code === 'not_found', `callTool refused valid ${tool} ${JSON.stringify(args)}: ${error?.message}`);
      else {
        assert.ok(error, `callTool accepted invalid ${tool} ${JSON.stringify(args)}`);
        assert.equal(error.name, 'AssociativeMemoryError');
        assert.ok(error.field, `the error names the argument: ${error.message}`);
      }
    }
    await assert.rejects(memory.callTool('drop_database', { agent_id: 'a' }), { code: 'unknown_tool' });
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
