// tools/list through the gateway against listing the upstream directly, at 1k to 100k tools: a
// client pages through every tool (1,000 a page, both ways). First, an upstream served over
// Streamable HTTP on 127.0.0.1 (a session per client), straight from it and through a gateway
// (HTTP too, in this process) whose toolkit connects to it. Then, as users run it (built, a child
// process), in front of a stdio upstream (big-upstream.ts): over stdio against that upstream
// directly, and over HTTP against a minimal HTTP→stdio bridge (bridge.ts). The paths are measured
// in interleaved rounds after a warm-up listing, so the gateway's table is built once, as in a
// gateway that has been up for a while. Part of `pnpm bench`.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { serveHttp } from '@toolplane/gateway';
import { createToolkit, requestScopedFetch } from '@toolplane/toolkit';
import { readBody, toWebRequest, writeWebResponse } from '../src/http/fetch.js';
import { gatewayCommand } from '../src/testing/gateway-command.js';
import { catalogue, PAGE, pagedServer } from './catalogue.js';
import { announcedUrl } from './measure.js';

const SIZES = [1_000, 10_000, 30_000, 100_000];
const CHILD_SIZES = [1_000, 10_000, 100_000];
const ROUNDS = 5;
/** Rounds for `size` tools: at least ROUNDS, more for small catalogues, ~100,000 tools listed a path. */
const roundsFor = (size: number): number => Math.max(ROUNDS, Math.round(100_000 / size));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
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
    const server = pagedServer(tools);
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

// LIST_CHILDREN_ONLY=1 runs the second part alone.
const IN_PROCESS = process.env.LIST_CHILDREN_ONLY === undefined;
if (IN_PROCESS)
  console.log(
    `tools/list, every page (${PAGE} a page), interleaved rounds (≥ ${ROUNDS}, ~100,000 tools listed a path), medians:`,
  );
for (const size of IN_PROCESS ? SIZES : []) {
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

// -- as users run it: child processes, in front of a stdio upstream ---------------------------

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

/** A client of one listing path, and how to stop it (and the processes it started). */
interface ListPath {
  readonly client: Client;
  close(): Promise<void>;
}

async function stdioPath(command: string, args: string[]): Promise<ListPath> {
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
  return { client, close: () => client.close() };
}

async function httpPath(command: string, args: string[]): Promise<ListPath> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await announcedUrl(child);
  const client = await connect(url);
  return {
    client,
    close: async () => {
      await client.close();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Median ms of each path and of the round-by-round ratio of the second to the first. */
async function race(size: number, floor: ListPath, gateway: ListPath) {
  await listAll(floor.client, size);
  await listAll(gateway.client, size);
  const floorTimes: number[] = [];
  const gatewayTimes: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < roundsFor(size); round++) {
    // Which goes first alternates, so neither always meets a machine the other warmed.
    const first = round % 2 === 0;
    const a = await listAll((first ? floor : gateway).client, size);
    const b = await listAll((first ? gateway : floor).client, size);
    const [f, g] = first ? [a, b] : [b, a];
    floorTimes.push(f);
    gatewayTimes.push(g);
    ratios.push(g / f);
  }
  return { floor: median(floorTimes), gateway: median(gatewayTimes), ratios };
}

console.log(
  `\ntools/list as users run it (built gateway in a child process, in front of a stdio upstream), ${PAGE} a page, medians:`,
);
for (const size of CHILD_SIZES) {
  const upstream = {
    command: process.execPath,
    args: ['--import', tsx, here('./big-upstream.ts'), String(size)],
  };
  const through = (mode: 'stdio' | 'http') =>
    gatewayCommand([{ namespace: 'big', source: upstream }], { transparent: 'big' }, mode, {
      built: true,
      ajv: true,
    });
  {
    const direct = await stdioPath(upstream.command, upstream.args);
    const gateway = await stdioPath(through('stdio').command, through('stdio').args);
    const result = await race(size, direct, gateway);
    console.log(
      `${String(size).padStart(7)} tools, stdio: direct ${result.floor.toFixed(1)} ms, gateway ${result.gateway.toFixed(1)} ms, ratio ${median(result.ratios).toFixed(2)}x (rounds ${Math.min(...result.ratios).toFixed(2)}–${Math.max(...result.ratios).toFixed(2)}x; ${median(result.ratios) <= 1.1 ? 'met' : 'MISSED'}, target ≤ 1.1x)`,
    );
    await direct.close();
    await gateway.close();
  }
  {
    const bridge = await httpPath(process.execPath, [
      '--import',
      tsx,
      here('./bridge.ts'),
      upstream.command,
      ...upstream.args,
    ]);
    const gateway = await httpPath(through('http').command, through('http').args);
    const result = await race(size, bridge, gateway);
    console.log(
      `${String(size).padStart(7)} tools, HTTP: bridge ${result.floor.toFixed(1)} ms, gateway ${result.gateway.toFixed(1)} ms, ratio ${median(result.ratios).toFixed(2)}x (rounds ${Math.min(...result.ratios).toFixed(2)}–${Math.max(...result.ratios).toFixed(2)}x; ${median(result.ratios) <= 1.0 ? 'met' : 'MISSED'}, target ≤ 1.0x)`,
    );
    await bridge.close();
    await gateway.close();
  }
}
