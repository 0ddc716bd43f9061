import { request } from 'node:http';
import { createToolkit } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayMetrics } from '../observe/metrics.js';
import { openRequest } from '../testing/raw-client.js';
import { serveHttp, type HttpGateway } from './serve.js';

describe('serveHttp routes', () => {
  const toolkit = createToolkit();
  const seen: string[] = [];
  let gateway: HttpGateway;

  beforeAll(async () => {
    gateway = await serveHttp(toolkit, {
      port: 0,
      token: 'routes-test-token-0123456789',
      routes: [
        {
          path: '/ui',
          handle: (req, res, pathname) => {
            seen.push(pathname);
            res.writeHead(200, { 'content-type': 'text/plain' }).end(`route ${pathname}`);
            return Promise.resolve();
          },
        },
      ],
    });
  });
  afterAll(async () => {
    await gateway.close();
    await toolkit.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(new URL(path, gateway.url), { headers });

  it('hands the route its path and every path under it, without the bearer token', async () => {
    expect(await (await get('/ui')).text()).toBe('route /ui');
    expect(await (await get('/ui/api/tools?q=x')).text()).toBe('route /ui/api/tools');
    expect(seen).toEqual(['/ui', '/ui/api/tools']);
  });

  it('leaves other paths to the gateway: a look-alike prefix is not the route', async () => {
    const response = await get('/uix');
    expect(response.status).toBe(401);
    expect(seen).not.toContain('/uix');
  });

  // fetch normalises a path; node:http sends the target as written.
  const raw = (target: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const sent = request(gateway.url, { path: target }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body });
        });
      });
      sent.on('error', reject);
      sent.end();
    });

  it('reads a target that starts with // as a path, never as another host', async () => {
    const before = seen.length;
    const targets = [
      '//evil.example/ui/',
      '//x/ui/api/tools',
      '//x/healthz',
      '//',
      '//a:99999/ui/',
    ];
    for (const target of targets) {
      expect((await raw(target)).status).toBe(401);
    }
    expect(seen).toHaveLength(before);
  });

  it('refuses a target that is not a path with 400, not 500', async () => {
    for (const target of ['*', 'ftp://x/ui/']) {
      const answer = await raw(target);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: -32600 } });
    }
    expect((await raw('/ui/x')).status).toBe(200);
  });

  it('checks Host and Origin before the route sees the request', async () => {
    const before = seen.length;
    expect((await get('/ui/', { origin: 'http://evil.example' })).status).toBe(403);
    expect(seen).toHaveLength(before);
  });

  it.each(['http://[::1', 'http://%'])(
    'answers 400, not 500, to the request-target %j that is no URL',
    async (target) => {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = openRequest(
          gateway.url,
          (res) => {
            res.resume();
            resolve(res.statusCode);
          },
          { method: 'GET', path: target },
        );
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(400);
    },
  );
});

describe('serveHttp path', () => {
  const toolkit = createToolkit();
  afterAll(async () => {
    await toolkit.close();
  });
  const route = {
    path: '/ui',
    handle: () => Promise.resolve(),
  };

  it.each([
    ['/healthz', {}],
    ['/metrics', { metrics: createGatewayMetrics() }],
    ['/ui', { routes: [route] }],
    ['/ui/mcp', { routes: [route] }],
    ['/.well-known/mcp', {}],
  ])('refuses %s, which another route answers, before it listens', async (path, more) => {
    await expect(serveHttp(toolkit, { port: 0, path, ...more })).rejects.toMatchObject({
      code: 'invalid_config',
    });
  });

  it('takes a path that only begins like another route', async () => {
    const served = await serveHttp(toolkit, {
      port: 0,
      path: '/uix',
      routes: [route],
      metrics: createGatewayMetrics(),
    });
    try {
      expect(served.url.pathname).toBe('/uix');
    } finally {
      await served.close();
    }
  });
});
