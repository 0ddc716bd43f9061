import type { TestOAuthServer } from '@toolplane/fixtures/oauth';

/**
 * The config of an MCP server at `url` that the CLI reaches with OAuth client credentials: the
 * authorization server's machine client, its secret read from `${M2M_SECRET}`, for `tools:read`.
 */
export function clientCredentialsServer(as: TestOAuthServer, url: URL): object {
  return {
    url: url.href,
    auth: {
      grant: 'client_credentials',
      clientId: as.machine.clientId,
      clientSecret: '${M2M_SECRET}',
      scopes: ['tools:read'],
    },
  };
}
