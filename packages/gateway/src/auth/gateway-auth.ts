/**
 * Who made a request, as the gateway's OAuth resource server verified its access token. Holds
 * no part of the token.
 */
export interface GatewayCaller {
  readonly subject: string | undefined;
  readonly clientId: string | undefined;
  readonly scopes: readonly string[];
  readonly issuer: string;
  readonly expiresAt: number | undefined;
}

/** The fields of a tool a scope policy looks at. */
export interface AuthTool {
  readonly namespace: string;
  readonly name: string;
  readonly tags?: readonly string[];
}

/** The fields of a prompt a scope policy looks at. */
export interface AuthPrompt {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The fields of a resource a scope policy looks at: its URI as its server lists it (before the
 * gateway rewrites a shared one), or a resource template's URI template.
 */
export interface AuthResource {
  readonly namespace: string;
  readonly uri: string;
}

/**
 * A refusal from {@link GatewayAuth}: `status` to answer with, `reason` as RFC 6750 names it
 * (`missing_token` for a request without one), the scopes that would be enough, and, for an
 * authorization server that could not be asked, when to try again (sent as `Retry-After`).
 */
export interface AuthRefusal extends Error {
  readonly status: number;
  readonly reason: string;
  readonly scopes: readonly string[];
  readonly retryAfterSec?: number | undefined;
}

/**
 * What {@link serveHttp} needs of an OAuth 2.1 resource server (`auth` option). The gateway does
 * not verify tokens itself: `createResourceServer` from `@toolplane/oauth` makes one of these
 * (with `jose`), so the gateway carries no JWT code of its own.
 */
export interface GatewayAuth {
  /** The RFC 9728 metadata document for requests to `endpoint`. */
  metadata(endpoint: URL): object;
  /** Whether `pathname` is where that document is served. */
  isMetadataPath(pathname: string, endpoint: URL): boolean;
  /** Resolves to the caller, or rejects with an {@link AuthRefusal}. */
  authenticate(
    authorization: string | undefined,
    options: { endpoint: URL; signal?: AbortSignal },
  ): Promise<GatewayCaller>;
  /** Whether `caller` may see and call `tool`. */
  allows(caller: GatewayCaller, tool: AuthTool): boolean;
  /** Throws an {@link AuthRefusal} (`insufficient_scope`) when `caller` may not call `tool`. */
  requireTool(caller: GatewayCaller, tool: AuthTool): void;
  /** Whether `caller` may see `prompt`, get it and complete its arguments. */
  allowsPrompt(caller: GatewayCaller, prompt: AuthPrompt): boolean;
  /** Throws an {@link AuthRefusal} (`insufficient_scope`) when `caller` may not get `prompt`. */
  requirePrompt(caller: GatewayCaller, prompt: AuthPrompt): void;
  /** Whether `caller` may see `resource` (or a template), read it and subscribe to it. */
  allowsResource(caller: GatewayCaller, resource: AuthResource): boolean;
  /** Throws an {@link AuthRefusal} (`insufficient_scope`) when `caller` may not read `resource`. */
  requireResource(caller: GatewayCaller, resource: AuthResource): void;
  /** The `WWW-Authenticate` value for a refusal. */
  challenge(refusal: AuthRefusal | undefined, endpoint: URL): string;
}

/**
 * An `insufficient_scope` refusal the gateway makes itself (of a whole route, not one item), so
 * that its message names no item the caller may not see.
 */
export class ScopeRefusal extends Error implements AuthRefusal {
  override name = 'ScopeRefusal';
  readonly status = 403;
  readonly reason = 'insufficient_scope';
  readonly scopes: readonly string[];

  constructor(message: string, scopes: readonly string[]) {
    super(message);
    this.scopes = scopes;
  }
}

/**
 * The refusal (401 `invalid_token`) of a token that names neither a subject (`sub`) nor a client
 * (`client_id`): the gateway ties sessions, request states and per-caller shares to who a caller
 * is, and such a token would make all its holders one caller.
 */
export class AnonymousRefusal extends Error implements AuthRefusal {
  override name = 'AnonymousRefusal';
  readonly status = 401;
  readonly reason = 'invalid_token';
  readonly scopes: readonly string[] = [];

  constructor() {
    super(
      'the token names neither a subject (sub) nor a client (client_id); the gateway needs one ' +
        'to tell its sessions apart: have the authorization server include it',
    );
  }
}

/** Whether `error` is a refusal a {@link GatewayAuth} threw (any other error is a bug). */
export function isAuthRefusal(error: unknown): error is AuthRefusal {
  return (
    error instanceof Error &&
    typeof (error as Partial<AuthRefusal>).status === 'number' &&
    typeof (error as Partial<AuthRefusal>).reason === 'string' &&
    Array.isArray((error as Partial<AuthRefusal>).scopes)
  );
}
