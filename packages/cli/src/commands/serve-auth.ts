import { ToolError } from '@toolplane/toolkit';
import type { ResourceServer } from '@toolplane/oauth';
import type { CliConfig } from '../config.js';
import type { Output } from '../output.js';

/**
 * The OAuth resource server the config's `auth` section describes, for `serve --http`;
 * `undefined` without one. A bearer token given besides it (`--token`, `--token-file`, the
 * environment) is refused: the two modes are exclusive.
 *
 * @throws {ToolError} `invalid_argument` when a static token is given too; `invalid_config`
 * for a scope map `@toolplane/oauth` refuses.
 */
export async function resourceServerFor(
  cfg: CliConfig,
  staticToken: string | undefined,
): Promise<ResourceServer | undefined> {
  const auth = cfg.auth;
  if (auth === undefined) return undefined;
  if (staticToken !== undefined) {
    throw new ToolError(
      'invalid_argument',
      'the config has an auth section (OAuth), so a static bearer token (--token, --token-file or TOOLPLANE_TOKEN) cannot be used too; drop one of them',
    );
  }
  // OAuth (jose and its JWKS cache) loads only for a config with an auth section.
  const { createResourceServer } = await import('@toolplane/oauth');
  return createResourceServer({
    issuer: auth.issuer,
    ...(auth.audience === undefined ? {} : { audience: auth.audience }),
    ...(auth.scopes === undefined ? {} : { scopes: auth.scopes }),
    ...(auth.challengeScopes === undefined ? {} : { challengeScopes: auth.challengeScopes }),
    ...(auth.introspection === undefined ? {} : { introspection: auth.introspection }),
    ...(auth.requireAccessTokenType === undefined
      ? {}
      : { requireAccessTokenType: auth.requireAccessTokenType }),
    resourceName: 'toolplane gateway',
  });
}

/**
 * Reads the issuer's metadata once at start, so a wrong issuer shows at once; an issuer that
 * does not answer yet is only a warning (every request asks again).
 */
export async function checkIssuer(
  output: Output,
  auth: ResourceServer,
  signal: AbortSignal,
): Promise<void> {
  try {
    await auth.discover({ signal });
  } catch (error) {
    if (signal.aborted) return;
    output.say(
      `${output.errColor.yellow('warning')} OAuth: ${error instanceof Error ? error.message : String(error)}; requests are refused (503) until it answers`,
    );
  }
}

/** Says where clients get tokens, after the gateway's URL is printed. */
export async function printAuthHelp(
  output: Output,
  auth: ResourceServer,
  url: string,
): Promise<void> {
  const { metadataUrl } = await import('@toolplane/oauth');
  const c = output.errColor;
  output.say(
    `${c.green('OAuth')}: clients need an access token from ${c.bold(auth.issuer)} for resource ${c.bold(auth.resource(url))}`,
  );
  output.say(c.dim(`  protected resource metadata: ${metadataUrl(auth.resource(url))}`));
  if (auth.policy.restricts) output.say(c.dim(`  scopes: ${auth.policy.scopes.join(', ')}`));
}
