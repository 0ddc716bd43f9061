import { shownValue } from '@toolplane/toolmodel/text';
/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- @google/genai declares
   its wire types as classes, yet takes plain objects (its own docs write them as literals). */
import {
  acceptedPart,
  checkAdapterCall,
  EXPOSE_OPTION_KEYS,
  exposedOf,
  joinOptionKeys,
  runCalls,
  RUN_CALLS_OPTION_KEYS,
  type CallOutcome,
  type ExposedTools,
  type RunCallsOptions,
  type ToolCallRequest,
  type ToolSource,
} from '@toolplane/adapter-kit';
import type { FunctionCall, FunctionResponsePart, Part } from '@google/genai';
import { isPlainObject, optionKeys, ToolError } from '@toolplane/toolmodel';
import { geminiTools, type GeminiToolsOptions } from './tools.js';

/** Options of {@link runFunctionCalls}. */
export interface RunFunctionCallsOptions
  extends Omit<RunCallsOptions, 'readsStructured'>, GeminiToolsOptions {
  /**
   * The list {@link toGeminiTools} made for this request: names map back through it. Without it
   * the source is listed again with the same filter and naming.
   */
  readonly tools?: readonly object[];
}

const RUN_OPTION_KEYS = joinOptionKeys(
  RUN_CALLS_OPTION_KEYS.filter((key) => key !== 'readsStructured'),
  EXPOSE_OPTION_KEYS,
  optionKeys<Omit<RunFunctionCallsOptions, keyof RunCallsOptions | keyof GeminiToolsOptions>>({
    tools: true,
  }),
);

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
 * @throws {ToolError} `invalid_argument` for a response that is none, an option it does not know,
 * or one {@link toGeminiTools} or the turn's bounds refuse; `cancelled` when `signal` aborts.
 */
export async function runFunctionCalls(
  source: ToolSource,
  response: GeminiTurn,
  options: RunFunctionCallsOptions = {},
): Promise<Part[]> {
  checkAdapterCall(source, options, RUN_OPTION_KEYS, 'runFunctionCalls');
  // From JavaScript, a reply that failed may come as undefined or null.
  const reply: unknown = response;
  const given: unknown = Array.isArray(reply)
    ? reply
    : typeof reply === 'object' && reply !== null
      ? ((reply as { functionCalls?: unknown }).functionCalls ?? [])
      : undefined;
  if (!Array.isArray(given) || !given.every((call) => isPlainObject(call))) {
    throw new ToolError(
      'invalid_argument',
      `runFunctionCalls takes a generateContent response ({ functionCalls }) or its function calls, got ${shownValue(response)}`,
    );
  }
  const functionCalls = given as readonly FunctionCall[];
  if (functionCalls.length === 0) return [];
  const calls = new Array<ToolCallRequest>(functionCalls.length);
  for (let i = 0; i < functionCalls.length; i++) {
    const call = functionCalls[i] as FunctionCall;
    // Gemini's API may leave the ID out; the order and the name then tie call and response.
    calls[i] = { callId: call.id ?? String(i), name: call.name ?? '', arguments: call.args };
  }
  const exposed = exposedOf(options.tools) ?? listExposed(source, options);
  // Gemini reads structured content as the output: the bounds count and cut it.
  const outcomes = await runCalls(source, calls, exposed, { ...options, readsStructured: true });
  const parts = new Array<Part>(outcomes.length);
  for (let i = 0; i < outcomes.length; i++) {
    parts[i] = toPart(outcomes[i] as CallOutcome, functionCalls[i]?.id);
  }
  return parts;
}

/** The image types Gemini takes as inline data; one of another type fails the request. */
const IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/heic',
  'image/heif',
]);

function toPart(outcome: CallOutcome, id: string | undefined): Part {
  // The text parts joined by newlines, and the images, in one pass.
  let text: string | undefined;
  let images: FunctionResponsePart[] | undefined;
  for (const original of outcome.parts) {
    const part = acceptedPart(original, IMAGE_TYPES, 'Gemini');
    if (part.type === 'text') text = text === undefined ? part.text : `${text}\n${part.text}`;
    else (images ??= []).push({ inlineData: { mimeType: part.mimeType, data: part.data } });
  }
  text ??= '';
  const response: Record<string, unknown> = outcome.isError
    ? {
        error:
          outcome.code === undefined || text.startsWith(`${outcome.code}:`)
            ? text
            : `${outcome.code}: ${text}`,
      }
    : { output: keptWhole(outcome) ? outcome.structured : text };
  const functionResponse: NonNullable<Part['functionResponse']> = { name: outcome.name, response };
  if (id !== undefined) functionResponse.id = id;
  if (images !== undefined) functionResponse.parts = images;
  return { functionResponse };
}

/**
 * Whether `outcome`'s structured content is an object the bounds kept whole: its first part is
 * the object's JSON text (`readsStructured`), cut with a note when it did not fit. A cut text
 * ends with the note's `]`, never an object's `}`: only a text within the bound is compared,
 * so a result far past it is not written out as JSON again to be told it was cut.
 */
function keptWhole(outcome: CallOutcome): boolean {
  const { structured } = outcome;
  if (!isPlainObject(structured)) return false;
  const first = outcome.parts[0];
  return (
    first?.type === 'text' && first.text.endsWith('}') && first.text === JSON.stringify(structured)
  );
}

/** The tools exposed when no list made by this package is passed: the source, listed again. */
function listExposed(source: ToolSource, options: RunFunctionCallsOptions): ExposedTools {
  return exposedOf(geminiTools(source, options)) as ExposedTools;
}
