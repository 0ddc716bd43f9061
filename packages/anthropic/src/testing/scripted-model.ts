// What the Anthropic tests share: the provider harness with the real `@anthropic-ai/sdk` client,
// and the builders of the scripted model's replies.
import Anthropic from '@anthropic-ai/sdk';
import { streamed } from '@toolplane/test-support/mock-server';
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

/**
 * A scripted reply streamed as the Messages API streams it: one `tool_use` block per entry, its
 * input sent as the JSON text `json` (cut short, if the test likes), stopping for `stop`.
 */
export const streamedUses =
  (uses: readonly { id: string; name: string; json: string }[], stop = 'tool_use') =>
  () =>
    streamed([
      {
        type: 'message_start',
        message: { ...message([], stop)(), content: [], stop_reason: null },
      },
      ...uses.flatMap(({ id, name, json }, index) => [
        {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id, name, input: {} },
        },
        {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: json },
        },
        { type: 'content_block_stop', index },
      ]),
      {
        type: 'message_delta',
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: 1 },
      },
      { type: 'message_stop' },
    ]);
