import type { Implementation } from '@modelcontextprotocol/server';
import type { CodeModeOptions } from '@toolplane/codemode';
import type { Logger } from '@toolplane/toolkit';
import type { NamingOptions } from './names.js';
import type { GatewayObserver } from './observe/observer.js';
import type { SpendRequestState } from './session/request-state.js';

/** Which of a namespace's tools a gateway exposes; deny wins over allow. */
export interface GatewayToolFilter {
  /** Only these tool names (upstream names, not exposed ones). */
  readonly allow?: readonly string[];
  /** Never these tool names. */
  readonly deny?: readonly string[];
  /** Only tools with at least one of these tags. */
  readonly allowTags?: readonly string[];
  /** Never tools with any of these tags. */
  readonly denyTags?: readonly string[];
}

/** @deprecated Renamed {@link GatewayToolFilter} (adapter-kit has a `ToolFilter` of its own); this alias goes in the next minor. */
export type ToolFilter = GatewayToolFilter;

/** Options of {@link createMcpServer}, {@link serveStdio} and {@link serveHttp}. */
export interface GatewayOptions extends NamingOptions {
  /** How the server introduces itself (default `toolplane-gateway`). */
  readonly serverInfo?: Implementation;
  /** Sent to clients in the `initialize` result. */
  readonly instructions?: string;
  /** Items per page of every list (default 1,000). */
  readonly pageSize?: number;
  /** Tool filters by namespace. */
  readonly filter?: Readonly<Record<string, GatewayToolFilter>>;
  /**
   * `'tools'` (default) lists every tool; `'search'` lists only `search_tools`, `describe_tool`
   * and `call_tool`, for catalogues too large to hand a model whole; `'code'` lists only
   * `search_tools`, `describe_tool` (a tool's TypeScript declaration) and `run_code`, whose
   * program calls the tools in @toolplane/codemode's sandbox.
   */
  readonly mode?: 'tools' | 'search' | 'code';
  /**
   * The bounds of `mode: 'code'` runs (defaults: @toolplane/codemode's `CODE_MODE_DEFAULTS`). A
   * run past `timeoutMs` fails with `timeout`, and its tool calls still in flight are cancelled
   * upstream. The filter stays the gateway's own (`filter`, and the caller's OAuth scopes).
   */
  readonly codeMode?: Omit<CodeModeOptions, 'filter'>;
  /**
   * The key that seals the `requestState` of 2026-07-28 `input_required` rounds (HMAC-SHA256);
   * at least 32 bytes; default a random one per gateway. Every instance behind one load balancer
   * needs the same key, so that a retry landing on another instance can be replayed there (see
   * `replayTools`); with keys of their own, such a retry is refused with -32602.
   */
  readonly requestStateKey?: string | Uint8Array;
  /**
   * Exposed names of tools whose 2026-07-28 calls may be run again on another instance to resume
   * their `input_required` rounds there, although they declare neither `readOnlyHint` nor
   * `idempotentHint` (those that declare either may always). A retry for any other tool that
   * lands on an instance not holding its call gets -32602 naming that instance, unless its round
   * is the gateway's approval question: asked before the call is dispatched, it is replayed
   * anywhere, whatever the tool.
   */
  readonly replayTools?: readonly string[];
  /**
   * When a call that may be replayed (see `replayTools`, and approval questions) asks for input:
   * `'always'` cancels it upstream once the round is sent and every retry runs it again, on
   * whichever instance it lands, so no call waits in one instance for a retry that went to
   * another (an approval's call is ended before it was dispatched); `'elsewhere'`
   * keeps it waiting in its instance, which resumes it, and another instance replays it only
   * when the retry lands there (the waiting call then lingers until `inputRoundTtlMs`; an
   * approval's, until the approval's `timeoutMs` or until the spent state comes back here, as
   * no instance is told when another spends a state; it ends counted `input_required`). Default
   * `'always'` when `requestStateKey` is set (a fleet), else `'elsewhere'`.
   */
  readonly replayRounds?: 'always' | 'elsewhere';
  /**
   * Records a `requestState` as used across the fleet (e.g. in the shared store), so that a state
   * serves once on any instance rather than once per instance: resolves `true` the first time
   * any instance spends `nonce`, `false` after. Without it, each instance remembers the states it
   * has seen until they expire.
   */
  readonly spendRequestState?: SpendRequestState;
  /**
   * How long a 2026-07-28 client may keep a list (`tools/list`, `prompts/list`, `resources/list`,
   * `resources/templates/list`) before asking again: its `ttlMs` cache hint (default 60 s,
   * private to the client). A change within that time still reaches clients that listen
   * (`subscriptions/listen`), which drop what they cached; `0` asks them not to cache.
   */
  readonly listTtlMs?: number;
  /** How long a 2026 client has to answer an `input_required` round (default 10 minutes). */
  readonly inputRoundTtlMs?: number;
  /**
   * Names this process among several behind one load balancer: under `INSTANCE_META_KEY` in the
   * `data._meta` of every JSON-RPC error the gateway sends, and (over HTTP) as the
   * `Toolplane-Instance` header of every answer (default: none of either).
   */
  readonly instanceId?: string;
  /** List changes within this window reach clients as one notification per kind (default 10 ms). */
  readonly notifyDelayMs?: number;
  /**
   * Where a failure the gateway does not tell its caller is logged, as an error with its message
   * and stack (default: nowhere): over HTTP, a request that fails with an error that is not a
   * `ToolError` (a route's, or a bug's) answers 500 saying only that the log has the details, as
   * its own words may name paths, hosts or credentials of the machine.
   */
  readonly logger?: Logger;
  /**
   * Hears every tool call (outcome, duration, who), HTTP answer and catalogue search, for
   * metrics and audit logs (see {@link createGatewayMetrics}); its hooks run on the request's
   * path, so they must be cheap.
   */
  readonly observe?: GatewayObserver;
  /**
   * Serve plain 2025-era tool calls on the call lane (`call-lane.ts`; default `true`); `false`
   * sends every call the SDK's way, as the parity tests compare.
   *
   * @internal
   */
  readonly callLane?: boolean;
}

/**
 * The options a running gateway can take anew ({@link ServedGateway.reconfigure}): each one
 * absent here is absent afterwards (no filter, the default mode and naming).
 */
export type GatewayReconfigure = Pick<
  GatewayOptions,
  'filter' | 'mode' | 'separator' | 'transparent' | 'instructions'
>;

/** A running gateway; see {@link serveStdio} and {@link serveHttp}. */
export interface ServedGateway {
  /**
   * Serves with new filters, naming, mode and instructions from the next request on (new
   * sessions get the new instructions); every open session stays open and hears
   * `notifications/tools/list_changed` (and prompts and resources). Calls in flight finish as
   * they started.
   */
  reconfigure(options: GatewayReconfigure): void;
  /** Closes every session (and the toolkit when `closeToolkit` was set). Idempotent. */
  close(): Promise<void>;
}
