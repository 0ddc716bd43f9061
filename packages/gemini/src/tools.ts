import {
  bindExposed,
  checkAdapterCall,
  EXPOSE_OPTION_KEYS,
  exposeTools,
  type ExposeOptions,
  type ToolSource,
} from '@toolplane/adapter-kit';
import type { FunctionDeclaration, Tool } from '@google/genai';

/** Options of {@link toGeminiTools}. */
export type GeminiToolsOptions = ExposeOptions;

/**
 * The tools of a toolkit, or of a runner with its index, as one Gemini `Tool` of function
 * declarations, for `config.tools`: names Gemini accepts (`namespace__name`, shortened with a
 * stable hash where needed, `_` first where a name would start with a digit or `-`), each
 * description, and each schema written in Gemini's `Schema` subset (OpenAPI 3.0: one upper-case
 * type, `nullable`, string enums, no `$ref`); keywords it lacks are moved into the description.
 * Pass the same array to {@link runFunctionCalls} as `tools` so names map back without listing
 * again.
 *
 * @throws {ToolError} `invalid_argument` for an option it does not know (or a selector, a
 * naming key, a `mode`); `cancelled` when `signal` is aborted; `conflict` when Gemini's name rule
 * makes two names one; the index's codes for a failed listing.
 */
export function toGeminiTools(
  source: ToolSource,
  options: GeminiToolsOptions = {},
): Promise<Tool[]> {
  return Promise.resolve().then(() => {
    checkAdapterCall(source, options, EXPOSE_OPTION_KEYS, 'toGeminiTools');
    return geminiTools(source, options);
  });
}

/** {@link toGeminiTools} for options checked already (a run's, which has keys of its own). */
export function geminiTools(source: ToolSource, options: GeminiToolsOptions): Tool[] {
  const exposed = exposeTools(source, 'gemini', options);
  const functionDeclarations = exposed.tools.map((tool): FunctionDeclaration => {
    const { properties } = tool.schema.schema;
    // A function without parameters leaves them out: Gemini refuses an OBJECT without properties.
    const none =
      typeof properties === 'object' && properties !== null && Object.keys(properties).length === 0;
    return {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      ...(none ? {} : { parameters: tool.schema.schema }),
    };
  });
  const list: Tool[] = functionDeclarations.length === 0 ? [] : [{ functionDeclarations }];
  return bindExposed(list, exposed);
}
