// tools({ format }) typed as each vendor's SDK types a tool definition: a mismatch in a
// field's name or shape fails `tsc`.
import type OpenAI from 'openai';
import type Anthropic from '@anthropic-ai/sdk';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { openMemory } from 'associative-memory';

const memory = await openMemory();
const openai: OpenAI.Chat.Completions.ChatCompletionTool[] = memory.tools({ format: 'openai' });
const anthropic: Anthropic.Messages.Tool[] = memory.tools({ format: 'anthropic' });
const byDefault: Anthropic.Messages.Tool[] = memory.tools();
const mcp: McpTool[] = memory.tools({ format: 'mcp' });
const bot = memory.agent('bot');
const scoped: OpenAI.Chat.Completions.ChatCompletionTool[] = bot.tools({ format: 'openai' });
// @ts-expect-error an OpenAI definition is not an Anthropic one
const wrong: Anthropic.Messages.Tool[] = memory.tools({ format: 'openai' });
export { openai, anthropic, byDefault, mcp, scoped, wrong };
