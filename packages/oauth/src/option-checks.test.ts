// From JavaScript a misspelt option would be ignored without a word; here that can open what it
// meant to guard (`scope` for `scopes` left a policy that restricts nothing).
import { describe, expect, it } from 'vitest';
import { discoverAuthorizationServer } from './discovery.js';
import { createIntrospector } from './introspection.js';
import { createJwtVerifier } from './jwt.js';
import { createResourceServer, type ResourceServerOptions } from './resource-server.js';

const issuer = 'http://127.0.0.1:9/issuer';
/** What plain JavaScript can hand a function, past its type. */
const untyped = (options: object) => options as never;

/** The message of the `invalid_config` error `run` throws. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect((error as { code?: string }).code).toBe('invalid_config');
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('the options of the OAuth resource server', () => {
  it('refuses a misspelt key, naming the one meant, before the server exists', () => {
    expect(
      refusal(() =>
        createResourceServer(untyped({ issuer, scope: { 'tools:admin': { namespaces: ['*'] } } })),
      ),
    ).toBe('auth: unknown option "scope"; did you mean "scopes"?');
    expect(
      refusal(() => createResourceServer(untyped({ issuer, requireAccesTokenType: true }))),
    ).toBe('auth: unknown option "requireAccesTokenType"; did you mean "requireAccessTokenType"?');
    expect(
      refusal(() => createResourceServer(untyped({ issuer, jwks: { cacheMaxAgeMs: 1 } }))),
    ).toBe('auth.jwks: unknown option "cacheMaxAgeMs"; did you mean "cacheMaxAge"?');
    const introspection = { clientId: 'gateway', clientSecret: 'secret' };
    expect(
      refusal(() =>
        createResourceServer(untyped({ issuer, introspection: { ...introspection, timeout: 50 } })),
      ),
    ).toBe('auth.introspection: unknown option "timeout"; did you mean "timeoutMs"?');
    expect(
      refusal(() =>
        createResourceServer(
          untyped({ issuer, introspection: { ...introspection, cache: { maxTTLSec: 5 } } }),
        ),
      ),
    ).toBe('auth.introspection.cache: unknown option "maxTTLSec"; did you mean "maxTtlSec"?');
    for (const timeoutMs of [1.5, 0, -1, Number.NaN, 2 ** 31]) {
      expect(
        refusal(() =>
          createResourceServer({ issuer, introspection: { ...introspection, timeoutMs } }),
        ),
      ).toContain('auth.introspection.timeoutMs must be a whole number of milliseconds above 0');
    }
  });

  it('takes every key it documents', () => {
    const every: Required<ResourceServerOptions> = {
      issuer,
      audience: 'http://127.0.0.1:8808/mcp',
      scopes: { 'tools:read': { tags: ['read'] } },
      challengeScopes: ['tools:read'],
      introspection: {
        clientId: 'gateway',
        clientSecret: 'secret',
        endpoint: 'http://127.0.0.1:9/introspect',
        timeoutMs: 2_000,
        cache: { maxTtlSec: 30, maxEntries: 100 },
      },
      algorithms: ['RS256'],
      clockToleranceSec: 5,
      requireAccessTokenType: true,
      jwks: { cacheMaxAge: 60_000, cooldownDuration: 1_000, timeoutDuration: 2_000 },
      resourceName: 'tools',
      resourceDocumentation: 'http://127.0.0.1:8808/docs',
      fetch,
    };
    expect(createResourceServer(every).policy.scopes).toEqual(['tools:read']);
  });

  it('has its parts refuse keys they do not take too', async () => {
    expect(
      refusal(() =>
        createJwtVerifier(untyped({ issuer, jwksUri: () => Promise.resolve(''), algorithm: [] })),
      ),
    ).toBe('createJwtVerifier: unknown option "algorithm"; did you mean "algorithms"?');
    expect(
      refusal(() =>
        createIntrospector(
          untyped({
            issuer,
            endpoint: () => Promise.resolve(''),
            clientId: 'gateway',
            clientSecret: 'secret',
            clientSecretBasic: true,
          }),
        ),
      ),
    ).toContain('createIntrospector: unknown option "clientSecretBasic"');
    // Refused before any request: nothing listens on port 9.
    const discovered = (options: object) =>
      discoverAuthorizationServer(issuer, untyped(options)).then(
        () => 'answered',
        (error: unknown) => {
          const { code, message } = error as { code?: string; message?: string };
          return `${code}: ${message}`;
        },
      );
    expect(await discovered({ timeout: 100 })).toBe(
      'invalid_config: discoverAuthorizationServer: unknown option "timeout"; did you mean "timeoutMs"?',
    );
    expect(await discovered({ timeoutMs: Number.NaN })).toContain(
      'invalid_config: discoverAuthorizationServer timeoutMs must be a whole number',
    );
  });
});
