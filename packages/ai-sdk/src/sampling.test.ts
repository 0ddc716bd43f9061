import { everythingCommand } from '@toolplane/fixtures';
import { createToolkit, type UpstreamRequest } from '@toolplane/toolkit';
import { runToolkit } from '@toolplane/toolkit/testing';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAiSdkSamplingHandler, type ModelPreferences } from './sampling.js';
import { textStep, toolCallStep } from './testing/model-steps.js';
import { toAiSdkTools } from './tools.js';

const context = () => ({
  namespace: 'test',
  caller: 'c',
  signal: new AbortController().signal,
});

describe('createAiSdkSamplingHandler', () => {
  it("answers a server's sampling/createMessage during an agent's tool call with an AI SDK model", async () => {
    const sampler = new MockLanguageModelV3({
      modelId: 'sampler-1',
      doGenerate: [textStep('a haiku about tests')],
    });
    const toolkit = createToolkit({ upstreamRequests: createAiSdkSamplingHandler(sampler) });
    toolkit.addConnector(everythingCommand(), { namespace: 'everything' });
    const { stop } = await runToolkit(toolkit);
    try {
      const tools = await toAiSdkTools(toolkit, {
        include: { ids: ['everything:trigger-sampling-request'] },
      });
      const agent = new MockLanguageModelV3({
        doGenerate: [
          toolCallStep([
            {
              toolCallId: 's',
              toolName: 'everything__trigger-sampling-request',
              input: { prompt: 'write a haiku', maxTokens: 42 },
            },
          ]),
          textStep('done'),
        ],
      });
      const result = await generateText({
        model: agent,
        tools,
        stopWhen: stepCountIs(3),
        prompt: 'go',
      });
      const call = sampler.doGenerateCalls[0];
      expect(call?.maxOutputTokens).toBe(42);
      expect(call?.temperature).toBe(0.7);
      expect(call?.prompt[0]).toEqual({
        role: 'system',
        content: 'You are a helpful test server.',
      });
      expect(JSON.stringify(call?.prompt[1])).toContain('write a haiku');
      const output = JSON.stringify(result.steps[0]?.toolResults[0]?.output);
      expect(output).toContain('a haiku about tests');
      expect(output).toContain('sampler-1');
      expect(output).toContain('endTurn');
    } finally {
      await stop();
    }
  });

  it('passes images and assistant turns on, caps maxTokens, and lets a chooser pick by hints', async () => {
    const small = new MockLanguageModelV3({ modelId: 'small', doGenerate: [textStep('a cat')] });
    const large = new MockLanguageModelV3({ modelId: 'large', doGenerate: [] });
    const asked: (ModelPreferences | undefined)[] = [];
    const handler = createAiSdkSamplingHandler(
      (preferences) => {
        asked.push(preferences);
        return preferences?.hints?.some((hint) => hint.name === 'small') === true ? small : large;
      },
      { maxTokensCap: 100 },
    );
    const request: UpstreamRequest = {
      method: 'sampling/createMessage',
      params: {
        messages: [
          { role: 'user', content: { type: 'text', text: 'What is this?' } },
          { role: 'assistant', content: { type: 'text', text: 'Show me.' } },
          { role: 'user', content: { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' } },
        ],
        maxTokens: 5000,
        modelPreferences: { hints: [{ name: 'small' }], speedPriority: 1 },
      },
    };
    const answer = await handler.handle(request, context());
    expect(answer).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'a cat' },
      model: 'small',
      stopReason: 'endTurn',
    });
    expect(asked).toEqual([{ hints: [{ name: 'small' }], speedPriority: 1 }]);
    const call = small.doGenerateCalls[0];
    expect(call?.maxOutputTokens).toBe(100);
    expect(call?.prompt.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(call?.prompt[2]).toMatchObject({
      content: [{ type: 'file', mediaType: 'image/png' }],
    });
    expect(large.doGenerateCalls).toHaveLength(0);
  });

  it('refuses elicitation and reports a cancelled or failing model by code', async () => {
    const failing = new MockLanguageModelV3({
      doGenerate: () => Promise.reject(new Error('model down')),
    });
    const handler = createAiSdkSamplingHandler(failing);
    expect(handler.capabilities).toEqual({ sampling: true });
    const elicit: UpstreamRequest = {
      method: 'elicitation/create',
      params: { message: 'name?', requestedSchema: { type: 'object', properties: {} } },
    };
    await expect(handler.handle(elicit, context())).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    const sample: UpstreamRequest = {
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 9 },
    };
    await expect(handler.handle(sample, context())).rejects.toMatchObject({ code: 'execution' });
    const aborted = new AbortController();
    aborted.abort();
    await expect(
      handler.handle(sample, { ...context(), signal: aborted.signal }),
    ).rejects.toMatchObject({ code: 'cancelled' });
  });
});
