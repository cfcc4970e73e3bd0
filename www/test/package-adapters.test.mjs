// The adapters of the packed package, each driven by its real library with the model's side
// simulated at the HTTP edge: `associative-memory/ai-sdk` under the AI SDK's `generateText`
// with `@ai-sdk/openai` (the Responses API, its default), and `associative-memory/langchain`
// bound to `@langchain/openai`'s `ChatOpenAI` (Chat Completions). Each provider is given a
// `fetch` that answers its requests as OpenAI's API does (a tool call, then text), so every
// request is written by the provider's own code: the tools it sends (names, schemas,
// strictness) and the tool results it hands back are read from its request bodies. Nothing
// leaves the process. The tools run against a real memory: what they store is recalled,
// what the engine refuses reaches the model with its code, message and field. Also: `tsc` on
// a consumer using both (www/test/consumer/adapters/check.ts), and the README's snippets run
// as written.

import { before, describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generateText, stepCountIs } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { CONSUMER, importPackage } from './pack.mjs';
import { assertStrict } from './strict.mjs';

/** A subpath export of the installed package, as Node resolves it from the consumer. */
async function importEntry(subpath) {
  return import(pathToFileURL(createRequire(join(CONSUMER, 'index.js')).resolve(`associative-memory/${subpath}`)).href);
}

/** The tools the operation table flags destructive (annotations.destructiveHint). */
const DESTRUCTIVE = ['declare_associations', 'delete_memory', 'update_memory', 'delete_agent_data'];
/** The tools that write, which a read-only selection leaves out. */
const WRITING = ['store', 'declare_associations', 'delete_memory', 'update_memory', 'delete_agent_data'];

/**
 * A stand-in for OpenAI's HTTP API: `answers` are called in turn with each request's parsed
 * body and give the response body; `requests` keeps every request as the provider sent it.
 */
function fakeOpenAi(answers) {
  const requests = [];
  const fetch = async (url, init) => {
    const body = JSON.parse(init.body);
    requests.push({ url: String(url), body });
    const answer = answers[requests.length - 1];
    assert.ok(answer, `an unexpected request ${requests.length} to ${url}`);
    return new Response(JSON.stringify(answer(body)), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, requests };
}

// The Responses API's answers (POST /v1/responses), as OpenAI writes them.
let responseId = 0;
function response(output) {
  responseId += 1;
  return {
    id: `resp_${responseId}`, object: 'response', created_at: 1765100000, status: 'completed', model: 'gpt-5-mini-2025-08-07',
    error: null, incomplete_details: null, output,
    usage: { input_tokens: 120, input_tokens_details: { cached_tokens: 0 }, output_tokens: 30, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 150 },
  };
}
const functionCall = (name, args, callId) => response([{ type: 'function_call', id: `fc_${callId}`, call_id: callId, name, arguments: JSON.stringify(args), status: 'completed' }]);
const message = (text) => response([{ type: 'message', id: `msg_${responseId + 1}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }]);

/** What a strict-mode model sends: every argument of the tool as the request declared it, the ones it does not use null. */
function strictArgs(body, name, args) {
  const tool = body.tools.find((t) => t.name === name);
  return { ...Object.fromEntries(Object.keys(tool.parameters.properties).map((k) => [k, null])), ...args };
}

/** The output the provider sent back for `callId` (the Responses API's `function_call_output`). */
function outputOf(body, callId) {
  const item = body.input.find((i) => i.type === 'function_call_output' && i.call_id === callId);
  assert.ok(item, `no function_call_output for ${callId} in ${JSON.stringify(body.input)}`);
  return item.output;
}

/** The engine's own error for a call, as `{ error, message, field }`: what an adapter must pass on unchanged. */
async function engineError(memory, name, args) {
  try {
    await memory.callTool(name, args);
  } catch (e) {
    return { error: e.code, message: e.message, field: e.field };
  }
  assert.fail(`${name} ${JSON.stringify(args)} was accepted`);
}

describe('associative-memory/ai-sdk under generateText with @ai-sdk/openai', () => {
  let pkg, aiSdkTools;
  before(async () => {
    pkg = await importPackage();
    ({ aiSdkTools } = await importEntry('ai-sdk'));
  });

  it('sends the strict schemas, stores and recalls through the tools, and the results reach the model', async () => {
    const memory = await pkg.openMemory();
    const ada = memory.agent('ada', { project_id: 'ops' });
    const model = fakeOpenAi([
      (body) => functionCall('store', { content: 'Kaito Mori maintains the ledger service.' }, 'call_store'),
      (body) => functionCall('recall', strictArgs(body, 'recall', { query: 'who maintains the ledger' }), 'call_recall'),
      () => message('Kaito Mori maintains it.'),
    ]);
    const openai = createOpenAI({ apiKey: 'test-key', fetch: model.fetch });
    const result = await generateText({
      model: openai('gpt-5-mini'), tools: aiSdkTools(ada), stopWhen: stepCountIs(5),
      prompt: 'Remember that Kaito Mori maintains the ledger service, then tell me who maintains it.',
    });
    assert.equal(result.text, 'Kaito Mori maintains it.');
    assert.equal(model.requests.length, 3);
    assert.match(model.requests[0].url, /\/responses$/);

    // the tools as the provider sent them: the handle's, no agent_id or project_id; strict where the schema fits
    const sent = model.requests[0].body.tools;
    const definitions = ada.tools();
    assert.deepEqual(sent.map((t) => t.name), definitions.map((t) => t.name));
    const openaiFormat = ada.tools({ format: 'openai' });
    for (const [i, t] of sent.entries()) {
      assert.equal(t.type, 'function');
      assert.equal(t.description, definitions[i].description);
      assert.ok(!('agent_id' in t.parameters.properties) && !('project_id' in t.parameters.properties), t.name);
      // the same strictness and schema as tools({ format: 'openai' }): one derivation
      assert.equal(t.strict, openaiFormat[i].function.strict, t.name);
      assert.deepEqual(t.parameters, openaiFormat[i].function.parameters, t.name);
      if (t.strict) assertStrict(t.parameters, t.name);
    }
    assert.deepEqual(sent.filter((t) => !t.strict).map((t) => t.name), ['store', 'update_memory']);

    // the store ran on the memory, in the handle's agent and project, and its response went back
    const stored = JSON.parse(outputOf(model.requests[1].body, 'call_store'));
    assert.equal(stored.result, 'stored');
    const listed = await memory.listMemories({ agent_id: 'ada', project_id: 'ops' });
    assert.deepEqual(listed.memories.map((m) => m.content), ['Kaito Mori maintains the ledger service.']);
    // the recall (every argument sent, the unused null) found it, and the model was told
    const recalled = JSON.parse(outputOf(model.requests[2].body, 'call_recall'));
    assert.equal(recalled.messages[0].ref, `mem:${stored.id}`);
    assert.equal(recalled.messages[0].content, 'Kaito Mori maintains the ledger service.');
    await memory.close();
  });

  it('an engine error reaches the model with its code, message and field, and nothing is written', async () => {
    const memory = await pkg.openMemory();
    const bad = { agent_id: 'ada', content: 'x', timestamp: 'yesterday-ish' };
    const model = fakeOpenAi([() => functionCall('store', bad, 'call_bad'), () => message('Sorry.')]);
    const openai = createOpenAI({ apiKey: 'test-key', fetch: model.fetch });
    const result = await generateText({ model: openai('gpt-5-mini'), tools: aiSdkTools(memory), stopWhen: stepCountIs(3), prompt: 'Remember x.' });
    const told = JSON.parse(outputOf(model.requests[1].body, 'call_bad'));
    assert.deepEqual(told, await engineError(memory, 'store', bad));
    assert.equal(told.error, 'invalid_value');
    assert.equal(told.field, 'timestamp');
    // the application sees the same error, a typed one
    const failed = result.steps[0].content.find((p) => p.type === 'tool-error');
    assert.ok(pkg.isMemoryError(failed.error));
    assert.equal(failed.error.code, 'invalid_value');
    assert.equal(failed.error.field, 'timestamp');
    assert.deepEqual(JSON.parse(failed.error.message), told);
    // no validator of the SDK's stood in front of the engine: a missing argument is the engine's word too
    const again = fakeOpenAi([() => functionCall('recall', { agent_id: 'ada' }, 'call_missing'), () => message('Sorry.')]);
    await generateText({ model: createOpenAI({ apiKey: 'test-key', fetch: again.fetch })('gpt-5-mini'), tools: aiSdkTools(memory), stopWhen: stepCountIs(3), prompt: 'Recall.' });
    const missing = JSON.parse(outputOf(again.requests[1].body, 'call_missing'));
    assert.deepEqual(missing, await engineError(memory, 'recall', { agent_id: 'ada' }));
    assert.equal(missing.field, 'query');
    assert.equal((await memory.listMemories({ agent_id: 'ada' })).total, 0);
    await memory.close();
  });

  it('a delete waits for approval (needsApproval on the destructive tools), and runs once approved', async () => {
    const memory = await pkg.openMemory();
    const ada = memory.agent('ada');
    const { id } = await ada.store({ content: 'The staging password rotates weekly.' });
    const tools = aiSdkTools(ada);
    // exactly the tools the annotations call destructive need approval
    const flagged = Object.entries(tools).filter(([, t]) => t.needsApproval === true).map(([name]) => name);
    assert.deepEqual(flagged, ada.tools({ format: 'mcp' }).filter((t) => t.annotations.destructiveHint).map((t) => t.name));
    assert.deepEqual(flagged, DESTRUCTIVE);

    const model = fakeOpenAi([
      (body) => functionCall('delete_memory', strictArgs(body, 'delete_memory', { memory_id: `mem:${id}` }), 'call_delete'),
      () => message('Deleted.'),
    ]);
    const openai = createOpenAI({ apiKey: 'test-key', fetch: model.fetch });
    const prompt = [{ role: 'user', content: 'Forget the staging password note.' }];
    const first = await generateText({ model: openai('gpt-5-mini'), tools, stopWhen: stepCountIs(5), messages: prompt });
    // the SDK asks for approval instead of running the tool, and stops
    const request = first.content.find((p) => p.type === 'tool-approval-request');
    assert.ok(request, `no approval request in ${JSON.stringify(first.content)}`);
    assert.equal(request.toolCall.toolName, 'delete_memory');
    assert.equal(model.requests.length, 1);
    assert.equal((await ada.listMemories()).total, 1, 'not deleted before approval');

    // approved: the SDK runs it, then hands the result to the model
    const second = await generateText({
      model: openai('gpt-5-mini'), tools, stopWhen: stepCountIs(5),
      messages: [...prompt, ...first.response.messages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved: true }] }],
    });
    assert.equal(second.text, 'Deleted.');
    assert.equal((await ada.listMemories()).total, 0);
    assert.equal(JSON.parse(outputOf(model.requests[1].body, 'call_delete')).deleted_id, id);
    await memory.close();
  });

  it('a read-only selection hands out no writing tool, and a call to one runs nothing', async () => {
    const memory = await pkg.openMemory();
    await memory.store({ agent_id: 'ada', content: 'The ledger closes at midnight.' });
    const tools = aiSdkTools(memory, { readOnly: true });
    // the selection is tools()'s: the tools annotated read-only
    assert.deepEqual(Object.keys(tools), memory.tools({ format: 'mcp' }).filter((t) => t.annotations.readOnlyHint).map((t) => t.name));
    for (const name of WRITING) assert.ok(!(name in tools), name);
    assert.ok('recall' in tools);

    const model = fakeOpenAi([
      () => functionCall('delete_agent_data', { agent_id: 'ada' }, 'call_wipe'),
      () => message('I cannot.'),
    ]);
    const openai = createOpenAI({ apiKey: 'test-key', fetch: model.fetch });
    await generateText({ model: openai('gpt-5-mini'), tools, stopWhen: stepCountIs(3), prompt: 'Wipe everything.' });
    assert.ok(!model.requests[0].body.tools.some((t) => WRITING.includes(t.name)));
    assert.match(outputOf(model.requests[1].body, 'call_wipe'), /delete_agent_data/);
    assert.equal((await memory.listMemories({ agent_id: 'ada' })).total, 1);
    await memory.close();
  });
});

// Chat Completions' answers (POST /v1/chat/completions), as OpenAI writes them.
function completion(message, finish) {
  return {
    id: 'chatcmpl-1', object: 'chat.completion', created: 1765100000, model: 'gpt-4.1-mini-2025-04-14',
    choices: [{ index: 0, message: { role: 'assistant', refusal: null, annotations: [], ...message }, logprobs: null, finish_reason: finish }],
    usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 }, system_fingerprint: 'fp_1',
  };
}
const toolCalls = (...calls) => completion({ content: null, tool_calls: calls.map(([name, args, id]) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } })) }, 'tool_calls');
const answer = (text) => completion({ content: text }, 'stop');

describe('associative-memory/langchain bound to @langchain/openai ChatOpenAI', () => {
  let pkg, langchainTools;
  before(async () => {
    pkg = await importPackage();
    ({ langchainTools } = await importEntry('langchain'));
  });

  /** One turn: the model's tool calls run through the tools, their messages sent back. */
  async function turn(model, tools, prompt) {
    const messages = [new HumanMessage(prompt)];
    const asked = await model.invoke(messages);
    assert.ok(asked instanceof AIMessage);
    messages.push(asked);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const call of asked.tool_calls) messages.push(await byName[call.name].invoke(call));
    messages.push(await model.invoke(messages));
    return messages;
  }

  it('binds the tools with their schemas; a tool call stores, another recalls, and the results reach the model', async () => {
    const memory = await pkg.openMemory();
    const ada = memory.agent('ada');
    const tools = langchainTools(ada);
    const api = fakeOpenAi([
      () => toolCalls(['store', { content: 'Kaito Mori maintains the ledger service.' }, 'call_store']),
      () => answer('Noted.'),
      () => toolCalls(['recall', { query: 'ledger' }, 'call_recall']),
      () => answer('Kaito Mori.'),
    ]);
    const model = new ChatOpenAI({ model: 'gpt-4.1-mini', apiKey: 'test-key', configuration: { fetch: api.fetch } }).bindTools(tools);
    const stored = await turn(model, tools, 'Remember that Kaito Mori maintains the ledger service.');
    assert.match(api.requests[0].url, /\/chat\/completions$/);
    // the tools as sent: the generated schemas exactly (not the wrapper they travel in)
    assert.deepEqual(api.requests[0].body.tools, ada.tools().map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.input_schema } })));
    const result = stored[2];
    assert.ok(result instanceof ToolMessage);
    assert.equal(result.status, 'success');
    assert.equal(result.tool_call_id, 'call_store');
    const ref = `mem:${JSON.parse(result.content).id}`;
    assert.equal(api.requests[1].body.messages.at(-1).role, 'tool');
    assert.equal(api.requests[1].body.messages.at(-1).content, result.content);
    assert.equal(stored.at(-1).content, 'Noted.');

    await turn(model, tools, 'Who maintains the ledger?');
    const recalled = JSON.parse(api.requests[3].body.messages.at(-1).content);
    assert.equal(recalled.messages[0].ref, ref);
    assert.equal(recalled.messages[0].content, 'Kaito Mori maintains the ledger service.');
    // invoked with plain arguments, a tool gives the response object
    assert.equal((await tools.find((t) => t.name === 'get_contents').invoke({ refs: [ref] })).items[0].content, 'Kaito Mori maintains the ledger service.');
    await memory.close();
  });

  it('the engine\'s errors reach the ToolMessage and the model as it wrote them; nothing is written', async () => {
    const memory = await pkg.openMemory();
    const tools = langchainTools(memory);
    const api = fakeOpenAi([
      () => toolCalls(['store', { agent_id: 'ada' }, 'call_missing'], ['recall', { agent_id: 'ada', query: 'q', limit: 1000 }, 'call_limit']),
      () => answer('Sorry.'),
    ]);
    const model = new ChatOpenAI({ model: 'gpt-4.1-mini', apiKey: 'test-key', configuration: { fetch: api.fetch } }).bindTools(tools);
    const messages = await turn(model, tools, 'Remember nothing.');
    const [missing, limit] = messages.slice(2, 4);
    // a missing argument is the engine's error, not LangChain's schema check ("did not match expected schema")
    assert.equal(missing.status, 'error');
    assert.deepEqual(JSON.parse(missing.content), await engineError(memory, 'store', { agent_id: 'ada' }));
    assert.equal(JSON.parse(missing.content).field, 'content');
    assert.equal(limit.status, 'error');
    assert.deepEqual(JSON.parse(limit.content), await engineError(memory, 'recall', { agent_id: 'ada', query: 'q', limit: 1000 }));
    assert.equal(JSON.parse(limit.content).field, 'limit');
    // as the model received them
    const sent = api.requests[1].body.messages.filter((m) => m.role === 'tool');
    assert.deepEqual(sent.map((m) => [m.tool_call_id, m.content]), [['call_missing', missing.content], ['call_limit', limit.content]]);
    assert.equal((await memory.listMemories({ agent_id: 'ada' })).total, 0);
    // invoked with plain arguments, a tool throws the typed error
    await assert.rejects(tools.find((t) => t.name === 'store').invoke({ agent_id: 'ada' }), (e) => pkg.isMemoryError(e) && e.code === 'missing_field' && e.field === 'content');
    await memory.close();
  });

  it('a read-only selection binds no writing tool', async () => {
    const memory = await pkg.openMemory();
    const tools = langchainTools(memory, { readOnly: true });
    assert.deepEqual(tools.map((t) => t.name), memory.tools({ format: 'mcp' }).filter((t) => t.annotations.readOnlyHint).map((t) => t.name));
    for (const name of WRITING) assert.ok(!tools.some((t) => t.name === name), name);
    assert.ok(tools.some((t) => t.name === 'recall'));
    await memory.close();
  });
});

it('the adapters type-check as the AI SDK and LangChain type tools (tsc)', () => {
  const tsc = createRequire(join(CONSUMER, 'index.js')).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '-p', join(CONSUMER, 'adapters')], { encoding: 'utf8' });
  assert.equal(run.status, 0, `tsc:\n${run.stdout}${run.stderr}`);
});

it("runs the README's adapter snippets as written, against a local OpenAI", async () => {
  const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
  const section = readme.split('\n### Adapters')[1].split('\n### ')[0];
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 2, 'an AI SDK snippet and a LangChain one');
  // the quick start's `bot`, then the snippets, then what they produced
  const file = join(CONSUMER, 'readme-adapters.mjs');
  writeFileSync(file, "import { openMemory } from 'associative-memory';\n" +
    "const memory = await openMemory();\nconst bot = memory.agent('pm-bot', { project_id: 'ledger' });\n" +
    blocks.join('\n') + '\nexport { memory, result, messages, answer };\n');
  // the providers' default clients: the key from the environment, the global fetch
  const api = fakeOpenAi([
    () => functionCall('store', { content: 'Kaito Mori maintains the ledger service.' }, 'call_store'),
    () => message('Noted.'),
    () => toolCalls(['recall', { query: 'ledger service' }, 'call_recall']),
    () => answer('Kaito Mori.'),
  ]);
  const saved = { fetch: globalThis.fetch, key: process.env.OPENAI_API_KEY };
  globalThis.fetch = api.fetch;
  process.env.OPENAI_API_KEY = 'test-key';
  try {
    const out = await import(pathToFileURL(file).href);
    assert.equal(out.result.text, 'Noted.');
    assert.equal(out.answer.content, 'Kaito Mori.');
    assert.deepEqual(api.requests.map((r) => new URL(r.url).pathname), ['/v1/responses', '/v1/responses', '/v1/chat/completions', '/v1/chat/completions']);
    const recalled = JSON.parse(out.messages.at(-1).content);
    assert.equal(recalled.messages[0].content, 'Kaito Mori maintains the ledger service.');
    await out.memory.close();
  } finally {
    globalThis.fetch = saved.fetch;
    if (saved.key === undefined) delete process.env.OPENAI_API_KEY; else process.env.OPENAI_API_KEY = saved.key;
  }
});
