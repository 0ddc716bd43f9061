import {
  bindExposed,
  checkAdapterCall,
  EXPOSE_OPTION_KEYS,
  exposeTools,
  type ExposeOptions,
  type ToolSource,
} from '@toolplane/adapter-kit';
import type { Tool } from '@anthropic-ai/sdk/resources/messages';

/** Options of {@link toAnthropicTools}. */
export type AnthropicToolsOptions = ExposeOptions;

/**
 * The tools of a toolkit, or of a runner with its index, as Messages API tools: provider-legal
 * names (`namespace__name`, shortened with a stable hash where needed), each description, and
 * each input schema converted for Anthropic (an object at the root, `$ref` inlined, top-level
 * combinators folded into it). Pass the same array to {@link runToolUses} as `tools` so names map
 * back without listing again.
 *
 * @throws {ToolError} `invalid_argument` for an option it does not know (or a selector, a
 * naming key, a `mode`); `cancelled` when `signal` is aborted; the index's codes for a failed
 * listing.
 */
export function toAnthropicTools(
  source: ToolSource,
  options: AnthropicToolsOptions = {},
): Promise<Tool[]> {
  return Promise.resolve().then(() => {
    checkAdapterCall(source, options, EXPOSE_OPTION_KEYS, 'toAnthropicTools');
    return anthropicTools(source, options);
  });
}

/** {@link toAnthropicTools} for options checked already (a run's, which has keys of its own). */
export function anthropicTools(source: ToolSource, options: AnthropicToolsOptions): Tool[] {
  const exposed = exposeTools(source, 'anthropic', options);
  const list = exposed.tools.map((tool): Tool => ({
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: tool.schema.schema as Tool.InputSchema,
  }));
  return bindExposed(list, exposed);
}
