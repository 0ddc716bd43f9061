/**
 * An Anthropic Messages API tool loop over the reference MCP server
 * (`@modelcontextprotocol/server-everything`, a real stdio child): the model gets the server's
 * tools, uses them, and reads their `tool_result` blocks, an image included. With
 * ANTHROPIC_API_KEY set it talks to the real API (ANTHROPIC_MODEL, default claude-sonnet-5-5);
 * without, to a local mock model, and checks its own output so CI runs it as a test.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { runToolUses, toAnthropicTools } from '@toolplane/anthropic';
import { createToolkit } from '@toolplane/toolkit';
import { startMockModel } from './mock-model.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const live = process.env.ANTHROPIC_API_KEY !== undefined && process.env.ANTHROPIC_API_KEY !== '';

const toolkit = createToolkit();
toolkit.addConnector(
  { command: process.execPath, args: [everything, 'stdio'] },
  { namespace: 'everything' },
);
const controller = new AbortController();
const running = toolkit.run({ signal: controller.signal });
const mock = live ? undefined : await startMockModel();
console.log(
  mock === undefined
    ? 'model: the Anthropic API (ANTHROPIC_API_KEY is set)'
    : `model: scripted, a local mock of the Anthropic API on ${mock.url} (set ANTHROPIC_API_KEY for the real one)`,
);
try {
  await toolkit.ready();
  const anthropic = new Anthropic(
    mock === undefined ? {} : { apiKey: 'offline', baseURL: mock.url },
  );
  const model = process.env.ANTHROPIC_MODEL ?? 'claude-sonnet-5-5';
  const tools = await toAnthropicTools(toolkit, {
    include: { ids: ['everything:get-sum', 'everything:get-tiny-image'] },
  });
  console.log(`tools: ${tools.map((t) => t.name).join(', ')}`);
  const messages: MessageParam[] = [
    { role: 'user', content: 'Add 2 and 40 with a tool, then show me the tiny image.' },
  ];
  let answer = '';
  for (let step = 0; step < 5; step++) {
    const reply = await anthropic.messages.create({ model, max_tokens: 1024, messages, tools });
    messages.push({ role: 'assistant', content: reply.content });
    answer = reply.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    if (reply.stop_reason !== 'tool_use') break;
    const results = await runToolUses(toolkit, reply, { tools, timeoutMs: 30_000 });
    console.log(`step ${String(step + 1)}: ${String(results.length)} tool results`);
    messages.push({ role: 'user', content: results });
  }
  console.log(`answer: ${answer}`);
  if (!live) {
    assert.equal(answer, 'The tool said: The sum of 2 and 40 is 42. I was shown 1 image(s).');
    console.log('anthropic-agent: all checks passed');
  }
} finally {
  await mock?.close();
  controller.abort();
  await running;
}
