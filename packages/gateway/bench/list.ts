// tools/list through the gateway against listing the upstream directly, at 1k to 100k tools: a
// client pages through every tool (500 a page, both ways) of an upstream served over Streamable
// HTTP on 127.0.0.1 (a session per client), straight from it and through a gateway (HTTP too) whose toolkit connects to
// it. The paths are measured in interleaved rounds after a warm-up listing, so the gateway's table
// is built once, as in a gateway that has been up for a while. Part of `pnpm bench`.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { serveHttp } from '@toolplane/gateway';
import { createToolkit, requestScopedFetch } from '@toolplane/toolkit';
import { readBody, toWebRequest, writeWebResponse } from '../src/http/fetch.js';

const SIZES = [1_000, 10_000, 30_000, 100_000];
const PAGE = 500;
const ROUNDS = 5;
/** Rounds for `size` tools: at least ROUNDS, more for small catalogues, ~100,000 tools listed a path. */
const roundsFor = (size: number): number => Math.max(ROUNDS, Math.round(100_000 / size));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function catalogue(size: number): Tool[] {
  return Array.from({ length: size }, (_, i) => ({
    name: `tool_${String(i).padStart(6, '0')}`,
    description: `Does thing number ${i} with the given text and a limit.`,
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
      required: ['text'],
    },
  }));
}

/** An upstream serving `tools` over Streamable HTTP, one session per client, paged like the gateway. */
async function serveUpstream(tools: Tool[]): Promise<{ url: URL; close(): Promise<void> }> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    const request = toWebRequest(req, new URL(req.url ?? '/', 'http://upstream'), {
      body: await readBody(req),
      res,
    });
    if (known !== undefined) {
      await writeWebResponse(res, await known.handleRequest(request));
      return;
    }
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- a bare server, as upstreams often are
    const server = new Server({ name: 'big', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', (request) => {
      const start = Number(request.params?.cursor ?? 0);
      const end = start + PAGE;
      return end < tools.length
        ? { tools: tools.slice(start, end), nextCursor: String(end) }
        : { tools: tools.slice(start) };
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (session) => {
        sessions.set(session, transport);
      },
    });
    await server.connect(transport);
    await writeWebResponse(res, await transport.handleRequest(request));
  };
  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => {
          resolve();
        });
      }),
  };
}

async function connect(url: URL): Promise<Client> {
  const client = new Client({ name: 'bench', version: '0' });
  // With the SDK's own fetch, each call's listener on the transport's connection-long signal
  // stays until garbage collection, and ~1,500 calls print MaxListenersExceededWarning.
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: requestScopedFetch() }));
  return client;
}

/** Milliseconds to page through every tool; checks the count. */
async function listAll(client: Client, expected: number): Promise<number> {
  const started = performance.now();
  let count = 0;
  let cursor: string | undefined;
  do {
    // One page a request: the SDK v2's listTools() walks the pages itself, and stops at 64.
    const page = await client.request({
      method: 'tools/list',
      params: cursor === undefined ? {} : { cursor },
    });
    count += page.tools.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  if (count !== expected) throw new Error(`listed ${count} of ${expected} tools`);
  return performance.now() - started;
}

console.log(
  `tools/list, every page (${PAGE} a page), interleaved rounds (≥ ${ROUNDS}, ~100,000 tools listed a path), medians:`,
);
for (const size of SIZES) {
  const upstream = await serveUpstream(catalogue(size));
  const toolkit = createToolkit();
  toolkit.addConnector(upstream.url.href, { namespace: 'big' });
  const run = toolkit.run();
  await toolkit.ready();
  const gateway = await serveHttp(toolkit, { port: 0, transparent: 'big' });
  const direct = await connect(upstream.url);
  const through = await connect(gateway.url);
  await listAll(direct, size);
  await listAll(through, size);
  const directTimes: number[] = [];
  const gatewayTimes: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < roundsFor(size); round++) {
    const d = await listAll(direct, size);
    const g = await listAll(through, size);
    directTimes.push(d);
    gatewayTimes.push(g);
    ratios.push(g / d);
  }
  console.log(
    `${String(size).padStart(7)} tools: direct ${median(directTimes).toFixed(1)} ms, gateway ${median(gatewayTimes).toFixed(1)} ms, ratio ${median(ratios).toFixed(2)}x (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}x; ${median(ratios) <= 1.1 ? 'met' : 'MISSED'}, target ≤ 1.1x)`,
  );
  await direct.close();
  await through.close();
  await gateway.close();
  await toolkit.close();
  await run;
  await upstream.close();
}
