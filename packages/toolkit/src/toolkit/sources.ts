import type {
  GetPromptResult,
  Prompt as McpPrompt,
  Resource as McpResource,
} from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { ToolIndex } from '@toolplane/toolindex';
import { countOr, ToolError } from '@toolplane/toolmodel';
import type { ConnectorClientLike, ToolkitConnector } from '../connectors/connector.js';
import type { Prompt } from '../prompts/prompts.js';
import { renderPrompt, toMcpPrompt } from '../prompts/render.js';
import {
  resource as toResource,
  resourceInfo,
  type Resource,
  type ResourceInfo,
} from '../resources/resources.js';
import type { Store } from '../store.js';
import {
  USER_NAMESPACE,
  type PromptItem,
  type ResourceItem,
  type ToolItem,
  type ToolkitItem,
} from './types.js';

/** The most items one `list` page holds. */
const MAX_LIST_LIMIT = 1_000;

/** One namespace's items, as lookup and list read them. */
export interface Source {
  readonly namespace: string;
  tools(): ToolItem[];
  prompts(signal?: AbortSignal): Promise<PromptItem[]>;
  resources(signal?: AbortSignal): Promise<ResourceItem[]>;
  /** The item called `name`: a tool, else a prompt, else a resource. */
  find(name: string, signal?: AbortSignal): Promise<ToolkitItem | undefined>;
  findUri(uri: string, signal?: AbortSignal): Promise<ResourceItem | undefined>;
  read(uri: string, signal?: AbortSignal): Promise<Resource | undefined>;
}

export type Maybe<T> = T | Promise<T>;

export function makeSource(parts: {
  namespace: string;
  tools: () => ToolItem[];
  /** The tool called `name`, found directly (lookups must not list every tool). */
  tool: (name: string) => ToolItem | undefined;
  prompts: (signal?: AbortSignal) => Maybe<PromptItem[]>;
  /** The prompt called `name`; default: searched in `prompts`. */
  prompt?: (name: string, signal?: AbortSignal) => Maybe<PromptItem | undefined>;
  resources: (signal?: AbortSignal) => Maybe<ResourceItem[]>;
  read: (uri: string, signal?: AbortSignal) => Maybe<Resource | undefined>;
}): Source {
  const prompts = async (signal?: AbortSignal) => parts.prompts(signal);
  const resources = async (signal?: AbortSignal) => parts.resources(signal);
  const prompt =
    parts.prompt ??
    (async (name: string, signal?: AbortSignal) =>
      (await prompts(signal)).find((item) => item.name === name));
  return {
    namespace: parts.namespace,
    tools: parts.tools,
    prompts,
    resources,
    async find(name, signal) {
      return (
        parts.tool(name) ??
        (await prompt(name, signal)) ??
        (await resources(signal)).find((item) => item.name === name)
      );
    },
    async findUri(uri, signal) {
      return (await resources(signal)).find((item) => item.uri === uri);
    },
    read: async (uri, signal) => parts.read(uri, signal),
  };
}

/** The tool `namespace:name` as an item, from the index; `undefined` when there is none. */
export function toolItem(index: ToolIndex, namespace: string, name: string): ToolItem | undefined {
  const id = `${namespace}:${name}`;
  try {
    if (!index.hasTool(id)) return undefined;
    return { type: 'tool', namespace, name, id, tool: index.getTool(id).tool };
  } catch {
    return undefined; // not a valid tool ID, so not a tool
  }
}

export function storeSource(store: Store): Source {
  const namespace = USER_NAMESPACE;
  const options = (signal?: AbortSignal) => (signal === undefined ? {} : { signal });
  return makeSource({
    namespace,
    tools: () => [],
    tool: () => undefined,
    prompt: async (name, signal) => {
      const found = await store.getPrompt(name, options(signal));
      return found === undefined ? undefined : localPromptItem(namespace, found);
    },
    prompts: async (signal) =>
      (await store.listPrompts(signal === undefined ? {} : { signal })).map((p) =>
        localPromptItem(namespace, p),
      ),
    resources: async (signal) =>
      (await store.listResources(signal === undefined ? {} : { signal })).map((r) =>
        resourceItem(namespace, r),
      ),
    read: (uri, signal) => store.getResource(uri, signal === undefined ? {} : { signal }),
  });
}

export function localPromptItem(namespace: string, prompt: Prompt): PromptItem {
  return {
    type: 'prompt',
    namespace,
    name: prompt.name,
    prompt: {
      namespace,
      name: prompt.name,
      prompt,
      mcp: toMcpPrompt(prompt),
      render: (input, options = {}) => renderPrompt(prompt, input, options),
    },
  };
}

export function remotePromptItem(
  connector: ToolkitConnector,
  mcp: McpPrompt,
  // The client to ask: the shared connection's, unless the server has one per session.
  clientOf: () => ConnectorClientLike | Promise<ConnectorClientLike> | undefined = () =>
    connector.client,
): PromptItem {
  const { namespace } = connector;
  return {
    type: 'prompt',
    namespace,
    name: mcp.name,
    prompt: {
      namespace,
      name: mcp.name,
      prompt: undefined,
      mcp,
      async render(input, options = {}) {
        const client = await clientOf();
        if (client === undefined) throw connector.unavailable();
        // MCP prompt arguments are strings; other values travel as JSON.
        const args = Object.fromEntries(
          Object.entries(input).map(([key, value]) => [
            key,
            typeof value === 'string' ? value : JSON.stringify(value),
          ]),
        );
        const where = `prompt "${namespace}:${mcp.name}"`;
        const missing = (mcp.arguments ?? []).filter(
          (argument) => argument.required === true && args[argument.name] === undefined,
        );
        if (missing.length > 0) {
          throw new ToolError(
            'validation',
            `${where} needs ${missing.map((argument) => JSON.stringify(argument.name)).join(', ')}`,
          );
        }
        let result: GetPromptResult;
        try {
          result = await client.getPrompt(
            { name: mcp.name, arguments: args },
            options.signal === undefined ? {} : { signal: options.signal },
          );
        } catch (error) {
          throw promptFailure(error, where);
        }
        const text = result.messages
          .flatMap((message) => (message.content.type === 'text' ? [message.content.text] : []))
          .join('\n\n');
        return { text, messages: result.messages };
      },
    },
  };
}

/**
 * A server's refusal of a prompt as a ToolError: `validation` for arguments it refused
 * (InvalidParams), `execution` for any other error it answered; the connection's own errors
 * (closed, timed out, cancelled) as they are.
 */
function promptFailure(error: unknown, where: string): unknown {
  if (ToolError.isInstance(error) || !(error instanceof ProtocolError)) return error;
  const refused = error.code === (ProtocolErrorCode.InvalidParams as number);
  return new ToolError(
    refused ? 'validation' : 'execution',
    `${where}: the server ${refused ? 'refused its arguments' : 'failed'}: ${error.message}`,
    { cause: error },
  );
}

export function resourceItem(
  namespace: string,
  resource: ResourceInfo | McpResource,
): ResourceItem {
  return {
    type: 'resource',
    namespace,
    name: resource.name,
    uri: resource.uri,
    resource: resourceInfo(resource),
  };
}

/** A tool's or prompt's answer as a resource; `undefined` stays `undefined`. */
export async function wrap(name: string, value: unknown): Promise<Resource | undefined> {
  if (value === undefined) return undefined;
  return toResource(safeName(name), value);
}

/** Resource names follow the tool-name rule; remote names may not. */
export function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 128);
  return cleaned.length === 0 || /^(?:__proto__|constructor|prototype)$/.test(cleaned)
    ? 'resource'
    : cleaned;
}

export function checkLimit(limit: number | undefined): number | undefined {
  return countOr(limit, undefined, 'limit', { max: MAX_LIST_LIMIT });
}

export function checkOffset(offset: number | undefined): number {
  return countOr(offset, 0, 'offset', { min: 0 });
}

export function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const offset = (parsed as { o?: unknown } | null)?.o;
    if (typeof offset === 'number' && Number.isInteger(offset) && offset >= 0) return offset;
  } catch {
    // reported below
  }
  throw new ToolError(
    'invalid_cursor',
    'the cursor is not one this toolkit issued; start again without a cursor',
  );
}
