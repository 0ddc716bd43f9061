import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureCommand } from '@toolplane/fixtures';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp } from '../http/serve.js';
import { useHttpGateway } from '../testing/http-gateway.js';
import { createGatewayMetrics, type GatewayMetrics } from './metrics.js';
import type { ToolCallRecord } from './observer.js';

const TOKEN = 'metrics-test-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

const heard: ToolCallRecord[] = [];
const metrics = createGatewayMetrics();
// A short backoff: a test kills the fixture and waits for its reconnect.
const toolkit = useFixtureToolkit({
  connectorDefaults: { backoff: { initialDelayMs: 10, maxDelayMs: 50 } },
});
const gateway = useHttpGateway(toolkit, {
  token: TOKEN,
  metrics,
  observe: { toolCall: (record) => heard.push(record) },
});
let client: Client;

beforeAll(async () => {
  client = new Client({ name: 'metrics-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(gateway.url, { requestInit: { headers: auth } }),
  );
});

afterAll(async () => {
  await client.close();
});

/** GET /metrics with (or without) the token. */
async function scrape(headers: Record<string, string> = auth): Promise<Response> {
  return fetch(new URL('/metrics', gateway.url), { headers });
}

/** The value of the sample of `name` whose labels include all of `labels`, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const wanted = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (wanted) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

/** The distinct values of `label` among the samples of `name`. */
function labelValues(text: string, name: string, label: string): Set<string> {
  const values = new Set<string>();
  const pattern = new RegExp(`${label}="([^"]*)"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const found = pattern.exec(line);
    if (found?.[1] !== undefined) values.add(found[1]);
  }
  return values;
}

describe('GET /metrics', () => {
  it('answers 401 without the token, and serves the Prometheus text format with it', async () => {
    const refused = await scrape({});
    expect(refused.status).toBe(401);
    const answer = await scrape();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/plain');
    const text = await answer.text();
    expect(text).toContain('# TYPE toolplane_tool_calls_total counter');
    expect(sample(text, 'toolplane_connector_state', { namespace: 'fx', state: 'connected' })).toBe(
      1,
    );
    expect(sample(text, 'toolplane_sessions', { era: '2025-11-25' })).toBe(1);
  });

  it('counts calls by namespace, tool and outcome: ok, isError and an error code', async () => {
    await client.callTool({ name: 'fx__add', arguments: { a: 1, b: 2 } });
    await client.callTool({ name: 'fx__add', arguments: { a: 3, b: 4 } });
    await client.callTool({ name: 'fx__report-error', arguments: { message: 'nope' } });
    const invalid = await client.callTool({ name: 'fx__add', arguments: { a: 'one', b: 2 } });
    expect(invalid.isError).toBe(true);
    const text = await (await scrape()).text();
    const calls = 'toolplane_tool_calls_total';
    expect(sample(text, calls, { namespace: 'fx', tool: 'fx:add', outcome: 'ok' })).toBe(2);
    expect(sample(text, calls, { tool: 'fx:report-error', outcome: 'isError' })).toBe(1);
    expect(sample(text, calls, { tool: 'fx:add', outcome: 'validation' })).toBe(1);
    expect(
      sample(text, 'toolplane_tool_call_duration_seconds_count', { namespace: 'fx' }),
    ).toBeGreaterThanOrEqual(4);
    // initialize and the four calls at the least
    expect(
      sample(text, 'toolplane_http_requests_total', { route: 'mcp', status: '200' }),
    ).toBeGreaterThanOrEqual(5);
    expect(sample(text, 'toolplane_http_requests_total', { route: 'metrics', status: '401' })).toBe(
      1,
    );
    // The observer heard who and what, arguments included (it decides what to keep).
    const added = heard.find((r) => r.tool === 'fx:add' && r.outcome === 'ok');
    expect(added?.sessionId).toEqual(expect.any(String));
    expect(added?.requestId).toEqual(expect.any(Number));
    expect(added?.args).toEqual({ a: 1, b: 2 });
  });

  it('counts a flood of made-up tool names as one `unknown` tool, growing no label set', async () => {
    const before = labelValues(await (await scrape()).text(), 'toolplane_tool_calls_total', 'tool');
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        client.callTool({ name: `fx__made-up-${String(i)}`, arguments: {} }).catch(() => undefined),
      ),
    );
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        client.callTool({ name: `nope${String(i)}__x`, arguments: {} }).catch(() => undefined),
      ),
    );
    const text = await (await scrape()).text();
    const tools = labelValues(text, 'toolplane_tool_calls_total', 'tool');
    expect([...tools].filter((t) => !before.has(t))).toEqual(['unknown']);
    expect(labelValues(text, 'toolplane_tool_calls_total', 'namespace')).toEqual(
      new Set(['fx', 'unknown']),
    );
    expect(
      sample(text, 'toolplane_tool_calls_total', { tool: 'unknown', outcome: 'not_found' }),
    ).toBe(250);
    // Made-up paths are one `other` route, however many.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(new URL(`/x${String(i)}`, gateway.url), { headers: auth }),
      ),
    );
    const routes = labelValues(
      await (await scrape()).text(),
      'toolplane_http_requests_total',
      'route',
    );
    expect(routes).toEqual(new Set(['mcp', 'metrics', 'other']));
  });

  it('counts a request by the path it was served at, dot segments resolved', async () => {
    // fetch resolves `..` itself: the raw target goes out through node:http.
    const status = (path: string) =>
      new Promise<number>((resolve, reject) => {
        request(new URL(gateway.url), { path, headers: auth }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .once('error', reject)
          .end();
      });
    const count = async () =>
      sample(await (await scrape()).text(), 'toolplane_http_requests_total', {
        route: 'metrics',
        status: '200',
      }) ?? 0;
    const before = await count();
    expect(await status('/ui/../metrics')).toBe(200);
    expect(await status('/%2e%2e/metrics')).toBe(200);
    // The scrape that reads the count is counted once it is answered: two more, and the first.
    expect(await count()).toBe(before + 3);
  });

  it('answers HEAD as GET, and other methods 405 with Allow, at /metrics and /healthz', async () => {
    for (const path of ['/metrics', '/healthz']) {
      const url = new URL(path, gateway.url);
      const head = await fetch(url, { method: 'HEAD', headers: auth });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      for (const method of ['POST', 'DELETE', 'PUT']) {
        const refused = await fetch(url, { method, headers: auth });
        expect(refused.status).toBe(405);
        expect(refused.headers.get('allow')).toBe('GET, HEAD');
        await refused.body?.cancel();
      }
    }
  });
});

describe('GET /metrics after an upstream dies', () => {
  it('counts the reconnect and shows the connector connected again', async () => {
    const pid = toolkit.connector('fx')?.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    const back = new Promise<void>((resolve) => {
      let left = false;
      const stop = toolkit.onEvent((event) => {
        if (event.type !== 'state_change' || event.namespace !== 'fx') return;
        if (event.state !== 'connected') left = true;
        else if (left) {
          stop();
          resolve();
        }
      });
    });
    // The fixture child this test's toolkit started.
    process.kill(pid, 'SIGKILL');
    await back;
    const text = await (await scrape()).text();
    expect(sample(text, 'toolplane_connector_reconnects_total', { namespace: 'fx' })).toBe(1);
    expect(sample(text, 'toolplane_connector_state', { namespace: 'fx', state: 'connected' })).toBe(
      1,
    );
  });
});

describe('GET /metrics as servers are removed and added', () => {
  it('counts a server removed and added again (a config reload) as no reconnect', async () => {
    const reconnects = async (): Promise<number> =>
      sample(await (await scrape()).text(), 'toolplane_connector_reconnects_total', {
        namespace: 'fx',
      }) ?? 0;
    const before = await reconnects();
    const connected = new Promise<void>((resolve) => {
      const stop = toolkit.onEvent((event) => {
        if (
          event.type === 'state_change' &&
          event.namespace === 'fx' &&
          event.state === 'connected'
        ) {
          stop();
          resolve();
        }
      });
    });
    // As `toolplane serve` replaces a server whose config changed: out at once, in again.
    const removed = toolkit.removeConnector('fx', { drainMs: 1_000 });
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    await Promise.all([removed, connected]);
    expect(await reconnects()).toBe(before);
  });
});

describe('GET /metrics in search mode', () => {
  it('counts catalogue searches, and answers 404 at /metrics on a gateway without metrics', async () => {
    const own = createGatewayMetrics();
    const searching = await serveHttp(toolkit, { port: 0, mode: 'search', metrics: own });
    const bare = await serveHttp(toolkit, { port: 0 });
    const searcher = new Client({ name: 'metrics-search', version: '0.0.0' });
    try {
      await searcher.connect(new StreamableHTTPClientTransport(searching.url));
      await searcher.callTool({ name: 'search_tools', arguments: { query: 'add numbers' } });
      await searcher.callTool({ name: 'search_tools', arguments: { query: 'echo' } });
      const text = await (await fetch(new URL('/metrics', searching.url))).text();
      expect(sample(text, 'toolplane_search_queries_total', { mode: 'search' })).toBe(2);
      expect((await fetch(new URL('/metrics', bare.url))).status).toBe(404);
    } finally {
      await searcher.close();
      await searching.close();
      await bare.close();
    }
  });
});

describe('createGatewayMetrics', () => {
  it('counts store operations and their outcome through instrumentStore', async () => {
    const own = createGatewayMetrics();
    const store = own.instrumentStore({
      listPrompts: () => Promise.resolve([]),
      getPrompt: () => Promise.reject(new Error('down')),
    } as unknown as Parameters<GatewayMetrics['instrumentStore']>[0]);
    await store.listPrompts();
    await expect(store.getPrompt('x')).rejects.toThrow('down');
    const text = await own.scrape();
    expect(sample(text, 'toolplane_store_operations_total', { op: 'listPrompts' })).toBe(1);
    expect(
      sample(text, 'toolplane_store_operations_total', { op: 'getPrompt', outcome: 'error' }),
    ).toBe(1);
    expect(
      sample(text, 'toolplane_store_operation_duration_seconds_count', { op: 'getPrompt' }),
    ).toBe(1);
  });

  it('past maxTools, counts further tools as `other`', async () => {
    const own = createGatewayMetrics({ maxTools: 2 });
    const call = (tool: string) => ({
      namespace: 'ns',
      tool,
      outcome: 'ok',
      durationMs: 1,
      sessionId: undefined,
      subject: undefined,
      requestId: 1,
      args: {},
    });
    for (const tool of ['ns:a', 'ns:b', 'ns:c', 'ns:d', 'ns:a'])
      own.observer.toolCall?.(call(tool));
    const tools = labelValues(await own.scrape(), 'toolplane_tool_calls_total', 'tool');
    expect(tools).toEqual(new Set(['ns:a', 'ns:b', 'other']));
  });

  it("writes the call series as prom-client's registry writes them", async () => {
    const own = createGatewayMetrics();
    const durations = [0.4, 3, 70, 20_000, 60_000];
    durations.forEach((durationMs, i) => {
      own.observer.toolCall?.({
        namespace: i % 2 === 0 ? 'a' : 'b "quoted"',
        tool: `t${String(i % 3)}`,
        outcome: i === 4 ? 'timeout' : 'ok',
        durationMs,
        sessionId: undefined,
        subject: undefined,
        requestId: i,
        args: {},
      });
    });
    const lines = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith('toolplane_tool_call'))
        .sort();
    const fast = lines(await own.scrape());
    expect(fast.length).toBeGreaterThan(10);
    expect(fast).toEqual(lines(await own.registry.metrics()));
  });
});
