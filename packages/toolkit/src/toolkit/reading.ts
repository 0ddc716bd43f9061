import { ToolError } from '@toolplane/toolmodel';
import { type RenderedPrompt } from '../prompts/prompts.js';
import { type Resource } from '../resources/resources.js';
import { isResultUri, sessionKey, type KeptResults } from '../resources/call-resources.js';
import type { Builtins } from './builtins.js';
import type { Connectors } from '../connectors/registry.js';
import type { Source } from './sources.js';
import type { ReadOptions, ResourceItem, ToolkitItem } from './types.js';

/** What reading a resource or getting a prompt needs of a toolkit. */
export interface ReadingParts {
  lookup(key: string, options: { signal?: AbortSignal }): Promise<ToolkitItem>;
  readonly kept: KeptResults;
  readonly builtins: Builtins;
  readonly connectors: Connectors;
  /** Every namespace that can answer now, in lookup order. */
  sources(): Source[];
}

/** {@link Toolkit.getPrompt}: renders the prompt `key` names. */
export async function getPromptIn(
  parts: ReadingParts,
  key: string,
  input: Record<string, unknown>,
  options: ReadOptions,
): Promise<RenderedPrompt> {
  const item = await parts.lookup(key, options);
  if (item.type !== 'prompt')
    throw new ToolError('not_found', `"${key}" is a ${item.type}, not a prompt`);
  return item.prompt.render(input, options);
}

/**
 * {@link Toolkit.readResource}: a kept call result, a listed resource (on the reading session's
 * own connection for a per-session server), or one a builtin template makes.
 */
export async function readResourceIn(
  parts: ReadingParts,
  key: string,
  options: ReadOptions,
): Promise<Resource> {
  if (isResultUri(key)) return parts.kept.get(sessionKey({}), key);
  let item: ToolkitItem;
  try {
    item = await parts.lookup(key, options);
  } catch (error) {
    if (!ToolError.isInstance(error) || error.code !== 'not_found') throw error;
    const found = await parts.builtins.readFromTemplate(key, options.signal);
    if (found === undefined) throw error;
    return found;
  }
  if (item.type !== 'resource')
    throw new ToolError('not_found', `"${key}" is a ${item.type}, not a resource`);
  return readItemIn(parts, item, options);
}

/** Reads a listed resource from its namespace, on the session's connection where it has one. */
export function readItemIn(
  parts: ReadingParts,
  item: ResourceItem,
  options: ReadOptions,
): Promise<Resource> {
  return parts.connectors.inSession(item.namespace, options.sessionKey, async () => {
    const source = parts.sources().find((s) => s.namespace === item.namespace);
    const found = await source?.read(item.uri, options.signal);
    if (found === undefined) {
      throw new ToolError(
        'not_found',
        `resource "${item.uri}" is no longer in namespace "${item.namespace}"`,
      );
    }
    return found;
  });
}
