/**
 * An OpenAI tool loop over the reference MCP server (`@modelcontextprotocol/server-everything`,
 * a real stdio child): the model gets the server's tools as strict function tools, calls them,
 * and reads their results, an image included. With OPENAI_API_KEY set it talks to the real API
 * (OPENAI_MODEL, default gpt-5-mini); without, to a local mock model, and checks its own output
 * so CI runs it as a test.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { runToolCalls, toOpenAITools } from '@toolplane/openai';
import { createToolkit } from '@toolplane/toolkit';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { startMockModel } from './mock-model.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const live = process.env.OPENAI_API_KEY !== undefined && process.env.OPENAI_API_KEY !== '';

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
    ? 'model: the OpenAI API (OPENAI_API_KEY is set)'
    : `model: scripted, a local mock of the OpenAI API on ${mock.url} (set OPENAI_API_KEY for the real one)`,
);
try {
  await toolkit.ready();
  const openai = new OpenAI(mock === undefined ? {} : { apiKey: 'offline', baseURL: mock.url });
  const model = process.env.OPENAI_MODEL ?? 'gpt-5-mini';
  const tools = await toOpenAITools(toolkit, {
    include: { ids: ['everything:get-sum', 'everything:get-tiny-image'] },
  });
  console.log(
    `tools: ${tools.map((t) => `${t.function.name} (strict: ${String(t.function.strict)})`).join(', ')}`,
  );
  const messages: ChatCompletionMessageParam[] = [
    { role: 'user', content: 'Add 2 and 40 with a tool, then show me the tiny image.' },
  ];
  for (let step = 0; step < 5; step++) {
    const completion = await openai.chat.completions.create({ model, messages, tools });
    const message = completion.choices[0]?.message;
    assert.ok(message !== undefined);
    messages.push(message);
    if (message.tool_calls === undefined || message.tool_calls.length === 0) break;
    console.log(
      `step ${String(step + 1)}: ${message.tool_calls.map((c) => (c.type === 'function' ? c.function.name : c.type)).join(', ')}`,
    );
    messages.push(...(await runToolCalls(toolkit, completion, { tools, timeoutMs: 30_000 })));
  }
  const answer = messages.at(-1);
  console.log(`answer: ${JSON.stringify(answer?.content)}`);
  if (!live) {
    assert.equal(
      answer?.content,
      'The tool said: The sum of 2 and 40 is 42. I was shown 1 image(s).',
    );
    console.log('openai-agent: all checks passed');
  }
} finally {
  await mock?.close();
  controller.abort();
  await running;
}
