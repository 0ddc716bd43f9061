import type { ToolError } from '@toolplane/toolmodel';
import type { UpstreamRequestHandler } from '../connectors/connector.js';

/**
 * How a server's connection is shared: one for every caller (`'shared'`, the default), or one per
 * client session (`'per-session'`, made on the session's first call, closed when it ends; for
 * stateful servers such as a browser), see {@link ToolkitOptions.sessionConnections}.
 */
export type ConnectionMode = 'shared' | 'per-session';

/**
 * The hooks a server that serves a toolkit to MCP clients (such as `@toolplane/gateway`) needs
 * and an app does not: who answers upstream servers' requests, roots changes, upstream resource
 * subscriptions and the end of a client session. Get it with `toolkitHost(toolkit)`. Its members
 * are plain functions, so a server may pass one on alone.
 */
export interface ToolkitHost {
  /**
   * Sets who answers upstream servers' sampling and elicitation requests (see
   * {@link UpstreamRequestHandler}; `undefined` removes it), e.g. a gateway forwarding each to
   * the session whose call caused it. Connected connectors whose advertised capabilities change
   * reconnect at once (calls in flight on them fail); resolves once they have.
   */
  readonly setUpstreamRequestHandler: (
    handler: UpstreamRequestHandler | undefined,
    options?: { signal?: AbortSignal },
  ) => Promise<void>;
  /**
   * Tells the servers that asked for roots (a handler with `capabilities.roots`) that they
   * changed (`notifications/roots/list_changed`); their next `roots/list` outside a call is
   * answered for `caller` (the caller tag of whoever's roots changed; a gateway passes its
   * session's).
   */
  readonly rootsChanged: (caller?: string) => void;
  /** How the server `namespace` names is connected (see `AddConnectorOptions.connection`). */
  readonly connectionOf: (namespace: string) => ConnectionMode | undefined;
  /**
   * Subscribes to the resource `uri` of the server `namespace`: on the session's own connection
   * to a per-session server (made if need be), else on the shared one. False when the server
   * does not offer subscriptions or is not connected; its updates are `resource_updated` events.
   */
  readonly subscribeResource: (
    namespace: string,
    uri: string,
    options?: { readonly sessionKey?: string },
  ) => Promise<boolean>;
  /** Undoes {@link subscribeResource}; a session connection already closed stays closed. */
  readonly unsubscribeResource: (
    namespace: string,
    uri: string,
    options?: { readonly sessionKey?: string },
  ) => Promise<void>;
  /**
   * Closes the connections the client session `session` has of its own to per-session servers
   * (see `AddConnectorOptions.connection`); a gateway calls it when a session ends.
   */
  readonly endSession: (session: string) => Promise<void>;
  /**
   * Why a call to the unlisted tool `namespace:name` is refused by pinning (a `tool_changed`
   * error naming the change and the command that accepts it), else `undefined`: a gateway answers
   * a call of a withheld tool with it instead of "no such tool".
   */
  readonly pinRefusal?: (toolId: string) => Promise<ToolError | undefined>;
}

/**
 * Where a toolkit keeps its {@link ToolkitHost}. A registered symbol, so a gateway that resolved
 * another copy of this package still finds it.
 */
export const TOOLKIT_HOST = Symbol.for('@toolplane/toolkit.host');
