import { serveHttp } from '@toolplane/gateway';
import { createToolkit, ToolError } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../scripts/build-app.mjs';
import { startDashboardGateway, type DashboardGateway } from '../testing/dashboard-gateway.js';
import { postFrom } from '../testing/post-from.js';
import { dashboardRoutes } from './routes.js';

const TOKEN = 'dashboard-login-limit-token-0123';

/** A POST as the login form sends it (same origin), from `from`. */
const post = (url: URL, from: string, body: string, headers: Record<string, string> = {}) =>
  postFrom(url, from, body, { origin: url.origin, ...headers });

// A real gateway with the dashboard at /ui: wrong tokens typed into the login form are limited
// per source, with those sent to the MCP endpoint, as the gateway counts them.
describe('the dashboard login under the gateway’s limit on failed authentications', () => {
  let served: DashboardGateway;
  let loginUrl: URL;
  const login = (from: string, token: string) => post(loginUrl, from, JSON.stringify({ token }));
  const mcp = (from: string, token: string) =>
    post(served.gateway.url, from, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), {
      authorization: `Bearer ${token}`,
      accept: 'application/json, text/event-stream',
    });

  beforeAll(async () => {
    served = await startDashboardGateway(TOKEN);
    loginUrl = new URL('api/login', served.ui);
  });
  afterAll(async () => {
    await served.close();
  });

  it('answers 429 with Retry-After after 10 wrong tokens, and logs in another source', async () => {
    for (let i = 0; i < 10; i++)
      expect((await login('127.0.0.2', `wrong-${String(i)}`)).status).toBe(401);
    const refused = await login('127.0.0.2', TOKEN);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(refused.cookie).toBeUndefined();
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'rate_limited' } });
    const other = await login('127.0.0.3', TOKEN);
    expect(other.status).toBe(200);
    expect(other.cookie).toMatch(/^toolplane_ui=/);
  });

  it('shares one budget with the MCP endpoint', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await login('127.0.0.4', `wrong-${String(i)}`)).status).toBe(401);
      expect((await mcp('127.0.0.4', `wrong-${String(i)}`)).status).toBe(401);
    }
    expect((await mcp('127.0.0.4', TOKEN)).status).toBe(429);
    expect((await login('127.0.0.4', TOKEN)).status).toBe(429);
  });

  it('forgets the failures of a source that logs in', async () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 9; i++) expect((await login('127.0.0.5', 'wrong')).status).toBe(401);
      expect((await login('127.0.0.5', TOKEN)).status).toBe(200);
    }
  });

  it('does not count a malformed login, which guesses nothing', async () => {
    for (let i = 0; i < 15; i++) {
      expect((await post(loginUrl, '127.0.0.6', JSON.stringify({ token: '' }))).status).toBe(400);
    }
    expect((await login('127.0.0.6', TOKEN)).status).toBe(200);
  });
});

describe('the dashboard login with a verification that takes its time', () => {
  it('lets no more concurrent guesses through than the budget', async () => {
    await buildApp();
    const toolkit = createToolkit({});
    let verifying = 0;
    let refused = 0;
    let release = (): void => undefined;
    const verdict = new Promise<false>((resolve) => {
      release = () => {
        resolve(false);
      };
    });
    const everyoneHeard = () => {
      if (verifying + refused === 30) release();
    };
    const dashboard = dashboardRoutes({
      toolkit,
      // Like an OAuth token's check: the verdict comes later, here once every login was heard.
      verify: () => {
        verifying++;
        everyoneHeard();
        return verdict;
      },
    });
    const gateway = await serveHttp(toolkit, {
      port: 0,
      token: TOKEN,
      routes: [dashboard],
      authFailureLimit: { maxFailures: 10 },
    });
    try {
      const url = new URL('/ui/api/login', gateway.url);
      const statuses = await Promise.all(
        Array.from({ length: 30 }, async () => {
          const answer = await post(url, '127.0.0.7', JSON.stringify({ token: 'guess' }));
          if (answer.status === 429) {
            refused++;
            everyoneHeard();
          }
          return answer.status;
        }),
      );
      expect(verifying).toBe(10);
      expect(statuses.filter((status) => status === 401)).toHaveLength(10);
      expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    } finally {
      dashboard.close();
      await gateway.close();
      await toolkit.close();
    }
  });
});

// An authorization server that does not answer is no verdict on a token (503, as the gateway's
// own endpoint says): a user retrying through an outage was counted a guess per try, and locked
// out (429) once it was over.
describe('the dashboard login while the token cannot be checked', () => {
  it('counts no failure for a login the outage left unchecked', async () => {
    await buildApp();
    const toolkit = createToolkit({});
    let down = true;
    const dashboard = dashboardRoutes({
      toolkit,
      verify: (token) => {
        if (down) {
          return Promise.reject(
            new ToolError('connector_unavailable', 'the authorization server did not answer'),
          );
        }
        return Promise.resolve(token === TOKEN);
      },
    });
    const gateway = await serveHttp(toolkit, {
      port: 0,
      token: TOKEN,
      routes: [dashboard],
      authFailureLimit: { maxFailures: 3 },
    });
    try {
      const url = new URL('/ui/api/login', gateway.url);
      const login = (token: string) => post(url, '127.0.0.8', JSON.stringify({ token }));
      for (let i = 0; i < 6; i++) expect((await login(TOKEN)).status).toBe(503);
      down = false;
      expect((await login(TOKEN)).status).toBe(200);
      // The budget still holds for wrong tokens once the check is back.
      for (let i = 0; i < 3; i++) expect((await login('wrong')).status).toBe(401);
      expect((await login(TOKEN)).status).toBe(429);
    } finally {
      dashboard.close();
      await gateway.close();
      await toolkit.close();
    }
  });
});
