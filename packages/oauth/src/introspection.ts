import { AuthError } from './errors.js';

/** Options of {@link createIntrospector}: how the resource server authenticates to the endpoint. */
export interface IntrospectionOptions {
  /** The resource server's client ID at the authorization server. */
  readonly clientId: string;
  /** Its secret (sent as HTTP Basic, `client_secret_basic`). */
  readonly clientSecret: string;
  /** The endpoint (default: `introspection_endpoint` from the issuer's metadata). */
  readonly endpoint?: string;
  /** Give up after this long (default 5 s). */
  readonly timeoutMs?: number;
}

/** The members of an RFC 7662 introspection response this package reads. */
export interface IntrospectionResponse {
  readonly active: boolean;
  readonly scope?: string;
  readonly client_id?: string;
  readonly sub?: string;
  readonly exp?: number;
  readonly nbf?: number;
  readonly iss?: string;
  readonly aud?: string | readonly string[];
  readonly [member: string]: unknown;
}

/** Asks whether an opaque token is active, for one audience; see {@link createIntrospector}. */
export type Introspector = (
  token: string,
  audience: string,
  options?: { signal?: AbortSignal },
) => Promise<IntrospectionResponse>;

/**
 * An RFC 7662 introspection client. A token is accepted only when the server says `active`, it
 * names the expected issuer (when it names one), its `aud` includes the resource (RFC 8707: a
 * token for another resource is refused; a response without `aud` is refused too), and it has
 * not expired or is not yet valid (with `clockToleranceSec` leeway).
 */
export function createIntrospector(
  options: Omit<IntrospectionOptions, 'endpoint'> & {
    readonly issuer: string;
    readonly endpoint: () => Promise<string>;
    readonly clockToleranceSec?: number;
    readonly fetch?: typeof fetch;
  },
): Introspector {
  const fetchFn = options.fetch ?? fetch;
  const basic = Buffer.from(
    `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`,
  ).toString('base64');
  const tolerance = options.clockToleranceSec ?? 30;
  return async (token, audience, { signal } = {}) => {
    const endpoint = await options.endpoint();
    let response: Response;
    try {
      response = await fetchFn(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        signal: AbortSignal.any([
          AbortSignal.timeout(options.timeoutMs ?? 5_000),
          ...(signal === undefined ? [] : [signal]),
        ]),
      });
    } catch (error) {
      throw new AuthError(
        'unavailable',
        `the introspection endpoint of ${options.issuer} did not answer`,
        {
          cause: error,
        },
      );
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new AuthError(
        'unavailable',
        `the introspection endpoint of ${options.issuer} answered HTTP ${String(response.status)}; check the introspection client credentials`,
      );
    }
    const answer: unknown = await response.json().catch(() => undefined);
    const body = answer as IntrospectionResponse;
    if (typeof answer !== 'object' || answer === null || typeof body.active !== 'boolean') {
      throw new AuthError(
        'unavailable',
        `the introspection endpoint of ${options.issuer} answered no "active" member`,
      );
    }
    if (!body.active) throw new AuthError('invalid_token', 'the token is not active');
    if (body.iss !== undefined && body.iss !== options.issuer) {
      throw new AuthError('invalid_token', `the token was not issued by ${options.issuer}`);
    }
    const audiences = typeof body.aud === 'string' ? [body.aud] : (body.aud ?? []);
    if (!audiences.includes(audience)) {
      throw new AuthError('invalid_token', 'the token was issued for another resource');
    }
    const now = Date.now() / 1000;
    if (typeof body.exp === 'number' && body.exp + tolerance <= now) {
      throw new AuthError('invalid_token', 'the token has expired');
    }
    if (typeof body.nbf === 'number' && body.nbf - tolerance > now) {
      throw new AuthError('invalid_token', 'the token is not valid yet');
    }
    return body;
  };
}
