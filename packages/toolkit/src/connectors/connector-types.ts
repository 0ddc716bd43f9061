import type {
  CallToolRequest,
  CallToolResult,
  CompleteRequest,
  CompleteResult,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  GetPromptRequest,
  GetPromptResult,
  Implementation,
  ListRootsResult,
  LoggingLevel,
  Prompt,
  ReadResourceRequest,
  ReadResourceResult,
  RequestOptions,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  ServerCapabilities,
  SubscribeRequest,
  Tool as McpTool,
  Transport,
  UnsubscribeRequest,
} from '@modelcontextprotocol/client';
import type { ToolError } from '@toolplane/toolmodel';
import type { ConnectorEra, ConnectorServerInfo, SpokenEra } from './connector-era.js';
import type { TransportAuth } from './transport/http-transport-parts.js';
import type { StdioPrestarts } from './spawn/prestarts.js';

/** An upstream MCP server started as a child process and spoken to over stdio. */
export interface StdioSource {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /**
   * Children started already (the CLI starts its servers while it loads): a connection attempt
   * adopts one started from an equal source (command, args, env, cwd), with whatever it wrote so
   * far, instead of spawning; once none is left it spawns as usual.
   */
  readonly prestarted?: StdioPrestarts;
  /**
   * How a closed connection lets its child go: `'wait'` (default) until it has exited (stdin
   * closed, then SIGTERM and SIGKILL a second apart), or `'release'` (a one-shot command, whose
   * user should not wait for a server's exit): stdin closed and the child let go at once, a
   * detached reaper sending SIGTERM to its group after a second should it still run.
   */
  readonly closing?: 'wait' | 'release';
}

/** A remote MCP server over Streamable HTTP (falling back to SSE). */
export interface HttpSource {
  readonly url: string | URL;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /**
   * An OAuth 2.1 client for a protected server (see `createConnectorOAuth`): it supplies and
   * refreshes the token; a connector that needs a person to log in goes `auth_required`.
   */
  readonly oauth?: TransportAuth & OAuthCredentialWatch;
}

/**
 * How a connector learns of a login made elsewhere (`toolplane auth login` in another process):
 * `ConnectorOAuth` implements it over its credential store.
 */
export interface OAuthCredentialWatch {
  /** Forgets what was read of the stored credentials; the next request reads them again. */
  reload?(): void;
  /** Whether the stored tokens differ from those last read or written here. */
  changedElsewhere?(): Promise<boolean>;
}

/** Where a connector finds its server: a stdio command, an http(s) URL, or a URL with headers. */
export type ConnectorSource = StdioSource | HttpSource | string | URL;

/** A connector's lifecycle state. */
export type ConnectorState =
  | 'connecting'
  | 'connected'
  | 'disconnected'
  | 'failed'
  /**
   * An OAuth-protected server needs a login; the connector stops retrying until its stored
   * tokens change (see {@link ConnectorOptions.authRecheckMs}) or it is started again.
   */
  | 'auth_required';

/** Everything a connector reports; every event names the connector's namespace. */
export type ConnectorEvent =
  | {
      readonly type: 'state_change';
      readonly namespace: string;
      readonly state: ConnectorState;
      readonly error?: Error;
      /**
       * On `connected`: what the server said about itself (name, version, the protocol version
       * and era spoken, capabilities).
       */
      readonly server?: ConnectorServerInfo;
    }
  | { readonly type: 'tool_list_changed'; readonly namespace: string }
  | { readonly type: 'prompt_list_changed'; readonly namespace: string }
  | { readonly type: 'resource_list_changed'; readonly namespace: string }
  | { readonly type: 'resource_updated'; readonly namespace: string; readonly uri: string }
  | {
      /** A `notifications/message` log entry from the server, as it sent it. */
      readonly type: 'log_message';
      readonly namespace: string;
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- a 2025-era feature, bridged as long as servers speak it
      readonly level: LoggingLevel;
      readonly logger?: string;
      readonly data: unknown;
    };

/** The `_meta` key naming who made a tool call, so the server's requests during it reach them. */
export const CALLER_META_KEY = 'io.toolplane/caller';

/** A request an upstream server sends its client during a call: sampling or elicitation. */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- a 2025-era feature, bridged as long as servers speak it
export type UpstreamRequest = CreateMessageRequest | ElicitRequest;

/** Where an {@link UpstreamRequest} came from and whose call caused it. */
export interface UpstreamRequestContext {
  /** The connector's namespace. */
  readonly namespace: string;
  /** The {@link CALLER_META_KEY} value of the tool call the request belongs to. */
  readonly caller: string;
  /** Aborts when the server cancels the request or the connection ends. */
  readonly signal: AbortSignal;
}

/** Whose roots a server's `roots/list` asks for; see {@link UpstreamRequestHandler.listRoots}. */
export interface RootsRequestContext {
  /** The connector's namespace. */
  readonly namespace: string;
  /**
   * The {@link CALLER_META_KEY} value of the call the request belongs to; outside a call, that of
   * the latest call on the connection or of the latest `Connector.rootsChanged`, whichever
   * came last; `undefined` before either.
   */
  readonly caller: string | undefined;
  /** Aborts when the server cancels the request or the connection ends. */
  readonly signal: AbortSignal;
}

/**
 * Answers upstream servers' sampling and elicitation requests on behalf of whoever made the call
 * that caused them, and their `roots/list`; see {@link ConnectorOptions.upstreamRequests}.
 */
export interface UpstreamRequestHandler {
  /** What it can answer; only this is advertised to servers (read at every connect). */
  readonly capabilities: {
    readonly sampling?: boolean;
    readonly elicitation?: boolean;
    /** Advertises `roots` (with `listChanged`); `roots/list` goes to {@link listRoots}. */
    readonly roots?: boolean;
  };
  /** Answers `roots/list`; no roots when absent. */
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- a 2025-era feature, bridged as long as servers speak it
  listRoots?(context: RootsRequestContext): Promise<ListRootsResult>;
  /**
   * Answers `request`; throw a `ProtocolError` (or any error with a numeric `code`) to answer with that error. An accepted form-mode
   * elicitation may leave fields out: the connector fills in the server's defaults for them
   * (SEP-1034; it advertises `applyDefaults`).
   */
  handle(
    request: UpstreamRequest,
    context: UpstreamRequestContext,
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- a 2025-era feature, bridged as long as servers speak it
  ): Promise<CreateMessageResult | ElicitResult>;
  /**
   * Asked of each caller with calls in flight when a request cannot be tied to one of several:
   * `'released'` when that caller's call waits, parked, for a client that may never come back
   * (a 2026-07-28 client's `input_required` round) and was ended because its retry runs it again
   * anyway, so it counts as in flight no more; `'parked'` when it waits so but is kept (the
   * refusal says so); `undefined` otherwise.
   */
  release?(caller: string): 'released' | 'parked' | undefined;
}

/** Options for {@link createConnector}. */
export interface ConnectorOptions {
  /**
   * Who answers the server's `sampling/createMessage` and `elicitation/create` requests, read at
   * every connect (see `Connector.renegotiate`). A request is routed to the tool call it
   * belongs to: over Streamable HTTP by the response stream it arrives on; otherwise to the only
   * caller with calls in flight. When calls of several callers are in flight and nothing says
   * which one the request belongs to, it is refused with an MCP error rather than guessed.
   */
  readonly upstreamRequests?: () => UpstreamRequestHandler | undefined;
  /** The namespace its tools, prompts and resources appear under; inferred from the source when absent. */
  readonly namespace?: string;
  /** How the client introduces itself to the server. */
  readonly clientInfo?: Implementation;
  /**
   * Which MCP era to speak (default `'auto'`). `'auto'` probes the server with `server/discover`
   * and speaks 2026-07-28 when it answers, else 2025-11-25 (`initialize`); what the server spoke
   * is remembered, so reconnects skip the probe, and probed again when a reconnect on it fails.
   * `'2025'` never probes; `'2026'` speaks 2026-07-28 only and fails against a 2025-only server.
   */
  readonly era?: ConnectorEra;
  /**
   * How long a stdio server may leave the era probe unanswered before it is taken for a 2025
   * server (some never answer unknown requests before `initialize`). Default 3 s. Over HTTP the
   * probe is a request like any other, bounded by {@link connectTimeoutMs}.
   */
  readonly eraProbeTimeoutMs?: number;
  /**
   * The least severe log level asked of a 2026-07-28 server with every request (that era has no
   * `logging/setLevel`, and a server sends no log messages for a request that names no level).
   * Default `'debug'`: everything, as a 2025 server sends unasked.
   */
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- logging is bridged in both eras
  readonly logLevel?: LoggingLevel;
  /**
   * The largest message a stdio server may send, in bytes (a positive integer); a larger one is
   * dropped alone and the request it answered fails, the connection goes on. A list page over it
   * (one `tools/list` answer, say) cannot be loaded: the connection fails, or ends when a list
   * change brings it, with a `message_too_large` {@link ToolError} on the `state_change` event.
   * Default 10 MiB, as the SDK's.
   */
  readonly maxMessageBytes?: number;
  /** How long one connection attempt (spawn or HTTP handshake, then `initialize`) may take. Default 10 s. */
  readonly connectTimeoutMs?: number;
  /**
   * How long a stdio server may take to start, from spawn to its `initialize` answer, in place of
   * {@link connectTimeoutMs}: a first `npx -y` run downloads the package first, which takes far
   * longer than any request should (ending npx mid-download can leave its cache broken). Default:
   * {@link connectTimeoutMs} when that is set, else 60 s ({@link DEFAULT_START_TIMEOUT_MS}).
   * Requests once started keep their own bounds.
   */
  readonly startTimeoutMs?: number;
  /**
   * Pings the server this often while connected, as the MCP spec suggests clients may; a ping
   * that fails or times out (after `connectTimeoutMs`) closes the connection, which reconnects.
   * For servers whose end nothing else reveals at once: a stateless HTTP server (no GET stream)
   * killed after the idle connections to it closed, or a server that hangs. Default: no pings.
   */
  readonly pingIntervalMs?: number;
  /**
   * While `auth_required`, how often to look in the credential store for tokens a login made
   * elsewhere (`toolplane auth login` in another process) saved; new tokens start the connector
   * again. One store read each time, no request to any server. Default 2,000 ms; 0 turns it off.
   */
  readonly authRecheckMs?: number;
  /** Reconnection backoff: full jitter over `initialDelayMs · 2^attempt`, capped at `maxDelayMs`. */
  readonly backoff?: { readonly initialDelayMs?: number; readonly maxDelayMs?: number };
  /**
   * Which of the server's lists the connector mirrors: fetched on connect, fetched again on the
   * server's `list_changed`, and offered through the toolkit. Default all three; `resources`
   * brings the resource templates with it. A list left out is never requested, its changes are
   * not followed, and it reads as empty: a command that only reads tools passes `['tools']`, so a
   * server's prompts and (maybe thousands of) resources are not paged through first.
   */
  readonly lists?: readonly ConnectorListKind[];
  /** Receives state changes, list changes and resource updates. Must not throw (errors are swallowed). */
  readonly onEvent?: (event: ConnectorEvent) => void;
}

/** A list a connector can mirror from its server (see {@link ConnectorOptions.lists}). */
export type ConnectorListKind = 'tools' | 'prompts' | 'resources';

/** The lists a connector caches from its server. */
export interface ConnectorLists {
  readonly tools: readonly McpTool[];
  readonly prompts: readonly Prompt[];
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplate[];
  /** Entries of the server's tools list that are no MCP tool, left out of `tools`, with why. */
  readonly refusedTools?: readonly { readonly name: string; readonly reason: string }[];
}

/**
 * The part of an MCP client a toolkit uses of a connector's connection: the SDK v2 `Client` is
 * one, and a connector to something that is not an MCP server ({@link ConnectorFactory}) answers
 * these itself.
 */
export interface ConnectorClientLike {
  /** Runs a tool; a failure the tool reports is a result with `isError: true`. */
  callTool(params: CallToolRequest['params'], options?: RequestOptions): Promise<CallToolResult>;
  getPrompt(params: GetPromptRequest['params'], options?: RequestOptions): Promise<GetPromptResult>;
  readResource(
    params: ReadResourceRequest['params'],
    options?: RequestOptions,
  ): Promise<ReadResourceResult>;
  /** Argument completion; none when absent. */
  complete?(params: CompleteRequest['params'], options?: RequestOptions): Promise<CompleteResult>;
  /** Resource subscriptions, when `getServerCapabilities()` says `resources.subscribe`. */
  subscribeResource?(
    params: SubscribeRequest['params'],
    options?: RequestOptions,
  ): Promise<unknown>;
  unsubscribeResource?(
    params: UnsubscribeRequest['params'],
    options?: RequestOptions,
  ): Promise<unknown>;
  getServerCapabilities(): ServerCapabilities | undefined;
  /** An MCP connection's transport: its progress notifications reach the caller. */
  readonly transport?: Transport | undefined;
}

/**
 * What a toolkit needs of a connector: the built-in `Connector` is one; a
 * {@link ConnectorFactory} may build others (a custom transport, or a source that is not an MCP
 * server at all).
 *
 * The contract: `start()` begins connecting in the background; `ready()` resolves once
 * `state` is `connected` with `lists` loaded; every state change, and every change of `lists`
 * (`tool_list_changed`, `prompt_list_changed`, `resource_list_changed`), is reported through the
 * `onEvent` of the {@link ConnectorOptions} the factory was given, naming `namespace` (the
 * toolkit mirrors the tools into its index on `state_change` to `connected` and on
 * `tool_list_changed`); `client` is set while connected; `unavailable()` is the error calls get
 * while it is not; `close()` ends it for good.
 */
export interface ToolkitConnector {
  readonly namespace: string;
  readonly state: ConnectorState;
  readonly lists: ConnectorLists;
  readonly client: ConnectorClientLike | undefined;
  /** Why the last attempt failed or the last connection ended, if it did. */
  readonly lastError: Error | undefined;
  /** A stdio server's process ID, while it runs. */
  readonly pid?: number | undefined;
  /** The MCP era spoken, while connected. */
  readonly era?: SpokenEra | undefined;
  /** What the server said about itself, while connected. */
  readonly server?: ConnectorServerInfo | undefined;
  start(): void;
  ready(options?: { signal?: AbortSignal }): Promise<void>;
  /** The error a call gets while not connected (`connector_unavailable`). */
  unavailable(): ToolError;
  /** Reconnects when the upstream-request capabilities changed; see `Connector.renegotiate`. */
  renegotiate?(options?: { signal?: AbortSignal }): Promise<void>;
  /** Tells the server the roots changed; see `Connector.rootsChanged`. */
  rootsChanged?(caller?: string): void;
  /** Drops the connection and connects again at once; see `Connector.reconnect`. */
  reconnect?(): void;
  /** Waits for the tool calls in flight to end; see `Connector.drain`. */
  drain?(options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * Settles once a re-fetch of the tool list in progress (after the server's `list_changed`) has
   * settled: pinning waits on it, so no call runs on a definition it has not checked.
   */
  toolsSettled?(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the connector for a source (the seed's `CreateConnector`): return a
 * {@link ToolkitConnector} to plug in a custom or non-MCP connector, or `undefined` to use the
 * built-in MCP `Connector`. `options` carry the namespace, the event listener the connector
 * must report through, and the toolkit's connector defaults.
 */
export type ConnectorFactory = (
  source: ConnectorSource,
  options: ConnectorOptions & { readonly namespace: string },
) => ToolkitConnector | undefined;

/** How long a stdio server may take to start unless told otherwise; see `startTimeoutMs`. */
export const DEFAULT_START_TIMEOUT_MS = 60_000;
