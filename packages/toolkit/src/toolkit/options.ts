import type { ToolkitApprovalOptions } from '../approval/elicit-approval.js';
import type { Prompt as McpPrompt } from '@modelcontextprotocol/client';
import type { Tracer } from '@opentelemetry/api';
import type { Searcher } from '@toolplane/toolindex';
import type { SchemaValidator } from '@toolplane/toolmodel';
import type { Middleware } from '@toolplane/toolrun';
import type {
  ConnectorEra,
  ConnectorEvent,
  ConnectorFactory,
  ConnectorListKind,
  ConnectorOptions,
  UpstreamRequestHandler,
} from '../connectors/connector.js';
import type { SessionConnectionLimits } from '../connectors/session-connections.js';
import type { DefinedTool } from '../define-tool.js';
import type { PinningMode, PinningOptions } from '../pinning/pin-gate.js';
import type { Prompt, RenderedPrompt } from '../prompts/prompts.js';
import type { LiveResource } from '../resources/live-resources.js';
import type { ResourceTemplate } from '../resources/resource-templates.js';
import type { Resource } from '../resources/resources.js';
import type { Secrets } from '../secrets.js';
import type { Logger } from '../session.js';
import type { Store } from '../store.js';
import type { ConnectionMode } from './host.js';

/** Options of {@link Toolkit.readResource}, {@link Toolkit.getPrompt} and a prompt's `render`. */
export interface ReadOptions {
  readonly signal?: AbortSignal;
  /** The client session asking: a per-session server answers on that session's connection. */
  readonly sessionKey?: string;
}

/** How deep prompt → tool → prompt calls may nest unless `maxCallDepth` says otherwise. */
export const DEFAULT_MAX_CALL_DEPTH = 8;

/** A prompt as the toolkit hands it to a {@link ToolkitDelegate}: local or remote alike. */
export interface ToolkitPrompt {
  readonly namespace: string;
  readonly name: string;
  /** The prompt's definition, for builtin and user prompts (remote prompts have none). */
  readonly prompt: Prompt | undefined;
  /** The prompt in MCP form (`prompts/list`). */
  readonly mcp: McpPrompt;
  /** Renders the prompt with `input`: locally, or by `prompts/get` on its server. */
  render(input: Record<string, unknown>, options?: ReadOptions): Promise<RenderedPrompt>;
}

/** Runs prompts (with a model) and hears what changes; see {@link ToolkitOptions.delegate}. */
export interface ToolkitDelegate {
  /** Runs `prompt` with `input`; its answer is wrapped like a tool's result. */
  call(
    prompt: ToolkitPrompt,
    input: Record<string, unknown>,
    options: { readonly resources: readonly Resource[]; readonly signal?: AbortSignal },
  ): Promise<unknown>;
  /** Hears every change: list changes, resource updates and connector states, by namespace. */
  onEvent?(event: ToolkitEvent): void;
}

/** What changed underneath a toolkit; every event names its namespace. */
export type ToolkitEvent = ConnectorEvent & {
  /**
   * The session whose own connection to a per-session server sent it (`resource_updated` and
   * `log_message` only): meant for that session alone. Absent for shared connections.
   */
  readonly session?: string;
};

/** Options of {@link Toolkit.addConnector}. */
export interface AddConnectorOptions {
  /** The namespace its tools, prompts and resources appear under; inferred when absent. */
  readonly namespace?: string;
  /** Default `'shared'`. */
  readonly connection?: ConnectionMode;
  /**
   * Which MCP era to speak to this server: `'auto'` (negotiate), `'2025'` or `'2026'`; default
   * {@link ToolkitOptions.connectorDefaults}' `era`, else `'auto'` (see {@link ConnectorOptions.era}).
   */
  readonly era?: ConnectorEra;
  /**
   * How long this stdio server may take to start (spawn to `initialize` answered); default
   * {@link ToolkitOptions.connectorDefaults}' `startTimeoutMs`, else 60 s (see
   * {@link ConnectorOptions.startTimeoutMs}).
   */
  readonly startTimeoutMs?: number;
  /**
   * Which of this server's lists to mirror; default {@link ToolkitOptions.connectorDefaults}'
   * `lists`, else all three (see {@link ConnectorOptions.lists}).
   */
  readonly lists?: readonly ConnectorListKind[];
}

/** Options for {@link createToolkit}. */
export interface ToolkitOptions {
  /** Builtin tools (see {@link defineTool}). */
  readonly tools?: readonly DefinedTool[];
  /** Builtin prompts. */
  readonly prompts?: readonly Prompt[];
  /** Builtin resources: with their contents, or live ones read on every read ({@link liveResource}). */
  readonly resources?: readonly (Resource | LiveResource)[];
  /** Builtin resource templates (see {@link defineResourceTemplate}). */
  readonly resourceTemplates?: readonly ResourceTemplate[];
  /** Runs prompts and receives events. */
  readonly delegate?: ToolkitDelegate;
  /** Keeps the `user` namespace; the toolkit reads it but never closes it. */
  readonly store?: Store;
  /**
   * Pins upstream tools: the first definition seen of each is fingerprinted and stored; a later,
   * different one is withheld (`block`) or served and flagged (`warn`) until accepted. A mode
   * alone keeps pins in memory; give a `store` (SQLite, PostgreSQL) to keep them across restarts
   * and share them. Default `off`. The toolkit never closes the store.
   */
  readonly pinning?: PinningMode | PinningOptions;
  /** Default: the global OpenTelemetry tracer provider's `@toolplane/toolkit` tracer. */
  readonly tracer?: Tracer;
  readonly logger?: Logger;
  /** Limit for prompt → tool → prompt nesting (default {@link DEFAULT_MAX_CALL_DEPTH}). */
  readonly maxCallDepth?: number;
  /**
   * Runner middleware applied to every tool call (timeouts, retries, rate limits, audit…). It
   * runs after {@link ToolkitOptions.approval}: a call approval refuses never reaches it.
   */
  readonly middleware?: readonly Middleware[];
  /**
   * Runner middleware that watches every tool call (a live log, call counters): it wraps outside
   * {@link ToolkitOptions.approval} and {@link ToolkitOptions.middleware}, so it also sees the
   * calls approval refuses (failing with `approval_denied`) and those it holds while a person
   * answers (the call's `onApproval` hears each step, when the middleware sets it). Since it
   * runs before approval, it must only observe: nothing here may act on a call (retry, cache,
   * limit it, or run side effects), for a refused call must not have run anything; such
   * middleware goes in `middleware`.
   */
  readonly observers?: readonly Middleware[];
  /**
   * The index's search engine; default BM25. A learning searcher (`createLearningSearcher` from
   * @toolplane/toolindex) learns from {@link Toolkit.search} calls followed, under the same
   * `sessionKey`, by a call of one of their results.
   */
  readonly searcher?: Searcher;
  /**
   * Calls a person approves before they run: destructive tools (by default), unannotated ones,
   * `tools` globs minus `except`. The calling client is asked through MCP elicitation unless
   * `ask` is given; a call without approval fails with `approval_denied`. Runs before
   * `middleware` (which a refused call never reaches), after `observers`.
   */
  readonly approval?: ToolkitApprovalOptions;
  /**
   * Validates every tool call's arguments and result against the tool's schemas. Default: the
   * runner's, `createValidator()` from @toolplane/toolmodel (no code generation, so it runs on
   * every runtime); where code generation is allowed, `createAjvValidator()` from
   * @toolplane/validator-ajv validates many times faster.
   */
  readonly validator?: SchemaValidator;
  /**
   * Values never to hand out in clear: masked (as `***`) in connector statuses, events, errors,
   * upstream error results and log lines. The credentials of connector sources (URL user info and
   * credential-named query values, header values, tokens) are added automatically. Pass the
   * {@link Secrets} instance of a configuration to keep adding to it.
   */
  readonly secrets?: Secrets | Iterable<string>;
  /**
   * Answers the sampling and elicitation requests MCP servers send during calls made through this
   * toolkit (`call`, `callTool`), and tells servers what it can answer when they connect. Each
   * call is tied to its requests by the toolkit itself: nothing to pass per call (a call may still
   * bring its own answerer, {@link CallOptions.onUpstreamRequest}). A gateway replaces it through
   * `toolkitHost(toolkit).setUpstreamRequestHandler`.
   */
  readonly upstreamRequests?: UpstreamRequestHandler;
  /** Defaults for every connector (timeouts, backoff, client info). */
  readonly connectorDefaults?: Omit<ConnectorOptions, 'namespace' | 'onEvent' | 'upstreamRequests'>;
  /**
   * Builds the connector for a source (the seed's `CreateConnector`): return a
   * {@link ToolkitConnector} to plug in a custom or non-MCP connector, `undefined` for the
   * built-in MCP connector. See {@link ConnectorFactory}.
   */
  readonly createConnector?: ConnectorFactory;
  /**
   * Bounds on the connections of per-session servers: at most `max` per server (default 32; the
   * least recently used idle one makes room, and a session is refused when all are busy), each
   * closed when idle for `idleMs` (default 5 minutes).
   */
  readonly sessionConnections?: SessionConnectionLimits;
}

/** Options of {@link Toolkit.removeConnector}. */
export interface RemoveConnectorOptions {
  /**
   * How long tool calls in flight on the connector may take to finish before its connections
   * close (failing whatever is left); default 0: closed at once.
   */
  readonly drainMs?: number;
}
