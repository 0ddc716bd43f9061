import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolError } from '@toolplane/toolmodel';

/** What the authorization server sent back to the loopback redirect. */
export interface RedirectAnswer {
  readonly code: string;
  /** The RFC 9207 `iss` parameter, when the server sent one. */
  readonly iss?: string;
}

/** Options of {@link listenForRedirect}. */
export interface ListenForRedirectOptions {
  /** The `state` the authorization request carries; the redirect must bring it back unchanged. */
  readonly state: string;
  /**
   * A fixed loopback redirect URI (a client registered with one port); by default an ephemeral
   * port of 127.0.0.1 with the path `/callback`.
   */
  readonly redirectUrl?: string;
  /** How long to wait for the redirect (default 5 minutes). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** A loopback listener waiting for one authorization redirect. */
export interface LoopbackRedirect {
  /** The redirect URI to send in the authorization request. */
  readonly redirectUrl: string;
  /**
   * The code and `iss` of the one redirect it accepts.
   * Rejects with a {@link ToolError}: `unauthorized` for a mismatched `state` or an error the
   * server sent back, `timeout`, or `cancelled`.
   */
  readonly answer: Promise<RedirectAnswer>;
  /** Stops listening (idempotent); it stops by itself after one answer or the timeout. */
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]']);

/**
 * Checks that `url` is a loopback redirect URI (RFC 8252 §7.3): `http`, host 127.0.0.1 or
 * `[::1]` (not `localhost`, which a resolver may send elsewhere), no fragment.
 *
 * @throws {ToolError} `invalid_config` otherwise.
 */
export function assertLoopbackRedirect(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new ToolError('invalid_config', `redirect URI ${JSON.stringify(url)} is not a URL`, {
      cause: error,
    });
  }
  if (parsed.protocol !== 'http:' || !LOOPBACK_HOSTS.has(parsed.hostname) || parsed.hash !== '') {
    throw new ToolError(
      'invalid_config',
      `redirect URI ${JSON.stringify(url)} is not a loopback one: use http://127.0.0.1[:port]/path or http://[::1][:port]/path`,
    );
  }
  return parsed;
}

function page(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
  });
  res.end(text);
}

/**
 * Listens on a loopback address for the authorization server's redirect: it accepts one request
 * to the redirect path whose `state` matches (answering the browser with a short page), and
 * refuses one whose `state` does not, ending the wait either way. Other paths get 404 and do
 * not end the wait.
 *
 * @throws {ToolError} `invalid_config` when `redirectUrl` is not a loopback URI.
 */
export async function listenForRedirect(
  options: ListenForRedirectOptions,
): Promise<LoopbackRedirect> {
  const fixed =
    options.redirectUrl === undefined ? undefined : assertLoopbackRedirect(options.redirectUrl);
  const host = fixed === undefined ? '127.0.0.1' : fixed.hostname.replace(/^\[|\]$/g, '');
  const path = fixed?.pathname ?? '/callback';
  let settle: { resolve: (answer: RedirectAnswer) => void; reject: (error: Error) => void };
  const answer = new Promise<RedirectAnswer>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Nobody may be waiting yet when the listener fails; the caller reads `answer` later.
  answer.catch(() => undefined);
  let done = false;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://loopback');
    if (done || req.method !== 'GET' || url.pathname !== path) {
      page(res, 404, 'not found');
      return;
    }
    done = true;
    const params = url.searchParams;
    if (params.get('state') !== options.state) {
      page(res, 400, 'The state of this answer does not match the login; it was refused.');
      finish(
        new ToolError(
          'unauthorized',
          'the authorization redirect carried another state than the login sent: refused',
        ),
      );
      return;
    }
    const error = params.get('error');
    const code = params.get('code');
    if (error !== null || code === null || code === '') {
      page(res, 400, 'The authorization server did not grant access.');
      const why = error === null ? 'no code' : JSON.stringify(error.slice(0, 100));
      finish(new ToolError('unauthorized', `the authorization server refused the login (${why})`));
      return;
    }
    page(res, 200, 'Logged in. You may close this window.');
    const iss = params.get('iss');
    finish(undefined, iss === null ? { code } : { code, iss });
  });
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    });
  const timer = setTimeout(() => {
    finish(new ToolError('timeout', 'no authorization redirect arrived in time'));
  }, options.timeoutMs ?? 300_000);
  const onAbort = (): void => {
    finish(new ToolError('cancelled', 'the login was cancelled'));
  };
  function finish(error: Error | undefined, value?: RedirectAnswer): void {
    done = true;
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    if (error === undefined && value !== undefined) settle.resolve(value);
    else settle.reject(error ?? new Error('no answer'));
    // Answer the browser first, then stop listening.
    setImmediate(() => void close());
  }
  if (options.signal?.aborted === true) {
    clearTimeout(timer);
    throw new ToolError('cancelled', 'the login was cancelled');
  }
  options.signal?.addEventListener('abort', onAbort, { once: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(fixed === undefined ? 0 : Number(fixed.port || 80), host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    finish(
      new ToolError('invalid_config', 'could not listen for the authorization redirect', {
        cause: error,
      }),
    );
    throw new ToolError(
      'invalid_config',
      `could not listen on ${host} for the authorization redirect`,
      { cause: error },
    );
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  const stop = (): Promise<void> => {
    // Stopped before any answer: the wait ends (and its timer with it).
    if (!done) finish(new ToolError('cancelled', 'the login was given up'));
    return close();
  };
  return { redirectUrl: `http://${shown}:${String(port)}${path}`, answer, close: stop };
}
