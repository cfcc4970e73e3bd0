// `associative-memory/langchain`: the memory's tools as LangChain.js tools, for
// `model.bindTools(tools)` and the agents that run them. Their schemas are the generated
// ones (`memory.tools()`), and the engine checks every call: LangChain validates a plain
// JSON Schema itself, and its refusal ("did not match expected schema") names no argument,
// so each schema is handed over as a Standard JSON Schema whose `validate` passes the input
// through, and whose JSON Schema is what the model is sent. A refused call becomes the
// call's `ToolMessage` (status `'error'`) holding the engine's error as the model reads it:
// `{"error": code, "message", "field"}`.

import { ToolMessage } from '@langchain/core/messages';
import { DynamicStructuredTool, type ToolRunnableConfig } from '@langchain/core/tools';
import { toolErrorText } from './errors.js';
import type { JsonSchema, ToolMemory, ToolSelection } from './tools.js';

export type { ToolMemory, ToolSelection };

/** A Standard JSON Schema (standardschema.dev) that is `schema` and accepts every input: the engine checks. */
function checkedByTheEngine(schema: JsonSchema) {
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'associative-memory',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}

/**
 * The tools of `memory` (an `AssociativeMemory`, or an agent handle: `memory.agent('a')`,
 * whose tools take no `agent_id`) as LangChain tools, the selection's only (`only`,
 * `exclude`, `readOnly`). A tool run for a model's tool call answers with a `ToolMessage`:
 * the response as JSON, or, when the engine refuses the call, its error as JSON with status
 * `'error'`. Invoked with plain arguments, a tool returns the response object and throws
 * the `AssociativeMemoryError`.
 *
 * ```ts
 * const model = new ChatOpenAI({ model: 'gpt-5-mini' }).bindTools(langchainTools(memory.agent('me')));
 * ```
 */
export function langchainTools(memory: ToolMemory, selection: ToolSelection = {}): DynamicStructuredTool[] {
  return memory.tools({ ...selection, format: 'mcp' }).map(({ name, description, inputSchema }) => new DynamicStructuredTool({
    name,
    description,
    // Typed as a JSON Schema: the tool's types name Zod and JSON Schema only, though every
    // reader of a tool's schema (`toJsonSchema`, which `bindTools` uses) takes a Standard one.
    schema: checkedByTheEngine(inputSchema) as JsonSchema,
    func: async (input: unknown, _run, config?: ToolRunnableConfig) => {
      try {
        return await memory.callTool(name, input, selection);
      } catch (error) {
        const text = toolErrorText(error);
        const id = config?.toolCall?.id;
        if (text === undefined || id === undefined) throw error;
        return new ToolMessage({ content: text, tool_call_id: id, name, status: 'error' });
      }
    },
  }));
}
