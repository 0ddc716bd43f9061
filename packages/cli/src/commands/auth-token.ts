// `toolplane auth token`: an access token for the gateway itself (top-level `auth`: the gateway as
// resource server), from its authorization server by the client credentials grant, so a
// gateway in OAuth mode can be tried with curl or the Inspector without writing a client.
import { ToolError } from '@toolplane/toolkit';
import type { Command } from 'commander';
import type { CliConfig } from '../config.js';
import { integerFlag } from './integer-flag.js';
import type { CommandContext } from './shared.js';

/** Where `auth token` reads the client secret from, so that it never shows in `ps`. */
export const CLIENT_SECRET_VARIABLE = 'TOOLPLANE_CLIENT_SECRET';

interface TokenOptions {
  issuer?: string;
  clientId: string;
  resource?: string;
  scope?: string[];
  timeout: number;
}

/** How long `auth token` waits for each answer of the authorization server by default, in ms. */
const DEFAULT_TIMEOUT_MS = 30_000;

/** The gateway's own URL as `serve --http` prints it: what tokens must name by default. */
export function gatewayResource(cfg: CliConfig): string {
  if (cfg.auth?.audience !== undefined) return cfg.auth.audience;
  return `http://${cfg.http.host}:${String(cfg.http.port)}${cfg.http.path}`;
}

/** Registers `auth token` under the `auth` command. */
export function registerAuthToken(auth: Command, context: CommandContext): void {
  const { output, config } = context;
  auth
    .command('token')
    .description(
      `print an access token for this gateway (top-level auth) by the client credentials grant; the client secret comes from ${CLIENT_SECRET_VARIABLE}`,
    )
    .requiredOption('--client-id <id>', 'a client the authorization server allows that grant')
    .option('--issuer <url>', 'the authorization server (default: auth.issuer in the config)')
    .option(
      '--resource <url>',
      "the resource the token is for (default: auth.audience, else the gateway's URL)",
    )
    .option('--scope <scopes...>', 'scopes to ask for')
    .option(
      '--timeout <ms>',
      'how long to wait for each answer of the authorization server',
      integerFlag('--timeout', 1, 600_000),
      DEFAULT_TIMEOUT_MS,
    )
    .action(async (options: TokenOptions) => {
      const cfg = await config();
      const token = await clientCredentialsToken(context, cfg, options);
      if (output.json) output.data({ access_token: token });
      else output.out(token);
    });
}

async function clientCredentialsToken(
  context: CommandContext,
  cfg: CliConfig,
  options: TokenOptions,
): Promise<string> {
  const issuer = options.issuer ?? cfg.auth?.issuer;
  if (issuer === undefined) {
    throw new ToolError(
      'invalid_argument',
      'no authorization server: give --issuer, or a top-level auth: { issuer } in the config',
    );
  }
  const secret = context.env[CLIENT_SECRET_VARIABLE] ?? '';
  if (secret === '') {
    throw new ToolError(
      'invalid_argument',
      `set ${CLIENT_SECRET_VARIABLE} to the client's secret (kept out of the command line, where ps shows it)`,
    );
  }
  const { discoverAuthorizationServer } = await import('@toolplane/oauth');
  // Each request ends at Ctrl-C or after --timeout, whichever comes first.
  const bounded = (): AbortSignal =>
    AbortSignal.any([context.signal, AbortSignal.timeout(options.timeout)]);
  const failed = (what: string, error: unknown, signal: AbortSignal): ToolError =>
    signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError'
      ? new ToolError('timeout', `${what}: no answer in ${String(options.timeout)} ms`, {
          cause: error,
        })
      : new ToolError('connector_unavailable', `${what}: ${(error as Error).message}`, {
          cause: error,
        });
  let endpoint: string | undefined;
  const discovering = bounded();
  try {
    endpoint = (await discoverAuthorizationServer(issuer, { signal: discovering })).token_endpoint;
  } catch (error) {
    throw failed(`cannot read the metadata of ${issuer}`, error, discovering);
  }
  if (endpoint === undefined) {
    throw new ToolError('connector_unavailable', `${issuer} names no token_endpoint`);
  }
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    resource: options.resource ?? gatewayResource(cfg),
  });
  const scopes = options.scope?.flatMap((s) => s.split(/[\s,]+/)).filter((s) => s !== '');
  if (scopes !== undefined && scopes.length > 0) body.set('scope', scopes.join(' '));
  const basic = Buffer.from(
    `${encodeURIComponent(options.clientId)}:${encodeURIComponent(secret)}`,
  ).toString('base64');
  let response: Response;
  let answer: { access_token?: unknown; error?: unknown; error_description?: unknown };
  const asking = bounded();
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body,
      signal: asking,
    });
    answer = (await response.json().catch((error: unknown) => {
      if (asking.aborted) throw error;
      return {};
    })) as typeof answer;
  } catch (error) {
    throw failed(`cannot reach ${endpoint}`, error, asking);
  }
  if (!response.ok || typeof answer.access_token !== 'string') {
    const why = [answer.error, answer.error_description].filter((x) => typeof x === 'string');
    throw new ToolError(
      'unauthorized',
      `${endpoint} refused the client credentials grant (HTTP ${String(response.status)}${why.length > 0 ? `: ${why.join(': ')}` : ''}); check the client ID, ${CLIENT_SECRET_VARIABLE} and that the client may use that grant for ${body.get('resource') ?? ''}`,
    );
  }
  return answer.access_token;
}
