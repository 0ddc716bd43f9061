import type {
  AuthorizationServerMetadata,
  FetchLike,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/** What {@link revokeTokens} needs. */
export interface RevokeOptions {
  readonly tokens: StoredOAuthTokens;
  readonly client: StoredOAuthClientInformation;
  readonly metadata: AuthorizationServerMetadata | undefined;
  readonly fetch: FetchLike;
  readonly signal?: AbortSignal;
}

/**
 * Revokes the refresh token, then the access token (RFC 7009), at the revocation endpoint of the
 * issuer that minted them, authenticating as the client did at its token endpoint. Resolves
 * whether the server took the revocation of the refresh token (of the access token when there is
 * none; a server may refuse to revoke a self-contained JWT access token, which then lives out its
 * short life); `false` when it has no revocation endpoint.
 */
export async function revokeTokens(options: RevokeOptions): Promise<boolean> {
  const metadata: Record<string, unknown> = { ...options.metadata };
  const endpoint = metadata.revocation_endpoint;
  if (typeof endpoint !== 'string') return false;
  const { client, tokens } = options;
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const base: Record<string, string> = {};
  if (client.client_secret === undefined) base.client_id = client.client_id;
  else {
    const pair = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  }
  const each: [string, string][] = [];
  if (tokens.refresh_token !== undefined) each.push([tokens.refresh_token, 'refresh_token']);
  each.push([tokens.access_token, 'access_token']);
  let first: boolean | undefined;
  for (const [token, hint] of each) {
    try {
      const body = new URLSearchParams({ ...base, token, token_type_hint: hint });
      const answer = await options.fetch(endpoint, {
        method: 'POST',
        headers,
        body,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      await answer.arrayBuffer().catch(() => undefined);
      first ??= answer.ok;
    } catch {
      first ??= false;
    }
  }
  return first ?? false;
}
