import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  everythingCommand,
  fixtureCommand,
  type HttpFixture,
  isAlive,
  startHttpFixture,
} from '@toolplane/fixtures';
import { ToolError } from '@toolplane/toolmodel';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CALLER_META_KEY,
  createConnector,
  requestScopedFetch,
  type UpstreamRequestHandler,
} from './connector.js';
import { isState, useStartedConnectors } from './testing/started-connectors.js';

const connect = useStartedConnectors();

describe('Connector over stdio', () => {
  it('connects, caches the lists and reports connecting then connected', async () => {
    const { connector, events } = connect(fixtureCommand('stdio'), { namespace: 'fixture' });
    await connector.ready();
    expect(connector.state).toBe('connected');
    expect(connector.lists.tools.map((tool) => tool.name)).toContain('echo');
    expect(
      events.filter((event) => event.type === 'state_change').map((event) => event.state),
    ).toEqual(['connecting', 'connected']);
    expect(events.every((event) => event.namespace === 'fixture')).toBe(true);
    const result = await connector.client!.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(result.isError).not.toBe(true);
  });

  it('pages through every list of server-everything', async () => {
    const { connector } = connect(everythingCommand());
    await connector.ready();
    expect(connector.namespace).toBe('server-everything');
    const { tools, prompts, resources, resourceTemplates } = connector.lists;
    expect(tools.map((tool) => tool.name)).toContain('echo');
    expect(prompts.length).toBeGreaterThan(0);
    expect(resources.length).toBeGreaterThan(0);
    expect(resourceTemplates.length).toBeGreaterThan(0);
  });

  it('respawns a killed server, and a call in flight fails promptly', async () => {
    const { connector, events, waitFor } = connect(fixtureCommand('stdio'), {
      backoff: { initialDelayMs: 10, maxDelayMs: 50 },
    });
    await connector.ready();
    const firstPid = connector.pid!;
    const inFlight = connector.client!.callTool({ name: 'slow', arguments: { ms: 60_000 } });
    const mark = events.length;
    process.kill(firstPid, 'SIGKILL');
    await expect(inFlight).rejects.toThrow();
    await waitFor(isState('disconnected'), mark);
    await waitFor(isState('connected'), mark);
    expect(connector.pid).not.toBe(firstPid);
    expect(connector.lists.tools.map((tool) => tool.name)).toContain('echo');
  });

  it('reports failed and retries with backoff when the command cannot start', async () => {
    const { connector, waitFor, events } = connect(
      { command: 'toolplane-no-such-command-xyz' },
      { backoff: { initialDelayMs: 5, maxDelayMs: 20 } },
    );
    await expect(connector.ready()).rejects.toSatisfy(
      (error) => ToolError.isInstance(error) && error.code === 'connector_unavailable',
    );
    await waitFor(isState('connecting'), events.findIndex(isState('failed')));
    await waitFor(isState('failed'), events.findIndex(isState('failed')) + 1);
    expect(connector.lastError?.message).toMatch(/toolplane-no-such-command-xyz/);
  });

  it('says a server that exits during its start exited, with its code and its stderr', async () => {
    const { connector } = connect(
      {
        command: process.execPath,
        args: ['-e', "console.error('boom: no API key'); process.exit(3)"],
      },
      { backoff: { initialDelayMs: 60_000 } },
    );
    await expect(connector.ready()).rejects.toSatisfy(
      (error) => ToolError.isInstance(error) && error.code === 'connector_unavailable',
    );
    expect(connector.lastError?.message).toMatch(
      /could not start "\S+": it exited with code 3 before it answered\nboom: no API key/,
    );
  });

  it('gives up an attempt that never answers initialize after connectTimeoutMs', async () => {
    const { connector } = connect(
      { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
      { connectTimeoutMs: 300, backoff: { initialDelayMs: 60_000 } },
    );
    await expect(connector.ready()).rejects.toSatisfy(
      (error) => ToolError.isInstance(error) && error.code === 'connector_unavailable',
    );
    expect(connector.state).toBe('failed');
  });

  it('says what a server that never answers wrote to stdout that is no JSON-RPC', async () => {
    const { connector } = connect(
      {
        command: process.execPath,
        args: [
          '-e',
          "console.log('Server v1.2 listening'); console.log('x'.repeat(500)); setInterval(() => {}, 1000)",
        ],
      },
      { connectTimeoutMs: 500, backoff: { initialDelayMs: 60_000 } },
    );
    await expect(connector.ready()).rejects.toSatisfy(
      (error) => ToolError.isInstance(error) && error.code === 'connector_unavailable',
    );
    const said = connector.lastError?.message ?? '';
    expect(said).toContain(
      `it wrote to stdout what is no JSON-RPC message ("Server v1.2 listening", "${'x'.repeat(200)}…")`,
    );
    expect(said).toContain('writes only JSON-RPC messages there, and its logs to stderr');
  });

  it('stops the child and stops reconnecting on close', async () => {
    const { connector, events } = connect(fixtureCommand('stdio'));
    await connector.ready();
    const pid = connector.pid!;
    await connector.close();
    expect(isAlive(pid)).toBe(false);
    expect(connector.state).toBe('disconnected');
    const count = events.length;
    expect(() => {
      connector.start();
    }).toThrow(ToolError);
    expect(events).toHaveLength(count);
  });
});

describe('Connector upstream requests', () => {
  const sample = { name: 'sample', arguments: { prompt: 'hello?' } };
  const answer = (text: string) => ({
    role: 'assistant' as const,
    model: 'test',
    content: { type: 'text' as const, text },
  });

  it('routes sampling to the handler with the caller of the call, which the server never sees', async () => {
    const seen: { caller: string; namespace: string }[] = [];
    const handler: UpstreamRequestHandler = {
      capabilities: { sampling: true },
      handle: (_request, { caller, namespace }) => {
        seen.push({ caller, namespace });
        return Promise.resolve(answer(`for ${caller}`));
      },
    };
    const { connector } = connect(fixtureCommand('stdio'), {
      namespace: 'up',
      upstreamRequests: () => handler,
    });
    await connector.ready();
    const client = connector.client;
    const result = await client?.callTool({ ...sample, _meta: { [CALLER_META_KEY]: 'me' } });
    expect(result?.content).toEqual([{ type: 'text', text: 'for me' }]);
    expect(seen).toEqual([{ caller: 'me', namespace: 'up' }]);
    const meta = await client?.callTool({
      name: 'meta',
      arguments: {},
      _meta: { [CALLER_META_KEY]: 'me', kept: 1 },
    });
    expect(meta?.structuredContent).toEqual({ kept: 1 });
  });

  it('refuses a request no caller can be found for', async () => {
    const handler: UpstreamRequestHandler = {
      capabilities: { sampling: true },
      handle: () => Promise.resolve(answer('nobody should get this')),
    };
    const { connector } = connect(fixtureCommand('stdio'), { upstreamRequests: () => handler });
    await connector.ready();
    const result = await connector.client?.callTool(sample);
    expect(result?.isError).toBe(true);
  });

  it('advertises sampling only after renegotiating with a handler', async () => {
    let handler: UpstreamRequestHandler | undefined = undefined;
    const { connector } = connect(fixtureCommand('stdio'), { upstreamRequests: () => handler });
    await connector.ready();
    const before = await connector.client?.callTool({
      ...sample,
      _meta: { [CALLER_META_KEY]: 'me' },
    });
    // The server refuses to ask a client that did not say it can answer.
    expect(before?.isError).toBe(true);
    handler = {
      capabilities: { sampling: true },
      handle: () => Promise.resolve(answer('now')),
    };
    await connector.renegotiate();
    expect(connector.state).toBe('connected');
    const after = await connector.client?.callTool({
      ...sample,
      _meta: { [CALLER_META_KEY]: 'me' },
    });
    expect(after?.content).toEqual([{ type: 'text', text: 'now' }]);
  });

  it('advertises a handler set while it was still connecting, before it is used', async () => {
    let handler: UpstreamRequestHandler | undefined = undefined;
    // A server slow to start: the handler arrives while the connection is being made.
    const fixture = fixtureCommand('stdio');
    const slow = {
      command: '/bin/sh',
      args: ['-c', 'sleep 0.3 && exec "$0" "$@"', fixture.command, ...fixture.args],
    };
    const { connector } = connect(slow, { upstreamRequests: () => handler });
    expect(connector.state).toBe('connecting');
    handler = {
      capabilities: { sampling: true },
      handle: () => Promise.resolve(answer('in time')),
    };
    await connector.renegotiate();
    await connector.ready();
    const result = await connector.client?.callTool({
      ...sample,
      _meta: { [CALLER_META_KEY]: 'me' },
    });
    expect(result?.content).toEqual([{ type: 'text', text: 'in time' }]);
  });
});

describe('Connector over Streamable HTTP', () => {
  let server: HttpFixture | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('connects to a URL with headers and a query string', async () => {
    server = await startHttpFixture();
    const url = new URL(server.url);
    url.searchParams.set('tenant', 'a b');
    const { connector } = connect({ url, headers: { 'x-test': '1' } }, { namespace: 'remote' });
    await connector.ready();
    expect(connector.lists.tools.map((tool) => tool.name)).toContain('echo');
  });

  it('reports failed for a port nothing listens on', async () => {
    const { connector } = connect('http://127.0.0.1:9/mcp', {
      backoff: { initialDelayMs: 60_000 },
    });
    await expect(connector.ready()).rejects.toSatisfy(
      (error) => ToolError.isInstance(error) && error.code === 'connector_unavailable',
    );
  });
});

describe('requestScopedFetch', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    const closing = server;
    if (closing !== undefined) await new Promise((resolve) => closing.close(resolve));
    server = undefined;
  });

  /** A server answering `/json` with JSON and `/stream` with an event stream held open until `end`. */
  async function listen(): Promise<{ url: URL; end: () => void }> {
    const open = new Set<() => void>();
    server = createServer((req, res) => {
      if (req.url === '/json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (req.url === '/broken') {
        // The server dies mid-answer, once the first event is on its way.
        res.write('data: first\n\n', () => res.socket?.destroy());
        return;
      }
      res.write('data: first\n\n');
      open.add(() => res.end('data: last\n\n'));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: new URL(`http://127.0.0.1:${port}`),
      end: () => {
        for (const end of open) end();
        open.clear();
      },
    };
  }

  it('leaves no listener on the long-lived signal once answers and streams are done', async () => {
    const { url, end } = await listen();
    const lifetime = new AbortController();
    const fetch = requestScopedFetch();
    for (let i = 0; i < 50; i++) {
      const json = await fetch(new URL('/json', url), { signal: lifetime.signal });
      expect(await json.json()).toEqual({ ok: true });
    }
    const streams = await Promise.all(
      Array.from({ length: 20 }, () => fetch(new URL('/stream', url), { signal: lifetime.signal })),
    );
    expect(getEventListeners(lifetime.signal, 'abort')).toHaveLength(1);
    end();
    const texts = await Promise.all(streams.map((response) => response.text()));
    expect(texts).toEqual(Array.from({ length: 20 }, () => 'data: first\n\ndata: last\n\n'));
    expect(getEventListeners(lifetime.signal, 'abort')).toHaveLength(0);
  });

  it('releases the listener when a stream is cancelled', async () => {
    const { url } = await listen();
    const lifetime = new AbortController();
    const response = await requestScopedFetch()(new URL('/stream', url), {
      signal: lifetime.signal,
    });
    await response.body?.cancel();
    expect(getEventListeners(lifetime.signal, 'abort')).toHaveLength(0);
  });

  it('ends every stream in progress when the long-lived signal aborts', async () => {
    const { url } = await listen();
    const lifetime = new AbortController();
    const fetch = requestScopedFetch();
    const responses = await Promise.all(
      [1, 2, 3].map(() => fetch(new URL('/stream', url), { signal: lifetime.signal })),
    );
    const reading = responses.map((response) => response.text());
    lifetime.abort(new Error('closing'));
    for (const text of reading) await expect(text).rejects.toBeDefined();
    expect(getEventListeners(lifetime.signal, 'abort')).toHaveLength(0);
  });

  it('reports a stream that breaks with the ID of the request it answered', async () => {
    const { url } = await listen();
    const broken: (string | number | undefined)[] = [];
    const fetch = requestScopedFetch({
      onStreamError: (id) => {
        broken.push(id);
      },
    });
    const lifetime = new AbortController();
    const response = await fetch(new URL('/broken', url), {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} }),
      signal: lifetime.signal,
    });
    await expect(response.text()).rejects.toBeDefined();
    expect(broken).toEqual([7]);
    expect(getEventListeners(lifetime.signal, 'abort')).toHaveLength(0);
  });

  it('rejects at once when the long-lived signal already aborted', async () => {
    const lifetime = new AbortController();
    lifetime.abort(new Error('closed'));
    await expect(
      requestScopedFetch()('http://127.0.0.1:9/', { signal: lifetime.signal }),
    ).rejects.toThrow('closed');
  });
});

describe('createConnector', () => {
  it.each([
    ['an empty command', { command: '' }],
    ['a non-http URL', 'ftp://example.com/mcp'],
    ['a malformed URL', 'not a url'],
  ])('throws invalid_config for %s', (_label, source) => {
    expect(() => createConnector(source)).toThrow(
      expect.objectContaining({ code: 'invalid_config' }) as Error,
    );
  });

  it('throws invalid_config for a namespace that breaks the rule', () => {
    expect(() => createConnector({ command: 'x' }, { namespace: 'a.b' })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }) as Error,
    );
  });
});
