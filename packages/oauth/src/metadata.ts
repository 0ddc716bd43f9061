import { canonicalResource } from '@toolplane/toolmodel';

/** The well-known prefix of RFC 9728 protected resource metadata. */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * Where a resource's metadata is served (RFC 9728 §3.1): the well-known prefix with the
 * resource's path appended (`/.well-known/oauth-protected-resource/mcp`), which is the URL the
 * `resource_metadata` challenge names; a resource at the root has only the bare form.
 */
export function metadataPath(resource: string | URL): string {
  const path = new URL(canonicalResource(resource)).pathname;
  return path === '/' || path === ''
    ? PROTECTED_RESOURCE_WELL_KNOWN
    : `${PROTECTED_RESOURCE_WELL_KNOWN}${path}`;
}

/** The absolute URL of {@link metadataPath} on the resource's origin. */
export function metadataUrl(resource: string | URL): string {
  const url = new URL(canonicalResource(resource));
  return `${url.origin}${metadataPath(url)}`;
}

/** An RFC 9728 protected resource metadata document (the members this package sets). */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly bearer_methods_supported: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly resource_name?: string;
  readonly resource_documentation?: string;
}

/** Options of {@link protectedResourceMetadata}. */
export interface ProtectedResourceMetadataOptions {
  /** The resource's canonical URI. */
  readonly resource: string | URL;
  /** Issuer URLs of the authorization servers whose tokens it accepts. */
  readonly authorizationServers: readonly string[];
  readonly scopesSupported?: readonly string[];
  readonly resourceName?: string;
  readonly resourceDocumentation?: string;
}

/** The RFC 9728 document a client reads to find where to get a token for this resource. */
export function protectedResourceMetadata(
  options: ProtectedResourceMetadataOptions,
): ProtectedResourceMetadata {
  return {
    resource: canonicalResource(options.resource),
    authorization_servers: [...options.authorizationServers],
    // RFC 6750 §2.1 only: a token in a query string ends up in logs.
    bearer_methods_supported: ['header'],
    ...(options.scopesSupported === undefined || options.scopesSupported.length === 0
      ? {}
      : { scopes_supported: [...options.scopesSupported] }),
    ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName }),
    ...(options.resourceDocumentation === undefined
      ? {}
      : { resource_documentation: options.resourceDocumentation }),
  };
}

/** Options of {@link bearerChallenge}. */
export interface BearerChallengeOptions {
  /** The URL of the resource's metadata document (see {@link metadataUrl}). */
  readonly resourceMetadata: string;
  /** RFC 6750 error code; none for a request that carried no token. */
  readonly error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  readonly description?: string;
  /** Scopes that would be enough (sent with `insufficient_scope`, and on a first 401 as a hint). */
  readonly scopes?: readonly string[];
}

/**
 * The `WWW-Authenticate` value of a refusal (RFC 6750 §3, RFC 9728 §5.1):
 * `Bearer resource_metadata="…", error="invalid_token", error_description="…", scope="…"`.
 * Quoted values drop `"` and `\` and characters outside printable ASCII, as RFC 6750 allows.
 */
export function bearerChallenge(options: BearerChallengeOptions): string {
  const params: string[] = [`resource_metadata=${quote(options.resourceMetadata)}`];
  if (options.error !== undefined) params.push(`error=${quote(options.error)}`);
  if (options.description !== undefined) {
    params.push(`error_description=${quote(options.description)}`);
  }
  if (options.scopes !== undefined && options.scopes.length > 0) {
    params.push(`scope=${quote(options.scopes.join(' '))}`);
  }
  return `Bearer ${params.join(', ')}`;
}

function quote(value: string): string {
  return `"${value.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '')}"`;
}
