import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ProtocolErrorCode,
  type AuthInfo,
  type MessageExtraInfo,
} from '@modelcontextprotocol/server';
import type { GatewayHub } from '../hub.js';
import { authorizationOf, tooManyFailures } from '../http/access.js';
import type { AuthAttempts } from '../http/options.js';
import { HttpError, type Post } from '../http/request.js';
import { requireAccess, targetsOf, toolOf } from './access.js';
import { AnonymousRefusal, isAuthRefusal, ScopeRefusal, type GatewayAuth } from './gateway-auth.js';
import {
  identifies,
  keyOfCaller,
  verifiedByHeaders as verified,
  verifiedByInfo,
} from './verified.js';

/**
 * The OAuth side of `serveHttp`: serves the protected resource metadata, verifies each
 * request's bearer token from its headers (before any body is read), and refuses a POST that
 * calls a tool its token does not reach with 403 `insufficient_scope`.
 */
export class OAuthGate {
  readonly #auth: GatewayAuth;
  #endpoint: URL | undefined;

  constructor(auth: GatewayAuth) {
    this.#auth = auth;
  }

  /** The endpoint as served (with the real port): the default audience of tokens. */
  listening(endpoint: URL): void {
    this.#endpoint = endpoint;
  }

  get #url(): URL {
    if (this.#endpoint === undefined) throw new Error('the gateway is not listening yet');
    return this.#endpoint;
  }

  /** Answers a GET for the metadata document; false for any other request. */
  serveMetadata(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
    if (!this.#auth.isMetadataPath(pathname, this.#url)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      throw new HttpError(405, ProtocolErrorCode.InvalidRequest, 'the metadata is read with GET');
    }
    const body = JSON.stringify(this.#auth.metadata(this.#url));
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      // Public by design (RFC 9728): browser-based clients read it across origins.
      'access-control-allow-origin': '*',
      'cache-control': 'max-age=300',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    req.resume();
    return true;
  }

  /**
   * What the SDK hands the handlers of `req`'s messages (`ctx.http.authInfo`): the verified
   * caller, without the token itself, which goes no further than this gate.
   */
  messageExtra(req: IncomingMessage): MessageExtraInfo | undefined {
    const found = verified.get(req.headers);
    if (found === undefined) return undefined;
    const { caller } = found;
    const authInfo: AuthInfo = {
      token: '',
      clientId: caller.clientId ?? '',
      scopes: [...caller.scopes],
      ...(caller.expiresAt === undefined ? {} : { expiresAt: caller.expiresAt }),
    };
    verifiedByInfo.set(authInfo, found);
    return { authInfo };
  }

  /**
   * Verifies the request's bearer token; the caller is kept for the request's handlers.
   *
   * Invalid tokens count against the request's source in `attempts` (the gateway's limit on
   * failed authentications), and an accepted one clears its count.
   *
   * @throws {HttpError} 429 with `Retry-After` while the source is refused, 401 (no token, a
   * refused one, or one that names neither a subject nor a client), 400 (a malformed header),
   * 503 (the authorization server could not be asked), with the `WWW-Authenticate` challenge set
   * on `res`.
   */
  async authenticate(
    req: IncomingMessage,
    res: ServerResponse,
    attempts: AuthAttempts,
  ): Promise<void> {
    // A source refused for its invalid tokens gets 429 before its token is verified: made-up
    // opaque tokens would otherwise each cost an introspection request, at the rate they come.
    const wait = attempts.retryAfter();
    if (wait > 0) throw tooManyFailures(wait);
    try {
      const caller = await this.#auth.authenticate(authorizationOf(req), {
        endpoint: this.#url,
      });
      // A token that names no one would make every such caller one owner of the same sessions.
      if (!identifies(caller)) throw new AnonymousRefusal();
      verified.set(req.headers, { auth: this.#auth, caller });
    } catch (error) {
      // Counted after the verdict, not before (as the dashboard's login does): a client's
      // concurrent requests with one good token must not refuse each other while it is checked.
      if (
        isAuthRefusal(error) &&
        error.reason === 'invalid_token' &&
        !(error instanceof AnonymousRefusal)
      )
        attempts.failed();
      throw this.#refusal(error, res);
    }
    attempts.succeeded();
  }

  /**
   * Who `req`'s caller is, as the owner of a session it opens or names: a session answers only
   * the caller that opened it (MCP security best practice: session IDs bound to the user), so a
   * leaked ID is of no use to anyone else.
   *
   * @throws {HttpError} 401 for a request this gate did not authenticate.
   */
  ownerOf(req: IncomingMessage): string {
    const found = verified.get(req.headers);
    if (found === undefined) {
      throw new HttpError(401, ProtocolErrorCode.InvalidRequest, 'a bearer token is required');
    }
    return keyOfCaller(found.caller);
  }

  /**
   * Refuses (403 `insufficient_scope`, naming the scopes that would be enough) a POST that uses
   * a tool, prompt or resource its token does not reach (`tools/call`, `prompts/get`,
   * `resources/read`, `resources/subscribe`, `completion/complete`, and a 2026-07-28
   * `subscriptions/listen` naming resources), before it is dispatched.
   */
  async checkCalls(
    req: IncomingMessage,
    res: ServerResponse,
    post: Post,
    hub: GatewayHub,
  ): Promise<void> {
    const found = verified.get(req.headers);
    if (found === undefined) return;
    for (const message of post.messages) {
      // Unresolved here (a list that failed), the handler's own check still judges it.
      const targets = await targetsOf(message, hub).catch(() => []);
      for (const target of targets) {
        try {
          requireAccess(found, target);
        } catch (error) {
          throw this.#refusal(error, res);
        }
      }
    }
  }

  /**
   * Refuses (403 `insufficient_scope`) a caller whose scopes do not reach every tool, naming the
   * scopes that reach them all: what `/metrics` shows (every tool called, every namespace) is
   * not for a caller that may not see some of them.
   *
   * @throws {HttpError} 403, with the challenge set on `res`.
   */
  async requireEverything(req: IncomingMessage, res: ServerResponse, hub: GatewayHub) {
    const found = verified.get(req.headers);
    if (found === undefined) return;
    let enough: readonly string[] | undefined;
    for (const [, item] of (hub.toolsNow() ?? (await hub.tools())).entries()) {
      try {
        requireAccess(found, { kind: 'tool', tool: toolOf(item) });
      } catch (error) {
        if (!isAuthRefusal(error)) throw error;
        // The scopes that would reach every refused tool: in each refusal's list.
        enough = (enough ?? error.scopes).filter((scope) => error.scopes.includes(scope));
      }
    }
    if (enough === undefined) return;
    throw this.#refusal(
      new ScopeRefusal('this needs a scope that reaches every tool the gateway serves', enough),
      res,
    );
  }

  #refusal(error: unknown, res: ServerResponse): unknown {
    if (!isAuthRefusal(error)) return error;
    res.setHeader('www-authenticate', this.#auth.challenge(error, this.#url));
    const retryAfter = error.retryAfterSec;
    return new HttpError(
      error.status,
      ProtocolErrorCode.InvalidRequest,
      error.message,
      null,
      typeof retryAfter === 'number' && retryAfter >= 0 && retryAfter !== Infinity
        ? { 'retry-after': String(Math.ceil(retryAfter)) }
        : {},
    );
  }
}
