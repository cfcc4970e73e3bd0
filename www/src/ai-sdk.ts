// `associative-memory/ai-sdk`: the memory's tools as a Vercel AI SDK `ToolSet`, for
// `generateText` / `streamText` with any provider. The schemas are the generated ones
// (`memory.tools({ format: 'mcp' })`, which carries the annotations), in OpenAI's strict subset where they fit it (`strictSchema`, which
// `tools({ format: 'openai' })` uses too), so a provider with strict tool calls can use it;
// the engine checks every call's arguments (the SDK is given no validator), and its errors
// reach the model with their code, message and field. Tools that destroy or replace what
// is stored (annotations.destructiveHint) wait for the user's approval (`needsApproval`).

import { jsonSchema, tool, type JSONSchema7, type ToolSet } from 'ai';
import { memoryError, toolErrorText, type ErrorCode } from './errors.js';
import { strictSchema, type ToolMemory, type ToolSelection } from './tools.js';

export type { ToolMemory, ToolSelection };

/** Options of `aiSdkTools`: which tools (`only`, `exclude`, `readOnly`), and whether strict. */
export interface AiSdkToolsOptions extends ToolSelection {
  /**
   * Offer each tool whose arguments fit OpenAI's strict subset with `strict: true` and that
   * schema: every argument required, the optional ones nullable (the engine reads `null` as
   * absent). Tools with free-form metadata (store, update_memory) keep their schema and
   * `strict: false`. Default `true`; `false` gives every tool its schema as generated and no
   * `strict` flag (for providers whose models would rather omit arguments than send `null`).
   */
  strict?: boolean;
}

/**
 * The tools of `memory` (an `AssociativeMemory`, or an agent handle: `memory.agent('a')`) as
 * an AI SDK `ToolSet`. Each tool's `execute` is `memory.callTool(name, input, selection)`.
 * A refused call throws an `AssociativeMemoryError` (same `code` and `field`) whose message
 * is the JSON the model reads in its tool-error result: `{"error": code, "message", "field"}`.
 * Destructive tools have `needsApproval: true`: the SDK returns a `tool-approval-request`
 * instead of running them, and runs them once a `tool-approval-response` approves.
 *
 * ```ts
 * const { text } = await generateText({ model, tools: aiSdkTools(memory.agent('me')), stopWhen: stepCountIs(5), prompt });
 * ```
 */
export function aiSdkTools(memory: ToolMemory, options: AiSdkToolsOptions = {}): ToolSet {
  const { strict = true, ...selection } = options;
  const tools: ToolSet = {};
  for (const { name, description, inputSchema, annotations } of memory.tools({ ...selection, format: 'mcp' })) {
    const closed = strict ? strictSchema(inputSchema) : null;
    tools[name] = tool<Record<string, unknown>, unknown>({
      description,
      inputSchema: jsonSchema<Record<string, unknown>>((closed ?? inputSchema) as JSONSchema7),
      ...(strict ? { strict: closed !== null } : {}),
      needsApproval: annotations.destructiveHint,
      execute: async (input) => {
        try {
          return await memory.callTool(name, input, selection);
        } catch (error) {
          const text = toolErrorText(error);
          if (text === undefined) throw error;
          // The SDK hands the model only an error's message: make it the whole error.
          const { code, field } = error as { code: ErrorCode; field?: string };
          throw memoryError(code, text, field);
        }
      },
    });
  }
  return tools;
}
