/**
 * Prompt files run as agents: a toolkit with the reference MCP server
 * (`@modelcontextprotocol/server-everything`) as a real stdio child, the markdown prompts of
 * `prompts/` (the seed's own `summarize.md` as written, and `add-numbers.md`, which may call one
 * tool), and `createAiSdkDelegate` running each prompt with an AI SDK model and the toolkit's
 * tools. Offline (the default, and in CI) the model is a scripted OpenAI-compatible server on
 * 127.0.0.1 that this example starts; with `OPENAI_API_KEY` set it is OpenAI itself. It checks its
 * own output and exits non-zero on a mismatch, so CI runs it as a test.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpenAI } from '@ai-sdk/openai';
import { createAiSdkDelegate, parseAgentPrompt, type AgentSettings } from '@toolplane/ai-sdk';
import { createToolkit, type Prompt } from '@toolplane/toolkit';
import { startScriptedOpenAI, textOf } from './scripted-openai.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const promptDir = fileURLToPath(new URL('../prompts', import.meta.url));
// For prompts that name no model (the seed's summarize.md).
const DEFAULT_MODEL = 'gpt-5-mini';

const apiKey = process.env.OPENAI_API_KEY ?? '';
const live = apiKey !== '';
const scripted = live ? undefined : await startScriptedOpenAI();
const openai = createOpenAI(
  scripted === undefined ? { apiKey } : { baseURL: scripted.url, apiKey: 'offline' },
);
console.log(live ? 'model: OpenAI (OPENAI_API_KEY is set)' : `model: scripted, ${scripted?.url}`);

// Every prompt file of prompts/, with the agent's own front-matter keys (max_steps, ...).
const prompts: Prompt[] = [];
const settings = new Map<string, AgentSettings>();
for (const file of (await readdir(promptDir)).filter((name) => name.endsWith('.md')).sort()) {
  const path = join(promptDir, file);
  const agent = parseAgentPrompt(await readFile(path, 'utf8'), { filename: path });
  prompts.push(agent.prompt);
  settings.set(agent.prompt.name, agent.settings);
}
console.log(`prompts: ${prompts.map((prompt) => prompt.name).join(', ')}`);

const toolCalls: string[] = [];
const toolkit = createToolkit({
  prompts,
  delegate: createAiSdkDelegate({
    source: () => toolkit,
    chooseModel: ({ model, provider }) =>
      provider === undefined || provider === 'openai'
        ? openai.chat(model ?? DEFAULT_MODEL)
        : undefined,
    settings: (prompt) => settings.get(prompt.name),
    maxSteps: 6,
    onStepFinish: (step) => {
      for (const call of step.toolCalls) toolCalls.push(call.toolName);
    },
  }),
});
toolkit.addConnector(
  { command: process.execPath, args: [everything, 'stdio'] },
  {
    namespace: 'everything',
  },
);

const controller = new AbortController();
const running = toolkit.run({ signal: controller.signal });
try {
  await toolkit.ready();

  // 1. An agent with one tool: the model calls everything:get-sum, then answers.
  const sum = await toolkit.call('add-numbers', { a: 2, b: 3 });
  console.log(`add-numbers: ${sum?.text ?? ''}`);
  assert.match(sum?.text ?? '', /\b5\b/);
  assert.deepEqual(toolCalls, ['everything__get-sum']);

  // 2. The seed's prompt file as written: a string input bound to {{ . }}.
  const text =
    'Cats sleep for most of the day. They hunt at dawn and dusk. Their whiskers sense the air. ' +
    'Kittens open their eyes after a week.';
  const summary = await toolkit.call('summarize', { input: text });
  console.log(`summarize: ${summary?.text ?? ''}`);
  assert.ok((summary?.text ?? '').trim() !== '');

  if (scripted !== undefined) {
    // What the model was sent: only the prompt's own tool, and the result of its call.
    assert.equal(scripted.requests.length, 3);
    const [first, second, third] = scripted.requests;
    assert.ok(first !== undefined && second !== undefined && third !== undefined);
    assert.deepEqual(
      first.tools?.map((tool) => tool.function.name),
      ['everything__get-sum'],
    );
    assert.equal(
      textOf(first.messages.at(-1)),
      'Add 2 and 3. Use the get-sum tool, then answer in one sentence that gives the sum.\n',
    );
    assert.match(textOf(second.messages.at(-1)), /The sum of 2 and 3 is 5/);
    assert.equal(sum?.text, 'The tool says: The sum of 2 and 3 is 5.');
    // The seed's template rendered with the string as its root value.
    assert.equal(
      textOf(third.messages.at(-1)),
      `Summarize the following text in three sentences:\n\n${text}\n`,
    );
    assert.equal(
      summary?.text,
      'Cats sleep for most of the day. They hunt at dawn and dusk. Their whiskers sense the air.',
    );
  }
  console.log('ai-sdk-agent: all checks passed');
} finally {
  controller.abort();
  await running;
  await scripted?.close();
}
