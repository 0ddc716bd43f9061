import { ToolError } from '@toolplane/toolkit';
import type { OAuthStatus } from '@toolplane/toolkit/oauth';
import type { Command } from 'commander';
import type { CliConfig, ConnectorConfig } from '../config.js';
import { connectorOAuth, openCredentials, type OpenCredentials } from '../oauth-clients.js';
import { CLIENT_SECRET_VARIABLE, gatewayResource, registerAuthToken } from './auth-token.js';
import type { CommandContext } from './shared.js';

function protectedServer(cfg: CliConfig, server: string): ConnectorConfig {
  const found = cfg.connectors.find((c) => c.namespace === server || c.key === server);
  if (found === undefined) {
    const known = cfg.connectors.map((c) => c.namespace).join(', ') || 'none';
    throw new ToolError(
      'invalid_argument',
      `no server "${server}" in the config (servers: ${known})`,
    );
  }
  if (found.auth === undefined) {
    throw new ToolError(
      'invalid_argument',
      `server "${server}" has no "auth" key in the config: add auth: { grant: authorization_code } under it`,
    );
  }
  return found;
}

/** Network failures: the server (or its authorization server) is not there to answer. */
const UNREACHABLE =
  /fetch failed|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH/;

/** The whole chain of causes, as text, to tell a network failure from a refusal. */
function causeText(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 8; depth++) {
    if (!(e instanceof Error)) break;
    const code = (e as Error & { code?: unknown }).code;
    parts.push(e.message, typeof code === 'string' ? code : '');
    e = e.cause;
  }
  return parts.join(' ');
}

/**
 * `connector_unavailable` (exit 5) naming the server's URL for a login that could not reach it;
 * any other error as it is.
 */
function unreachableInstead(connector: ConnectorConfig, error: unknown): unknown {
  const text = causeText(error);
  if (!UNREACHABLE.test(text)) return error;
  const where =
    typeof connector.source === 'object' && 'url' in connector.source
      ? String(connector.source.url)
      : connector.display;
  const code = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH/.exec(text)?.[0];
  return new ToolError(
    'connector_unavailable',
    `cannot reach ${where} to log in to "${connector.namespace}"${code === undefined ? '' : ` (${code})`}: check that the server is running and that its "url" in the config is right`,
    { cause: error },
  );
}

function expiry(status: OAuthStatus): string {
  return status.expiresAt === undefined ? '' : new Date(status.expiresAt).toISOString();
}

async function withCredentials(
  context: CommandContext,
  cfg: CliConfig,
  work: (credentials: OpenCredentials) => Promise<void>,
): Promise<void> {
  const credentials = await openCredentials(cfg.store, {
    env: context.env,
    signal: context.signal,
  });
  try {
    await work(credentials);
  } finally {
    await credentials.close();
  }
}

/** `toolplane auth login|status|logout`, under the `auth` command. */
export function registerAuth(auth: Command, context: CommandContext): void {
  const { output, config } = context;

  auth
    .command('login <server>')
    .description('log in to a protected server: open the printed URL, then wait for the redirect')
    .option('--scope <scopes...>', 'scopes to ask for instead of the configured ones')
    .option('--timeout <ms>', 'how long to wait for the redirect', '300000')
    .action(async (server: string, options: { scope?: string[]; timeout: string }) => {
      const cfg = await config();
      const connector = protectedServer(cfg, server);
      await withCredentials(context, cfg, async ({ store }) => {
        const oauth = connectorOAuth(connector, store);
        if (oauth === undefined)
          throw new ToolError('invalid_argument', `server "${server}" is not an HTTP server`);
        const scopes = options.scope?.flatMap((s) => s.split(/[\s,]+/)).filter((s) => s !== '');
        const redirectUri = connector.auth?.redirectUri;
        const status = await oauth
          .login({
            onAuthorizationUrl: (url) => {
              output.say(`Open this URL in a browser to log in to "${connector.namespace}":`);
              output.out(url.href);
            },
            timeoutMs: Number(options.timeout),
            signal: context.signal,
            ...(scopes === undefined || scopes.length === 0 ? {} : { scopes }),
            ...(redirectUri === undefined ? {} : { redirectUrl: redirectUri }),
          })
          .catch((error: unknown) => {
            throw unreachableInstead(connector, error);
          });
        if (output.json) output.data({ login: status });
        else
          output.say(
            `logged in to "${connector.namespace}" (scopes: ${status.scopes.join(' ') || 'none'})`,
          );
      });
    });

  auth
    .command('status')
    .description(
      'for each protected server: logged in or not, until when, which scopes (never a token)',
    )
    .action(async () => {
      const cfg = await config();
      const servers = cfg.connectors.filter((c) => c.auth !== undefined);
      const rows: OAuthStatus[] = [];
      if (servers.length > 0) {
        await withCredentials(context, cfg, async ({ store }) => {
          for (const connector of servers) {
            const oauth = connectorOAuth(connector, store);
            if (oauth !== undefined) rows.push(await oauth.status());
          }
        });
      }
      // The top-level `auth` is the other direction: clients log in to the gateway.
      const gateway =
        cfg.auth === undefined
          ? undefined
          : {
              issuer: cfg.auth.issuer,
              resource: gatewayResource(cfg),
              scopes: Object.keys(cfg.auth.scopes ?? {}),
            };
      if (output.json) {
        output.data({ ...(gateway === undefined ? {} : { gateway }), servers: rows });
        return;
      }
      if (gateway !== undefined) {
        output.say(
          `gateway (top-level auth): serve --http is an OAuth resource server; its clients need an access token from ${gateway.issuer} for ${gateway.resource}${gateway.scopes.length > 0 ? ` (scopes: ${gateway.scopes.join(' ')})` : ''}`,
        );
        output.say(
          `  a test token: ${CLIENT_SECRET_VARIABLE}=… toolplane auth token --client-id <id>`,
        );
        output.say('servers (per-server auth: the gateway logs in to them):');
      }
      output.table(
        ['SERVER', 'GRANT', 'STATE', 'EXPIRES', 'SCOPES'],
        rows.map((r) => [
          output.color.cyan(r.server),
          r.grant,
          r.loggedIn ? output.color.green('logged in') : output.color.red('not logged in'),
          expiry(r),
          r.scopes.join(' '),
        ]),
        gateway === undefined
          ? 'no server in the config has an "auth" key (a server\'s auth is the gateway logging in to it; the top-level auth protects the gateway itself)'
          : '  none has an "auth" key: the gateway logs in to no server',
      );
    });

  registerAuthToken(auth, context);

  auth
    .command('logout <server>')
    .description('revoke the tokens where the server allows it, and delete them')
    .action(async (server: string) => {
      const cfg = await config();
      const connector = protectedServer(cfg, server);
      await withCredentials(context, cfg, async ({ store }) => {
        const oauth = connectorOAuth(connector, store);
        if (oauth === undefined) return;
        const { revoked } = await oauth.logout({ signal: context.signal });
        if (output.json) output.data({ logout: { server: connector.namespace, revoked } });
        else
          output.say(
            `logged out of "${connector.namespace}"${revoked ? ' (tokens revoked)' : ' (tokens deleted; the server revoked nothing)'}`,
          );
      });
    });
}
