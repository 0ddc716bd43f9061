import { createToolkit } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
