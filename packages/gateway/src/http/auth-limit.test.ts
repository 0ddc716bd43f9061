import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createResourceServer } from '@toolplane/oauth';
import { startAuthorizationServer, type TestAuthorizationServer } from '@toolplane/oauth/testing';
import { createToolkit, type Toolkit } from '@toolplane/toolkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayMetrics } from '../observe/metrics.js';
import { INITIALIZE_BODY, openRequest } from '../testing/raw-client.js';
import { serveHttp, type HttpGateway, type ServeHttpOptions } from './serve.js';

// The limit on failed authentications over real HTTP: wrong bearer tokens from one loopback
// address (127.0.0.2, …, each a source of its own) until it is refused, while others are served.

const TOKEN = 'the-right-token-0123456789';

let toolkit: Toolkit;
const gateways: HttpGateway[] = [];

beforeAll(() => {
  toolkit = createToolkit({});
});
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});
afterAll(async () => {
  await toolkit.close();
});

async function serve(options: Partial<ServeHttpOptions> = {}): Promise<HttpGateway> {
  const gateway = await serveHttp(toolkit, { port: 0, token: TOKEN, ...options });
  gateways.push(gateway);
  return gateway;
}

interface Answer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly connection: string | undefined;
  readonly body: string;
}

/** A raw request from `from` (a loopback address) with `headers`; an `initialize` when a POST. */
function send(
  url: URL,
  from: string,
  headers: Record<string, string>,
  options: { path?: string; method?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = openRequest(
      url,
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            connection: res.headers.connection,
            body,
          });
        });
      },
      { localAddress: from, headers, ...options },
    );
    req.on('error', reject);
    req.end(options.method === undefined || options.method === 'POST' ? INITIALIZE_BODY : '');
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** `times` wrong tokens from `from`; the statuses they got. */
async function guess(url: URL, from: string, times: number, extra: Record<string, string> = {}) {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) {
    statuses.push((await send(url, from, { ...bearer(`guess-${String(i)}`), ...extra })).status);
  }
  return statuses;
}

describe('serveHttp limit on failed authentications', () => {
  it('answers 429 with Retry-After after 10 wrong tokens, without checking the token then', async () => {
    const gateway = await serve();
    expect(await guess(gateway.url, '127.0.0.2', 10)).toEqual(Array<number>(10).fill(401));
    const refused = await send(gateway.url, '127.0.0.2', bearer('guess-again'));
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(refused.connection).toBe('close');
    // The body a client reads, in the shape of the endpoint's other refusals.
    expect(JSON.parse(refused.body)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringMatching(/too many failed authentications/) },
    });
    // Even the right token: it is not looked at while the source is refused.
    expect((await send(gateway.url, '127.0.0.2', bearer(TOKEN))).status).toBe(429);
    // Another source is served as before.
    expect((await send(gateway.url, '127.0.0.3', bearer(TOKEN))).status).toBe(200);
    expect((await send(gateway.url, '127.0.0.3', bearer('wrong'))).status).toBe(401);
  });

  it('shows an SDK client of a refused source the 429, and serves one from elsewhere', async () => {
    const gateway = await serve();
    // fetch and the SDK send from 127.0.0.1.
    for (let i = 0; i < 10; i++) {
      const answer = await fetch(gateway.url, {
        method: 'POST',
        headers: bearer('wrong-token'),
        body: INITIALIZE_BODY,
      });
      expect(answer.status).toBe(401);
    }
    const client = new Client({ name: 'auth-limit-test', version: '0.0.0' });
    const transport = new StreamableHTTPClientTransport(gateway.url, {
      requestInit: { headers: bearer(TOKEN) },
    });
    const error: unknown = await client.connect(transport).then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.close();
    expect(error).toBeInstanceOf(SdkHttpError);
    expect(error).toMatchObject({ data: { status: 429 } });
    expect((await send(gateway.url, '127.0.0.3', bearer(TOKEN))).status).toBe(200);
  });

  it('forgets a source’s failures once it sends the right token', async () => {
    const gateway = await serve();
    expect(await guess(gateway.url, '127.0.0.2', 9)).not.toContain(429);
    expect((await send(gateway.url, '127.0.0.2', bearer(TOKEN))).status).toBe(200);
    expect(await guess(gateway.url, '127.0.0.2', 9)).not.toContain(429);
    expect((await send(gateway.url, '127.0.0.2', bearer(TOKEN))).status).toBe(200);
  });

  it('does not count a request without an Authorization header (it guesses nothing)', async () => {
    const gateway = await serve({ authFailureLimit: { maxFailures: 2 } });
    for (let i = 0; i < 5; i++) expect((await send(gateway.url, '127.0.0.2', {})).status).toBe(401);
    expect((await send(gateway.url, '127.0.0.2', bearer(TOKEN))).status).toBe(200);
  });

  it('counts guesses at /metrics and /healthz with those at /mcp, and 429s in the metrics', async () => {
    const metrics = createGatewayMetrics();
    const gateway = await serve({ metrics, authFailureLimit: { maxFailures: 3 } });
    const at = (path: string) => ({ path, method: 'GET' });
    expect((await send(gateway.url, '127.0.0.2', bearer('a'), at('/metrics'))).status).toBe(401);
    // A wrong token at /healthz gets the status word, and counts.
    const health = await send(gateway.url, '127.0.0.2', bearer('b'), at('/healthz'));
    expect(JSON.parse(health.body)).toEqual({ status: 'ok' });
    expect((await send(gateway.url, '127.0.0.2', bearer('c'))).status).toBe(401);
    expect((await send(gateway.url, '127.0.0.2', bearer(TOKEN), at('/metrics'))).status).toBe(429);
    // Refused, the token holder's details are not shown, but a balancer's check is answered.
    const refusedHealth = await send(gateway.url, '127.0.0.2', bearer(TOKEN), at('/healthz'));
    expect(refusedHealth.status).toBe(200);
    expect(JSON.parse(refusedHealth.body)).toEqual({ status: 'ok' });
    const scrape = await send(gateway.url, '127.0.0.3', bearer(TOKEN), at('/metrics'));
    expect(scrape.body).toMatch(/toolplane_http_requests_total\{route="metrics",status="429"\} 1/);
    expect(scrape.body).toMatch(/toolplane_http_requests_total\{route="mcp",status="401"\} 1/);
  });

  it('counts behind a trusted proxy by the client it forwards, never by a spoofed header', async () => {
    const gateway = await serve({
      trustedProxies: ['127.0.0.8'],
      authFailureLimit: { maxFailures: 2 },
    });
    const client = (ip: string) => ({ 'x-forwarded-for': ip });
    expect(await guess(gateway.url, '127.0.0.8', 2, client('198.51.100.7'))).toEqual([401, 401]);
    expect((await send(gateway.url, '127.0.0.8', client('198.51.100.7'))).status).toBe(429);
    // The proxy's other clients, and the proxy's own requests, are served.
    const other = { ...bearer(TOKEN), ...client('198.51.100.7, 203.0.113.9') };
    expect((await send(gateway.url, '127.0.0.8', other)).status).toBe(200);
    expect((await send(gateway.url, '127.0.0.8', bearer(TOKEN))).status).toBe(200);
    // A caller that is no trusted proxy counts as itself, whatever it claims to forward.
    const spoof = await guess(gateway.url, '127.0.0.6', 3, client('203.0.113.9'));
    expect(spoof).toEqual([401, 401, 429]);
    expect((await send(gateway.url, '127.0.0.8', other)).status).toBe(200);
  });

  it('gives routes the same count, so a login form shares the budget', async () => {
    const gateway = await serve({
      authFailureLimit: { maxFailures: 2 },
      routes: [
        {
          path: '/login',
          handle: (_req, res, _path, { authAttempts }) => {
            const wait = authAttempts.retryAfter();
            if (wait > 0) res.writeHead(429, { 'retry-after': String(wait) }).end();
            else {
              authAttempts.failed();
              res.writeHead(401).end();
            }
            return Promise.resolve();
          },
        },
      ],
    });
    const login = { path: '/login', method: 'GET' };
    expect((await send(gateway.url, '127.0.0.2', {}, login)).status).toBe(401);
    expect((await send(gateway.url, '127.0.0.2', {}, login)).status).toBe(401);
    expect((await send(gateway.url, '127.0.0.2', {}, login)).status).toBe(429);
    expect((await send(gateway.url, '127.0.0.2', bearer(TOKEN))).status).toBe(429);
  });

  it('is off with authFailureLimit: false, and refuses bad settings', async () => {
    const gateway = await serve({ authFailureLimit: false });
    expect(await guess(gateway.url, '127.0.0.2', 30)).toEqual(Array<number>(30).fill(401));
    expect((await send(gateway.url, '127.0.0.2', bearer(TOKEN))).status).toBe(200);
    await expect(serve({ authFailureLimit: { maxFailures: 0 } })).rejects.toMatchObject({
      code: 'invalid_config',
    });
  });
});

describe('serveHttp limit on invalid OAuth tokens', () => {
  let as: TestAuthorizationServer;
  // Read by the server as it issues tokens: the gateway's URL joins once it is listening.
  const resources: Record<string, string[]> = {};
  const opaque: string[] = [];
  beforeAll(async () => {
    as = await startAuthorizationServer({ resources, opaque });
  });
  afterAll(async () => {
    await as.close();
  });

  it('refuses a source sending made-up tokens before they cost an introspection each', async () => {
    const [client] = as.clients;
    if (client === undefined) throw new Error('no client');
    // The real authorization server, asked through a fetch that counts its introspections.
    let introspections = 0;
    const counting: typeof fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).includes('introspect'))
        introspections++;
      return fetch(input, init);
    };
    const gateway = await serveHttp(toolkit, {
      port: 0,
      authFailureLimit: { maxFailures: 3 },
      auth: createResourceServer({
        issuer: as.issuer,
        fetch: counting,
        introspection: { clientId: client.clientId, clientSecret: client.clientSecret },
      }),
    });
    gateways.push(gateway);
    resources[gateway.url.href] = ['tools:read'];
    opaque.push(gateway.url.href);

    expect(await guess(gateway.url, '127.0.0.2', 3)).toEqual([401, 401, 401]);
    expect(introspections).toBe(3);
    const refused = await send(gateway.url, '127.0.0.2', bearer('guess-more'));
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(await guess(gateway.url, '127.0.0.2', 5)).toEqual(Array<number>(5).fill(429));
    expect(introspections).toBe(3);

    // A real token is served from elsewhere, and clears the count of a source that mistyped.
    const { accessToken } = await as.token({ resource: gateway.url.href, scope: 'tools:read' });
    expect((await send(gateway.url, '127.0.0.3', bearer(accessToken))).status).toBe(200);
    expect(await guess(gateway.url, '127.0.0.4', 2)).toEqual([401, 401]);
    expect((await send(gateway.url, '127.0.0.4', bearer(accessToken))).status).toBe(200);
    expect(await guess(gateway.url, '127.0.0.4', 2)).toEqual([401, 401]);
    // No token at all guesses nothing.
    for (let i = 0; i < 4; i++) expect((await send(gateway.url, '127.0.0.5', {})).status).toBe(401);
  });
});
