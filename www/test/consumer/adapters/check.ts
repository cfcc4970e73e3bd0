// The adapters typed as their libraries type tools: a ToolSet `generateText` takes, tools
// `ChatOpenAI.bindTools` takes; from a memory or an agent handle, with a selection. A
// mismatch fails `tsc`; lines marked @ts-expect-error must stay errors.
import { generateText, type ToolSet } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { openMemory } from 'associative-memory';
import { aiSdkTools, type AiSdkToolsOptions } from 'associative-memory/ai-sdk';
import { langchainTools } from 'associative-memory/langchain';

const memory = await openMemory();
const bot = memory.agent('bot', { project_id: 'p' });
const options: AiSdkToolsOptions = { readOnly: true, strict: false };
const toolSet: ToolSet = aiSdkTools(memory, options);
await generateText({ model: createOpenAI({ apiKey: 'k' })('gpt-5-mini'), tools: aiSdkTools(bot, { only: ['recall', 'store'] }), prompt: 'p' });
const lcTools: StructuredToolInterface[] = langchainTools(bot, { exclude: ['delete_agent_data'] });
const bound = new ChatOpenAI({ model: 'gpt-4.1-mini' }).bindTools(langchainTools(memory, { readOnly: true }));
// @ts-expect-error a selection names tools
aiSdkTools(memory, { only: ['forget'] });
// @ts-expect-error a selection names tools
langchainTools(bot, { exclude: ['forget'] });
// @ts-expect-error strict is a boolean
aiSdkTools(memory, { strict: 'yes' });
// @ts-expect-error an adapter takes a memory, not its tool list
aiSdkTools(memory.tools());
export { toolSet, lcTools, bound };
