import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createResourceServer } from '@toolplane/oauth';
import { startAuthorizationServer, type TestAuthorizationServer } from '@toolplane/oauth/testing';
import { createLearningSearcher, createMemoryEvidenceStore } from '@toolplane/toolindex';
import { createToolkit, defineTool } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MODERN_PROTOCOL_VERSION } from './eras.js';
import { serveHttp, type HttpGateway } from './http/serve.js';

// Learning from use in search mode over HTTP: a search, then a call of one of its results, is
// evidence. A 2026-07-28 client has no session (every request is one of its own), so the gateway
// links the two requests by their caller: the OAuth client and subject, or the static token.
// Real gateways over HTTP, a real authorization server (oidc-provider), real v2 clients.

const TOKEN = 'learning-secret';
const REFUND = 'builtin:create_refund';
const QUERY = 'give the customer their money back';

const store = createMemoryEvidenceStore();
const learner = createLearningSearcher({ store });
const resources: Record<string, string[]> = {};
let as: TestAuthorizationServer;
let running: RunningToolkit;
let withToken: HttpGateway;
let open: HttpGateway;
let withOAuth: HttpGateway;

beforeAll(async () => {
  as = await startAuthorizationServer({ resources, clients: 2 });
  const toolkit = createToolkit({
    tools: [
      defineTool({
        name: 'create_refund',
        description: 'Refunds a charge to the card it was paid with.',
        input: z.object({}),
        run: () => 'refunded',
      }),
      defineTool({
        name: 'list_customers',
        description: 'Lists the customers of the shop.',
        input: z.object({}),
        run: () => 'customers',
      }),
    ],
    searcher: learner,
  });
  running = await runToolkit(toolkit);
  withToken = await serveHttp(running.toolkit, { port: 0, mode: 'search', token: TOKEN });
  open = await serveHttp(running.toolkit, { port: 0, mode: 'search' });
  withOAuth = await serveHttp(running.toolkit, {
    port: 0,
    mode: 'search',
    auth: createResourceServer({ issuer: as.issuer, scopes: { tools: { namespaces: ['*'] } } }),
  });
  resources[withOAuth.url.href] = ['tools'];
});

afterEach(async () => {
  await learner.forget();
});

afterAll(async () => {
  await withOAuth.close();
  await open.close();
  await withToken.close();
  await running.stop();
  await as.close();
});

async function connect(
  served: HttpGateway,
  era: 'modern' | 'legacy',
  authorization?: string,
): Promise<Client> {
  const client = new Client(
    { name: 'learning-test', version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {},
  );
  const headers: Record<string, string> =
    authorization === undefined ? {} : { authorization: `Bearer ${authorization}` };
  await client.connect(new StreamableHTTPClientTransport(served.url, { requestInit: { headers } }));
  return client;
}

async function oauthToken(client: 0 | 1): Promise<string> {
  const { accessToken } = await as.token({
    resource: withOAuth.url.href,
    scope: 'tools',
    client: as.clients[client],
  });
  return accessToken;
}

/** Searches with `search_tools`; the refund tool must be among the results. */
async function search(client: Client): Promise<void> {
  const result = await client.callTool({ name: 'search_tools', arguments: { query: QUERY } });
  const { results } = result.structuredContent as { results: { id: string }[] };
  expect(results.map((hit) => hit.id)).toContain(REFUND);
}

async function callRefund(client: Client): Promise<void> {
  const result = await client.callTool({ name: 'call_tool', arguments: { id: REFUND } });
  expect(result.isError).not.toBe(true);
}

/** The evidence recorded for the refund tool so far. */
async function evidence(): Promise<string[]> {
  await learner.flush();
  const rows = await store.load();
  return rows.filter((row) => row.toolId === REFUND).map((row) => row.term);
}

describe('search mode over HTTP learns from a search followed by a call', () => {
  it('links a 2026-07-28 client’s search and call, two requests, by its static token', async () => {
    const client = await connect(withToken, 'modern', TOKEN);
    try {
      await search(client);
      expect(await evidence()).toEqual([]);
      await callRefund(client);
      expect(await evidence()).toEqual(expect.arrayContaining(['custom', 'monei']));
    } finally {
      await client.close();
    }
  });

  it('links them by the OAuth caller: another client’s call of the result teaches nothing', async () => {
    const [first, second] = await Promise.all([
      oauthToken(0).then((token) => connect(withOAuth, 'modern', token)),
      oauthToken(1).then((token) => connect(withOAuth, 'modern', token)),
    ]);
    try {
      await search(first);
      await callRefund(second);
      expect(await evidence()).toEqual([]);
      await callRefund(first);
      expect(await evidence()).toEqual(expect.arrayContaining(['custom', 'monei']));
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('learns nothing from 2026-07-28 requests that name no caller', async () => {
    const client = await connect(open, 'modern');
    try {
      await search(client);
      await callRefund(client);
      expect(await evidence()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('still links a 2025 client’s search and call by its session', async () => {
    const client = await connect(open, 'legacy');
    try {
      await search(client);
      await callRefund(client);
      expect(await evidence()).toEqual(expect.arrayContaining(['custom', 'monei']));
    } finally {
      await client.close();
    }
  });
});
