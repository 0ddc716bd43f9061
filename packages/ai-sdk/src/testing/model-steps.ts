import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

// Scripted model turns for MockLanguageModelV3, in the LanguageModelV3 wire shapes.

type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
type StreamResult = Awaited<ReturnType<MockLanguageModelV3['doStream']>>;
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;
type FinishReason = 'stop' | 'tool-calls' | 'length';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** One model turn that calls tools. */
export function toolCallStep(
  calls: readonly { toolCallId: string; toolName: string; input: unknown }[],
): GenerateResult {
  return {
    content: calls.map((call) => ({
      type: 'tool-call' as const,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: JSON.stringify(call.input),
    })),
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage,
    warnings: [],
  };
}

/** One model turn that answers with text. */
export function textStep(text: string): GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: undefined },
    usage,
    warnings: [],
  };
}

/** The `finish` part of a streamed turn. */
export function finish(reason: FinishReason): StreamPart {
  return { type: 'finish', finishReason: { unified: reason, raw: undefined }, usage };
}

/** One streamed model turn. */
export function streamStep(parts: readonly StreamPart[]): StreamResult {
  return {
    stream: simulateReadableStream({
      chunks: [{ type: 'stream-start', warnings: [] }, ...parts],
      initialDelayInMs: null,
      chunkDelayInMs: null,
    }),
  };
}

export { MockLanguageModelV3 };
