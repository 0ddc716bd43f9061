// What the OpenAI tests share: the provider harness with the real `openai` client, and the
// builders of the scripted model's Chat Completions replies.
import OpenAI from 'openai';
import { useProviderHarness, type ProviderHarness } from '@toolplane/test-support/provider-harness';
import { checkOpenAIRequest } from './wire-check.js';

/** The fixture toolkit and a real OpenAI client on a scripted API under `/v1`, per test file. */
export function useOpenAIHarness(): ProviderHarness<OpenAI> {
  return useProviderHarness(
    '/v1',
    checkOpenAIRequest,
    (url) => new OpenAI({ apiKey: 'test', baseURL: url, maxRetries: 0 }),
  );
}

/** A scripted chat completion whose one choice is `message`, finishing with tool calls. */
export const completion = (message: Record<string, unknown>) => () => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'mock',
  choices: [{ index: 0, finish_reason: 'tool_calls', logprobs: null, message }],
});

/** A function tool call; `args` as the raw arguments text, or a value written as JSON. */
export const toolCall = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
});
