import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createResourceServer } from '@toolplane/oauth';
import { startAuthorizationServer, type TestAuthorizationServer } from '@toolplane/oauth/testing';
import { createToolkit, defineTool } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveHttp, type HttpGateway } from '../http/serve.js';
import { createGatewayMetrics } from '../observe/metrics.js';

// `/metrics` under OAuth: its series name every tool called, so only a caller whose scopes reach
// every tool may read them; a real authorization server (oidc-provider) and the real gateway.

const tool = (name: string, tags: string[]) =>
  defineTool({
    name,
    description: `The ${name} tool.`,
    input: z.object({}),
    tags,
    run: () => name,
  });

const resources: Record<string, string[]> = {};
let as: TestAuthorizationServer;
let running: RunningToolkit;
let gateway: HttpGateway;

beforeAll(async () => {
  as = await startAuthorizationServer({ resources });
  running = await runToolkit(
    createToolkit({ tools: [tool('lookup', ['read']), tool('secret_payroll_export', ['admin'])] }),
  );
  gateway = await serveHttp(running.toolkit, {
    port: 0,
    metrics: createGatewayMetrics(),
    auth: createResourceServer({
      issuer: as.issuer,
      scopes: { 'tools:read': { tags: ['read'] }, 'tools:admin': { namespaces: ['*'] } },
    }),
  });
  resources[gateway.url.href] = ['tools:read', 'tools:admin'];
});

afterAll(async () => {
  await gateway.close();
  await running.stop();
  await as.close();
});

const token = async (scope: string) =>
  (await as.token({ resource: gateway.url.href, scope })).accessToken;

const scrape = async (scope: string) =>
  fetch(new URL('/metrics', gateway.url), {
    headers: { authorization: `Bearer ${await token(scope)}` },
  });

describe('serveHttp with auth and metrics', () => {
  it('shows the metrics only to a caller whose scopes reach every tool', async () => {
    // An admin calls the tool a read-only caller may not even see.
    const client = new Client({ name: 'admin', version: '0.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(gateway.url, {
        requestInit: { headers: { authorization: `Bearer ${await token('tools:admin')}` } },
      }),
    );
    await client.callTool({ name: 'builtin__secret_payroll_export', arguments: {} });
    await client.close();

    const refused = await scrape('tools:read');
    const body = await refused.text();
    expect(refused.status).toBe(403);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/error="insufficient_scope".*scope="tools:admin"$/);
    expect(body + challenge).not.toContain('secret_payroll_export');

    const admin = await scrape('tools:admin');
    expect(admin.status).toBe(200);
    expect(await admin.text()).toContain('secret_payroll_export');
  });
});
