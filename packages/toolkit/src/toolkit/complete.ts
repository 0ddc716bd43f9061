import type { CompleteResult } from '@modelcontextprotocol/client';
import { throwIfAborted, ToolError } from '@toolplane/toolmodel';
import type { ToolkitConnector } from '../connectors/connector.js';
import { completePromptArgument } from '../prompts/render.js';
import { completeTemplate } from '../resources/resource-templates.js';
import type { Builtins } from './builtins.js';
import type { Source } from './sources.js';
import { BUILTIN_NAMESPACE, type CompleteOptions, type CompletionTarget } from './types.js';

/**
 * Completion values for a prompt's argument or a resource template's variable: from the
 * connector's server when the namespace is a connector's, else from the builtin or user prompt's
 * input schema or the builtin template's `complete`.
 *
 * @throws {ToolError} `not_found`, `connector_unavailable`, `execution`.
 */
export async function completeIn(
  parts: {
    /** The connector of the target's namespace, if it is one's. */
    connector: ToolkitConnector | undefined;
    sources: () => readonly Source[];
    builtins: Builtins;
  },
  target: CompletionTarget,
  argument: { readonly name: string; readonly value: string },
  options: CompleteOptions,
): Promise<CompleteResult['completion']> {
  const { signal } = options;
  const context = options.arguments ?? {};
  const label =
    target.type === 'prompt'
      ? `prompt "${target.namespace}:${target.name}"`
      : `resource template "${target.uriTemplate}" of "${target.namespace}"`;
  const missing = () => new ToolError('not_found', `no ${label} to complete`);
  const { connector } = parts;
  if (connector !== undefined) {
    const client = connector.client;
    if (client === undefined) throw connector.unavailable();
    if (
      client.getServerCapabilities()?.completions === undefined ||
      client.complete === undefined
    ) {
      return { values: [] };
    }
    const ref =
      target.type === 'prompt'
        ? { type: 'ref/prompt' as const, name: target.name }
        : { type: 'ref/resource' as const, uri: target.uriTemplate };
    try {
      const result = await client.complete(
        { ref, argument, context: { arguments: { ...context } } },
        signal === undefined ? {} : { signal },
      );
      return result.completion;
    } catch (error) {
      throwIfAborted(signal);
      throw new ToolError(
        'execution',
        `MCP server "${target.namespace}" could not complete ${label}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
  if (target.type === 'prompt') {
    const item = await parts
      .sources()
      .find((source) => source.namespace === target.namespace)
      ?.find(target.name, signal);
    if (item?.type !== 'prompt' || item.prompt.prompt === undefined) throw missing();
    return completePromptArgument(item.prompt.prompt, argument.name, argument.value);
  }
  const template =
    target.namespace === BUILTIN_NAMESPACE
      ? parts.builtins.template(target.uriTemplate)
      : undefined;
  if (template === undefined) throw missing();
  return completeTemplate(template, argument.name, argument.value, { arguments: context });
}
