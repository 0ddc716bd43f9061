// What the Anthropic tests share: the provider harness with the real `@anthropic-ai/sdk` client,
// and the builders of the scripted model's replies.
import Anthropic from '@anthropic-ai/sdk';
import { useProviderHarness, type ProviderHarness } from '@toolplane/test-support/provider-harness';
import { checkAnthropicRequest } from './wire-check.js';

/** The fixture toolkit and a real Anthropic client on a scripted Messages API, per test file. */
export function useAnthropicHarness(): ProviderHarness<Anthropic> {
  return useProviderHarness(
    '',
    checkAnthropicRequest,
    (url) => new Anthropic({ apiKey: 'test', baseURL: url, maxRetries: 0 }),
  );
}

/** A scripted assistant message with `content`, stopping for `stop` (default `tool_use`). */
export const message =
  (content: unknown[], stop = 'tool_use') =>
  () => ({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'mock',
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  });

/** A `tool_use` block of a scripted message. */
export const use = (id: string, name: string, input: unknown) => ({
  type: 'tool_use',
  id,
  name,
  input,
});
