// What the Gemini tests share: the provider harness with the real `@google/genai` client, and
// the builders of the scripted model's replies.
import { GoogleGenAI } from '@google/genai';
import { useProviderHarness, type ProviderHarness } from '@toolplane/test-support/provider-harness';
import { checkGeminiRequest } from './wire-check.js';

/** The fixture toolkit and a real Gemini client on a scripted generateContent, per test file. */
export function useGeminiHarness(): ProviderHarness<GoogleGenAI> {
  return useProviderHarness(
    '',
    checkGeminiRequest,
    (url) => new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: url } }),
  );
}

/** A scripted candidate with `parts`, finishing for `finishReason` (default `STOP`). */
export const reply =
  (parts: unknown[], finishReason = 'STOP') =>
  () => ({
    candidates: [{ index: 0, content: { role: 'model', parts }, finishReason }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
  });

/** A `functionCall` part of a scripted reply; `id` left out when not given. */
export const call = (name: string, args: Record<string, unknown>, id?: string) => ({
  functionCall: { name, args, ...(id === undefined ? {} : { id }) },
});
