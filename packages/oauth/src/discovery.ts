import { checkDuration, optionKeys, refuseUnknownOptions } from '@toolplane/toolmodel';
import { authErrorIn, boundedFetch } from './bounded-fetch.js';
import { AuthError } from './errors.js';

/** The members of RFC 8414 / OpenID discovery metadata this package reads. */
export interface AuthorizationServerMetadata {
  readonly issuer: string;
  readonly jwks_uri?: string;
  readonly introspection_endpoint?: string;
  readonly token_endpoint?: string;
  readonly [member: string]: unknown;
}

/** Options of {@link discoverAuthorizationServer}. */
export interface DiscoveryOptions {
  readonly signal?: AbortSignal;
  /** The `fetch` to use (default the global one); a document past 1 MiB is refused. */
  readonly fetch?: typeof fetch;
  /** Give up on one document after this long (default 5 s). */
  readonly timeoutMs?: number;
}

/**
 * The URLs an issuer's metadata may be at, in the order the MCP authorization spec tries them:
 * RFC 8414 (path inserted after the well-known prefix), OpenID discovery with the path inserted,
 * then OpenID discovery appended to the issuer (OpenID Connect Discovery 1.0 §4).
 */
export function discoveryUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '') {
    return [
      `${url.origin}/.well-known/oauth-authorization-server`,
      `${url.origin}/.well-known/openid-configuration`,
    ];
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

const DISCOVERY_KEYS = optionKeys<DiscoveryOptions>({ signal: true, fetch: true, timeoutMs: true });

/**
 * Fetches the authorization server's metadata for `issuer` (RFC 8414, then OpenID discovery),
 * and checks that the document names the same issuer (RFC 8414 §3.3), so a document served for
 * another issuer is never trusted.
 *
 * @throws {AuthError} `unavailable` when no URL answered a JSON object (an error status, a body
 * that is not JSON or is larger than 1 MiB: each failure is named), or the document found names
 * another issuer.
 */
export async function discoverAuthorizationServer(
  issuer: string,
  options: DiscoveryOptions = {},
): Promise<AuthorizationServerMetadata> {
  const code = 'invalid_config';
  refuseUnknownOptions(options, DISCOVERY_KEYS, 'discoverAuthorizationServer', { code });
  if (options.timeoutMs !== undefined) {
    checkDuration(options.timeoutMs, 'discoverAuthorizationServer timeoutMs', {
      code,
      whole: true,
    });
  }
  const fetchFn = boundedFetch(options.fetch ?? fetch);
  const failures: string[] = [];
  for (const url of discoveryUrls(issuer)) {
    const signal = AbortSignal.any([
      AbortSignal.timeout(options.timeoutMs ?? 5_000),
      ...(options.signal === undefined ? [] : [options.signal]),
    ]);
    let response: Response;
    try {
      response = await fetchFn(url, { headers: { accept: 'application/json' }, signal });
    } catch (error) {
      if (options.signal?.aborted === true) throw error;
      failures.push(`${url}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      failures.push(`${url}: HTTP ${String(response.status)}`);
      continue;
    }
    // A body that is not a metadata document (a web app's catch-all page answering 200 for
    // every path, say) is a failure of this URL: the next one may be the issuer's document.
    let document: unknown;
    try {
      document = await response.json();
    } catch (error) {
      if (options.signal?.aborted === true) throw error;
      failures.push(authErrorIn(error)?.message ?? `${url}: not JSON`);
      continue;
    }
    if (typeof document !== 'object' || document === null || Array.isArray(document)) {
      failures.push(`${url}: not a JSON object`);
      continue;
    }
    const metadata = document as AuthorizationServerMetadata;
    if (metadata.issuer !== issuer) {
      throw new AuthError(
        'unavailable',
        `the metadata at ${url} names issuer ${JSON.stringify(metadata.issuer)}, not ${JSON.stringify(issuer)}; check the configured issuer`,
      );
    }
    return metadata;
  }
  throw new AuthError(
    'unavailable',
    `no authorization server metadata found for issuer ${issuer} (${failures.join('; ')})`,
  );
}
