import { ToolError } from '@toolplane/toolkit';
import type { OAuthStatus } from '@toolplane/toolkit/oauth';
import type { Command } from 'commander';
import type { CliConfig, ConnectorConfig } from '../config.js';
import { connectorOAuth, openCredentials, type OpenCredentials } from '../oauth-clients.js';
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
        const status = await oauth.login({
          onAuthorizationUrl: (url) => {
            output.say(`Open this URL in a browser to log in to "${connector.namespace}":`);
            output.out(url.href);
          },
          timeoutMs: Number(options.timeout),
          signal: context.signal,
          ...(scopes === undefined || scopes.length === 0 ? {} : { scopes }),
          ...(redirectUri === undefined ? {} : { redirectUrl: redirectUri }),
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
      if (output.json) {
        output.data({ servers: rows });
        return;
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
        'no server in the config has an "auth" key',
      );
    });

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
