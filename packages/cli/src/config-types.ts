// The shapes a loaded config takes (what `loadConfig` and `parseConfig` answer); the schemas of
// the file itself are in config-schema.ts.
import type { AuthFailureLimitOptions, GatewayToolFilter } from '@toolplane/gateway';
import type { ConnectorSource, ToolkitApprovalOptions } from '@toolplane/toolkit';
import type { z } from 'zod';
import type { codeModeSchema, embeddingsSchema } from './config-schema.js';
import type { Secrets } from './secrets.js';

/** One upstream MCP server of a {@link CliConfig}. */
export interface ConnectorConfig {
  /** The key it has under `mcpServers` (or `connectors`) in the file. */
  readonly key: string;
  /** The namespace its tools appear under. */
  readonly namespace: string;
  readonly transport: 'stdio' | 'http';
  readonly source: ConnectorSource;
  /** How to show the source to people: a command line or a URL, secrets masked. */
  readonly display: string;
  /** One connection for every client (`shared`) or one per client session (`per-session`). */
  readonly connection: 'shared' | 'per-session';
  /**
   * The MCP era to speak: `auto` (negotiate, the default), `2025` or `2026`; see the toolkit's
   * `ConnectorOptions.era`.
   */
  readonly era: 'auto' | '2025' | '2026';
  /** OAuth for a protected HTTP server (its `auth` key); see {@link ConnectorAuthConfig}. */
  readonly auth?: ConnectorAuthConfig;
  /**
   * How long a stdio server may take to start (its `timeout` key); the toolkit's default (60 s)
   * when absent. See the toolkit's `ConnectorOptions.startTimeoutMs`.
   */
  readonly startTimeoutMs?: number;
}

/** How a connector authorizes with a protected HTTP server (`toolplane auth login`). */
export interface ConnectorAuthConfig {
  /** `authorization_code` (a person logs in once; the default) or `client_credentials`. */
  readonly grant: 'authorization_code' | 'client_credentials';
  /** A pre-registered client; without one the client registers itself where allowed. */
  readonly clientId?: string;
  /** Its secret, usually `${NAME}` from the environment (masked in all output). */
  readonly clientSecret?: string;
  /**
   * A PEM private key for `private_key_jwt` client authentication (read from `privateKeyFile`,
   * relative to the config file, or given inline, usually `${NAME}`); masked in all output.
   */
  readonly privateKey?: string;
  /** The assertion's JWS algorithm, when the key's type does not decide it. */
  readonly privateKeyAlg?: string;
  readonly scopes?: readonly string[];
  /** An https URL of a client ID metadata document. */
  readonly clientMetadataUrl?: string;
  /** A fixed loopback redirect URI, for a client registered with one. */
  readonly redirectUri?: string;
}

/** What one OAuth scope grants (the `auth.scopes` entries); see `@toolplane/oauth`. */
export interface ScopeGrantConfig {
  readonly namespaces?: readonly string[];
  readonly tools?: readonly string[];
  readonly tags?: readonly string[];
  readonly prompts?: readonly string[];
  readonly resources?: readonly string[];
}

/** The gateway as an OAuth 2.1 resource server (the `auth` key); exclusive with `http.token`. */
export interface AuthConfig {
  /** The authorization server's issuer URL; its keys are found by discovery. */
  readonly issuer: string;
  /** The audience tokens must name; default: the gateway's own URL, e.g. `http://127.0.0.1:8808/mcp`. */
  readonly audience?: string;
  /** Scopes and the namespaces, tools, tags, prompts and resources each grants. */
  readonly scopes?: Readonly<Record<string, ScopeGrantConfig>>;
  /** The scopes a 401 suggests (default: every mapped scope). */
  readonly challengeScopes?: readonly string[];
  /** RFC 7662 introspection of opaque tokens: the gateway's own client credentials. */
  readonly introspection?: {
    readonly clientId: string;
    readonly clientSecret: string;
    readonly endpoint?: string;
    /** How long active answers are kept; `false`: not at all. */
    readonly cache?: false | { readonly maxTtlSec?: number; readonly maxEntries?: number };
  };
  /**
   * Refuse a JWT whose header is not `typ: at+jwt` (RFC 9068 §4), so no other JWT of the issuer
   * passes as an access token. Default `false`: many issuers still type access tokens `JWT`.
   */
  readonly requireAccessTokenType?: boolean;
}

/** Where the `user` namespace is kept. */
export type StoreConfig =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly connectionString: string; readonly schema?: string }
  | { readonly kind: 'memory' };

/** The `search` section: whether search learns from use, and where embeddings come from. */
export interface SearchConfig {
  readonly learn: boolean;
  readonly embeddings?: z.infer<typeof embeddingsSchema>;
}

/** `codeMode:` of a config file: `@toolplane/codemode`'s bounds of one run, all optional. */
export type CodeModeBounds = z.infer<typeof codeModeSchema>;

/** A loaded, validated configuration with every path made absolute; see {@link loadConfig}. */
export interface CliConfig {
  /** The file it came from, or `undefined` for an empty configuration. */
  readonly file: string | undefined;
  /** The directory relative paths in the file are resolved against. */
  readonly dir: string;
  readonly connectors: readonly ConnectorConfig[];
  /** Whether the builtin tools (time, JSON, text) are served. */
  readonly builtins: boolean;
  /** The builtins' worker threads, and how many one caller may hold (defaults when absent). */
  readonly builtinWorkers?: { readonly threads?: number; readonly perCaller?: number };
  /** The directory of markdown prompts, when there is one. */
  readonly promptsDir: string | undefined;
  readonly store: StoreConfig;
  /** How the gateway lists tools: all of them, search/describe/call only, or search/describe/run_code. */
  readonly mode: 'tools' | 'search' | 'code';
  /** The bounds of each code-mode run (`codeMode:`); codemode's defaults for those absent. */
  readonly codeMode: CodeModeBounds;
  /** How tools are searched: learning from use, and embeddings when configured. */
  readonly search: SearchConfig;
  readonly naming: { readonly separator?: string; readonly transparent?: string };
  readonly instructions: string | undefined;
  /**
   * How long `serve` waits for every server's first connection attempt (connected or failed)
   * before it serves, in milliseconds; a server still connecting then joins later.
   */
  readonly waitMs: number;
  /**
   * Which calls a person approves before they run (`approval:`), asked of the calling client by
   * MCP elicitation; absent: no call asks.
   */
  readonly approval?: ToolkitApprovalOptions;
  /**
   * Whether a mistake found only once servers connect (a `tools` filter entry that matches no
   * tool; for `serve`, an approval pattern that matches none) is an error at start instead of a
   * warning; `strict: true` or `--strict`.
   */
  readonly strict: boolean;
  /** Bounds on per-session servers' connections (`max` per server, `idleMs`); toolkit defaults. */
  readonly sessionConnections: { readonly max?: number; readonly idleMs?: number };
  /**
   * How often every connected server is pinged, in milliseconds, so one that died while idle (a
   * stateless HTTP server, a hung process) leaves `connected`; 0 turns pings off.
   */
  readonly pingIntervalMs: number;
  /**
   * What a tool whose server changed its definition since it was pinned gets: `block` withholds
   * it, `warn` (the default) serves it flagged, `off` pins nothing. See the README's "Pinning".
   */
  readonly pinning: 'block' | 'warn' | 'off';
  /** Tool filters by namespace, from each server's `tools` key. */
  readonly filter: Readonly<Record<string, GatewayToolFilter>>;
  readonly http: {
    readonly host: string;
    readonly port: number;
    readonly path: string;
    readonly token?: string;
    readonly allowedOrigins?: readonly string[];
    /** `Host` names accepted besides the bound host (a load balancer's public name). */
    readonly allowedHosts?: readonly string[];
    readonly stateless?: boolean;
    /** Bounds of the HTTP server; see `serveHttp`'s options of the same names. */
    readonly maxSessions?: number;
    readonly sessionIdleMs?: number;
    readonly maxConnections?: number;
    readonly maxConnectionsPerSource?: number;
    /** Reverse proxies whose `X-Forwarded-For` is believed (addresses or subnets). */
    readonly trustedProxies?: readonly string[];
    /** The limit on failed authentications per source, or `false` for none. */
    readonly authFailureLimit?: AuthFailureLimitOptions | false;
    readonly headersTimeoutMs?: number;
    /** How long a POST's answer waits for its responses before it becomes an SSE stream. */
    readonly streamAfterMs?: number;
    /** This process's name behind a load balancer, and the drain bound; see `fleet.ts`. */
    readonly instanceId?: string;
    readonly drainMs?: number;
    /** Tools whose 2026 calls may be replayed on another instance; see `GatewayOptions`. */
    readonly replayTools?: readonly string[];
  };
  /** How `serve` logs: text lines (default) or JSON lines, the least level, and arguments. */
  readonly log: {
    readonly format: 'text' | 'json';
    readonly level: 'debug' | 'info' | 'warn' | 'error';
    /** Whether audit lines carry each call's arguments (masked); default false. */
    readonly arguments: boolean;
  };
  /** Where traces go: an OTLP/HTTP endpoint, when the file has `telemetry.otlp`. */
  readonly telemetry: {
    readonly otlp?: { readonly url: string; readonly headers?: Readonly<Record<string, string>> };
  };
  /** OAuth 2.1 for the HTTP gateway, when the file has an `auth` section. */
  readonly auth?: AuthConfig;
  /** Every secret value in the file, for masking output. */
  readonly secrets: Secrets;
}
