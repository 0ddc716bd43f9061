import type { ResourceTemplateType as McpResourceTemplate } from '@modelcontextprotocol/client';
import { ToolError, type Tool } from '@toolplane/toolmodel';
import type { ConnectorState, SpokenEra } from '../connectors/connector.js';
import type { ResourceInfo } from '../resources/resources.js';
import type { ToolkitPrompt } from './options.js';

/** One tool, prompt or resource a toolkit exposes. */
export type ToolkitItem =
  | {
      readonly type: 'tool';
      readonly namespace: string;
      readonly name: string;
      readonly id: string;
      readonly tool: Tool;
    }
  | {
      readonly type: 'prompt';
      readonly namespace: string;
      readonly name: string;
      readonly prompt: ToolkitPrompt;
    }
  | {
      readonly type: 'resource';
      readonly namespace: string;
      readonly name: string;
      readonly uri: string;
      readonly resource: ResourceInfo;
    };

/** A tool, a prompt and a resource of {@link ToolkitItem}. */
export type ToolItem = Extract<ToolkitItem, { type: 'tool' }>;
export type PromptItem = Extract<ToolkitItem, { type: 'prompt' }>;
export type ResourceItem = Extract<ToolkitItem, { type: 'resource' }>;

/** The filters and paging of {@link Toolkit.list}. */
export interface ListRequest {
  readonly namespace?: string;
  readonly type?: 'tool' | 'prompt' | 'resource';
  /** Only items with exactly this name. */
  readonly name?: string;
  /** Page size (1–1000); all items when absent. */
  readonly limit?: number;
  /** Items to skip first; applies with or without `limit`. */
  readonly offset?: number;
  /** A `nextCursor` from an earlier page of the same request. */
  readonly cursor?: string;
  readonly signal?: AbortSignal;
}

/** A source that could not be listed: named, with why. */
export interface ListError {
  readonly namespace: string;
  readonly message: string;
}

/** One page of {@link Toolkit.list}. */
export interface ListResult {
  readonly tools: Extract<ToolkitItem, { type: 'tool' }>[];
  readonly prompts: Extract<ToolkitItem, { type: 'prompt' }>[];
  readonly resources: Extract<ToolkitItem, { type: 'resource' }>[];
  /** How many items match, before paging. */
  readonly count: number;
  readonly offset: number;
  readonly limit: number | undefined;
  readonly nextCursor?: string;
  /** Sources that are down or failed to list; the rest are listed regardless. */
  readonly errors: ListError[];
}

/** A resource template a toolkit exposes: a builtin one or a connector's. */
export interface ToolkitResourceTemplate {
  readonly namespace: string;
  readonly name: string;
  /** The template in MCP form (`resources/templates/list`). */
  readonly template: McpResourceTemplate;
}

/** What {@link Toolkit.complete} completes: a prompt's argument or a resource template's variable. */
export type CompletionTarget =
  | { readonly type: 'prompt'; readonly namespace: string; readonly name: string }
  | {
      readonly type: 'resource_template';
      readonly namespace: string;
      readonly uriTemplate: string;
    };

/** What {@link Toolkit.removeBuiltin} removed. */
export type BuiltinKind = 'tool' | 'prompt' | 'resource' | 'resource_template';

/** A registered connector and where it stands. */
export interface ConnectorStatus {
  readonly namespace: string;
  readonly state: ConnectorState;
  /** For a per-session server: how many sessions have a connection of their own open. */
  readonly sessionConnections?: number;
  /** The stdio server's process ID, while it runs. */
  readonly pid?: number;
  /** The MCP era the connection speaks, while connected. */
  readonly era?: SpokenEra;
  /** Why it is not connected, when it is not. */
  readonly error?: string;
}

/**
 * What `call` or `callTool` was handed: a key, an item of `lookup` or `list`, or (else) a
 * definition, checked so that a wrong value fails with a code rather than deep inside.
 *
 * @throws {ToolError} `invalid_argument` for anything else.
 */
export function callTarget(target: unknown, method: string): 'key' | 'item' | 'definition' {
  if (typeof target === 'string') return 'key';
  if (typeof target === 'object' && target !== null) {
    if ('type' in target) return 'item';
    const { tool } = target as { tool?: unknown };
    if (typeof tool === 'object' && tool !== null) return 'definition';
  }
  const got = target === null ? 'null' : Array.isArray(target) ? 'an array' : typeof target;
  throw new ToolError(
    'invalid_argument',
    `${method} needs a key (ns:name, a name or a URI), an item of lookup or list, or a tool defined with defineTool; got ${got}`,
  );
}
