/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- @google/genai declares
   its wire types as classes, yet takes plain objects (its own docs write them as literals). */
import {
  exposedOf,
  outcomeText,
  runCalls,
  type CallOutcome,
  type ExposedTools,
  type RunCallsOptions,
  type ToolCallRequest,
  type ToolSource,
} from '@toolplane/adapter-kit';
import type { FunctionCall, FunctionResponsePart, Part } from '@google/genai';
import { toGeminiTools, type GeminiToolsOptions } from './tools.js';

/** Options of {@link runFunctionCalls}. */
export interface RunFunctionCallsOptions extends RunCallsOptions, GeminiToolsOptions {
  /**
   * The list {@link toGeminiTools} made for this request: names map back through it. Without it
   * the source is listed again with the same filter and naming.
   */
  readonly tools?: readonly object[];
}

/** A `generateContent` response (its `functionCalls`), or the function calls themselves. */
export type GeminiTurn =
  { readonly functionCalls?: readonly FunctionCall[] | undefined } | readonly FunctionCall[];

/**
 * Runs every function call of a Gemini response through toolplane (in parallel, at most
 * `concurrency` at once, each with its own timeout and the caller's signal) and returns the
 * `functionResponse` parts to send back, in order, as the next `user` turn: `{ output }` with the
 * tool's structured result or text, images as inline data parts, and `{ error }` for a failed
 * tool, malformed arguments, an unknown name or a timeout. Nothing but cancellation is thrown.
 *
 * @throws {ToolError} `cancelled` when `signal` aborts.
 */
export async function runFunctionCalls(
  source: ToolSource,
  response: GeminiTurn,
  options: RunFunctionCallsOptions = {},
): Promise<Part[]> {
  const functionCalls: readonly FunctionCall[] = Array.isArray(response)
    ? response
    : ((response as { functionCalls?: readonly FunctionCall[] }).functionCalls ?? []);
  const calls: ToolCallRequest[] = functionCalls.map((call, i) => ({
    // Gemini's API may leave the ID out; the order and the name then tie call and response.
    callId: call.id ?? String(i),
    name: call.name ?? '',
    arguments: call.args,
  }));
  if (calls.length === 0) return [];
  const exposed = await exposedFor(source, options);
  const outcomes = await runCalls(source, calls, exposed.resolve, options);
  return outcomes.map((outcome, i) => toPart(outcome, functionCalls[i]?.id));
}

async function exposedFor(
  source: ToolSource,
  options: RunFunctionCallsOptions,
): Promise<ExposedTools> {
  const bound = exposedOf(options.tools);
  if (bound !== undefined) return bound;
  return exposedOf(await toGeminiTools(source, options)) as ExposedTools;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toPart(outcome: CallOutcome, id: string | undefined): Part {
  const text = outcomeText(outcome);
  const images: FunctionResponsePart[] = outcome.parts.flatMap((part) =>
    part.type === 'image' ? [{ inlineData: { mimeType: part.mimeType, data: part.data } }] : [],
  );
  const response: Record<string, unknown> = outcome.isError
    ? {
        error:
          outcome.code === undefined || text.startsWith(`${outcome.code}:`)
            ? text
            : `${outcome.code}: ${text}`,
      }
    : { output: isRecord(outcome.structured) ? outcome.structured : text };
  return {
    functionResponse: {
      ...(id === undefined ? {} : { id }),
      name: outcome.name,
      response,
      ...(images.length === 0 ? {} : { parts: images }),
    },
  };
}
