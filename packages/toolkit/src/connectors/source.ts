import type { Prompt as McpPrompt, Tool as McpTool } from '@modelcontextprotocol/client';
import type { ToolIndex } from '@toolplane/toolindex';
import type { ConnectorClientLike, ToolkitConnector } from './connector.js';
import { validateResource } from '../resources/resources.js';
import type { Logger } from '../session.js';
import {
  makeSource,
  remotePromptItem,
  resourceItem,
  safeName,
  toolItem,
  type Source,
} from '../toolkit/sources.js';
import type { PromptItem } from '../toolkit/types.js';

/** What {@link connectorSource} needs of the toolkit's connectors. */
export interface ConnectorSourceParts {
  readonly index: ToolIndex;
  /** Whether the connector's server has a connection per session. */
  readonly perSession: () => boolean;
  /** The client to ask: the shared connection's, or the calling session's own. */
  readonly clientOf: () => ConnectorClientLike | Promise<ConnectorClientLike>;
  /** Runs `fn` as part of `session` (see `Connectors.inSession`). */
  readonly inSession: <T>(session: string | undefined, fn: () => Promise<T>) => Promise<T>;
}

/** A connected connector as lookup and list read it: its tools, prompts and resources. */
export function connectorSource(connector: ToolkitConnector, parts: ConnectorSourceParts): Source {
  const { namespace } = connector;
  const lists = connector.lists;
  const { index } = parts;
  const prompt = (mcp: McpPrompt): PromptItem => {
    if (!parts.perSession()) return remotePromptItem(connector, mcp);
    // A per-session server renders on the asking session's connection.
    const item = remotePromptItem(connector, mcp, parts.clientOf);
    const remote = item.prompt;
    return {
      ...item,
      prompt: {
        ...remote,
        render: (input, options = {}) =>
          parts.inSession(options.sessionKey, () => remote.render(input, options)),
      },
    };
  };
  return makeSource({
    namespace,
    tools: () => lists.tools.flatMap((tool) => toolItem(index, namespace, tool.name) ?? []),
    // The index mirrors the connector's tools, so a direct lookup there is the connector's.
    tool: (name) => toolItem(index, namespace, name),
    prompt: (name) => {
      const found = lists.prompts.find((mcp) => mcp.name === name);
      return found === undefined ? undefined : prompt(found);
    },
    prompts: () => lists.prompts.map(prompt),
    resources: () => lists.resources.map((r) => resourceItem(namespace, r)),
    read: async (uri, signal) => {
      const client = await parts.clientOf();
      const result = await client.readResource({ uri }, signal === undefined ? {} : { signal });
      const contents = result.contents.find((c) => c.uri === uri) ?? result.contents[0];
      if (contents === undefined) return undefined;
      const info = lists.resources.find((r) => r.uri === uri);
      const name = info?.name ?? uri.slice(uri.lastIndexOf('/') + 1);
      return validateResource({
        ...contents,
        uri,
        name: safeName(name),
        ...(info?.description === undefined ? {} : { description: info.description }),
      });
    },
  });
}

/**
 * Mirrors a connector's tools into the index, skipping (and logging) tools it cannot hold; with
 * `filter` (pinning), only the tools it passes.
 */
export function syncTools(
  index: ToolIndex,
  logger: Logger,
  connector: ToolkitConnector,
  filter?: <T extends McpTool>(namespace: string, tools: readonly T[]) => T[],
): void {
  const { namespace } = connector;
  for (const refused of connector.lists.refusedTools ?? []) {
    logger.warn(`skipping tool "${refused.name}" of MCP server "${namespace}"`, {
      error: refused.reason,
    });
  }
  const tools =
    filter === undefined ? connector.lists.tools : filter(namespace, connector.lists.tools);
  try {
    index.registerMcpTools(namespace, tools, { namespace, replace: true, prune: true });
    return;
  } catch (error) {
    // Each tool it cannot hold is warned of below, with its own reason.
    logger.debug(`MCP server "${namespace}" lists tools toolplane cannot hold; skipping them`, {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  index.removeNamespace(namespace);
  for (const tool of tools) {
    try {
      index.registerMcpTools(namespace, [tool], { namespace, replace: true });
    } catch (error) {
      logger.warn(`skipping tool "${tool.name}" of MCP server "${namespace}"`, {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
