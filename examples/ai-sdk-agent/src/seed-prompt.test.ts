import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createOpenAI } from '@ai-sdk/openai';
import { createAiSdkDelegate } from '@toolplane/ai-sdk';
import { createToolkit, parsePrompt, type Toolkit } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAI, textOf, type ScriptedOpenAI } from './scripted-openai.js';

const seedFile = fileURLToPath(new URL('../prompts/summarize.md', import.meta.url));
// In the seed's full form: model, provider, system_prompt, an object input, `format` for the
// output schema, and a Go-template body with if/else, with and range.
const translateFile = fileURLToPath(new URL('../prompts/translate.md', import.meta.url));

let scripted: ScriptedOpenAI;
let toolkit: Toolkit;
beforeAll(async () => {
  scripted = await startScriptedOpenAI();
  const openai = createOpenAI({ baseURL: scripted.url, apiKey: 'offline' });
  // The toolkit's own parser, with nothing of the agent's: the seed's file as it was written.
  const prompts = await Promise.all(
    [seedFile, translateFile].map(async (file) =>
      parsePrompt(await readFile(file, 'utf8'), { filename: file }),
    ),
  );
  toolkit = createToolkit({
    prompts,
    delegate: createAiSdkDelegate({
      source: () => toolkit,
      chooseModel: ({ model }) => openai.chat(model ?? 'gpt-5-mini'),
      maxRetries: 0,
    }),
  });
});
afterAll(async () => {
  await toolkit.close();
  await scripted.close();
});

describe('the seed’s summarize prompt through the agent delegate', () => {
  it('loads from disk as written and renders its string input as the root value', async () => {
    const text = 'One. Two! Three? Four.';
    const before = scripted.requests.length;
    const answer = await toolkit.call('summarize', { input: text });
    expect(answer?.text).toBe('One. Two! Three?');
    const request = scripted.requests[before];
    expect(request?.model).toBe('gpt-5-mini');
    expect(textOf(request?.messages.at(-1))).toBe(
      `Summarize the following text in three sentences:\n\n${text}\n`,
    );
  });

  it('runs a prompt in the seed’s full form: system prompt, Go template, output schema', async () => {
    const before = scripted.requests.length;
    const answer = await toolkit.call('translate', {
      text: 'Le chat dort.',
      target_language: 'English',
      source_language: 'French',
      glossary: ['chat', 'dort'],
    });
    expect(answer?.structured).toEqual({ translation: '[English] Le chat dort.' });
    const request = scripted.requests[before];
    expect(textOf(request?.messages[0])).toBe(
      'You are a careful translator. Keep names, numbers and formatting as they are.\n',
    );
    expect(textOf(request?.messages.at(-1))).toBe(
      'Translate the text below into English.\nIt is written in French.\n' +
        'Keep these terms as they are: chat, dort.\n\nLe chat dort.\n',
    );
    const unknown = await toolkit.call('translate', { text: 'Hallo.', target_language: 'Dutch' });
    expect(unknown?.structured).toEqual({ translation: '[Dutch] Hallo.' });
    expect(textOf(scripted.requests.at(-1)?.messages.at(-1))).toBe(
      'Translate the text below into Dutch.\nWork out its language first.\n\nHallo.\n',
    );
  });

  it('refuses input without its one argument before the model is asked', async () => {
    const before = scripted.requests.length;
    await expect(toolkit.call('summarize', {})).rejects.toMatchObject({ code: 'validation' });
    await expect(toolkit.call('summarize', { text: 'wrong name' })).rejects.toMatchObject({
      code: 'validation',
    });
    expect(scripted.requests.length).toBe(before);
  });

  it('fails with cancelled when the call is aborted before it starts', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      toolkit.call('summarize', { input: 'x.' }, { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('cancels the model request in flight when the call is aborted: the server sees it go', async () => {
    const controller = new AbortController();
    const hanging = scripted.hanging();
    const call = toolkit.call('summarize', { input: '[hang]' }, { signal: controller.signal });
    const { closed } = await hanging;
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
    await closed;
  });
});

describe('the scripted server', () => {
  const post = (body: string) =>
    fetch(`${scripted.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

  it('refuses what a provider would: malformed JSON, bad tool names and schemas, unknown tool-call ids', async () => {
    expect((await post('{not json')).status).toBe(400);
    const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    const badName = {
      ...base,
      tools: [{ type: 'function', function: { name: 'a:b', parameters: { type: 'object' } } }],
    };
    expect((await post(JSON.stringify(badName))).status).toBe(400);
    const badSchema = {
      ...base,
      tools: [{ type: 'function', function: { name: 'ok', parameters: { type: 'string' } } }],
    };
    expect((await post(JSON.stringify(badSchema))).status).toBe(400);
    const orphan = {
      model: 'm',
      messages: [{ role: 'tool', tool_call_id: 'nope', content: '1' }],
    };
    expect((await post(JSON.stringify(orphan))).status).toBe(400);
    expect((await post(JSON.stringify(base))).status).toBe(200);
  });

  it('refuses a body over its size limit', async () => {
    const huge = JSON.stringify({
      model: 'm',
      messages: [{ role: 'user', content: 'x'.repeat(9 * 1024 * 1024) }],
    });
    expect((await post(huge)).status).toBe(413);
  });
});
