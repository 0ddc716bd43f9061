// Gateway hop vs the direct path, echo tool, over stdio and Streamable HTTP: per-call median and
// p99, throughput at 32 concurrent calls. Each transport also gets a byte relay in the middle (a
// process that moves bytes and parses none: the floor of any hop), and the paths are measured in
// interleaved rounds so that load on the machine hits them alike. Then an HTTP gateway in front of
// a stdio upstream, ours and mcp-proxy (a peer from npm); tools/list of 1,000 aggregated tools;
// memory per session. Everything of ours runs built (dist), as users run it, and the gateway
// validates calls with @toolplane/validator-ajv, as `toolplane serve` does.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createMcpServer, serveHttp } from '@toolplane/gateway';
import { fixtureCommand, startHttpFixture, type ServerCommand } from '@toolplane/fixtures';
import { createToolkit, defineTool, requestScopedFetch } from '@toolplane/toolkit';
import { z } from 'zod';
import { gatewayCommand } from '../src/testing/gateway-command.js';
import { freePort } from './measure.js';

const CALLS = 2_100;
const RUNS = 7;
/**
 * Calls a path gets before it is measured. A gateway is a long-running process: measured cold,
 * its first thousand calls (V8 still compiling the SDK's, zod's and our hot paths) ran ~1.7× its
 * steady latency, which says nothing about the hop a user sees.
 */
const WARMUP = 2_000;
const CONCURRENCY = 32;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

interface Latency {
  readonly median: number;
  readonly p99: number;
  /** Each round's median, in round order (the paths of one call to latencies() share rounds). */
  readonly rounds: readonly number[];
}

/**
 * The latency of each call, in µs: warmed up, then measured in RUNS interleaved rounds (every
 * path once per round) so that load that comes and goes hits every path alike; the median of the
 * rounds' medians and of their p99s, and the rounds' medians for comparing paths round by round.
 */
async function latencies(calls: readonly (() => Promise<unknown>)[]): Promise<Latency[]> {
  for (const call of calls) for (let i = 0; i < WARMUP; i++) await call();
  const medians = calls.map((): number[] => []);
  const p99s = calls.map((): number[] => []);
  for (let run = 0; run < RUNS; run++) {
    for (const [index, call] of calls.entries()) {
      const times: number[] = [];
      for (let i = 0; i < CALLS / RUNS; i++) {
        const start = performance.now();
        await call();
        times.push(performance.now() - start);
      }
      medians[index]?.push(median(times) * 1000);
      p99s[index]?.push(percentile(times, 0.99) * 1000);
    }
  }
  return calls.map((_, i) => ({
    median: median(medians[i] ?? []),
    p99: median(p99s[i] ?? []),
    rounds: medians[i] ?? [],
  }));
}

async function throughput(call: () => Promise<unknown>): Promise<number> {
  const rates: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const per = Math.ceil(CALLS / CONCURRENCY);
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = 0; i < per; i++) await call();
      }),
    );
    rates.push((per * CONCURRENCY) / ((performance.now() - start) / 1000));
  }
  return median(rates);
}

async function stdioClient(command: { command: string; args: readonly string[] }): Promise<Client> {
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: command.command,
      args: [...command.args],
      stderr: 'inherit',
    }),
  );
  return client;
}

async function httpClient(url: URL): Promise<Client> {
  const client = new Client({ name: 'bench', version: '0' });
  // The fetch the gateway's connectors use, so both paths are measured without the SDK's
  // listener pile-up on its connection-long signal.
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: requestScopedFetch() }));
  return client;
}

/** A child process in the benchmark, and a way to stop it. */
interface Child {
  /** What `ready` matched in its output, e.g. the URL it listens on. */
  readonly announced: string;
  stop(): Promise<void>;
}

/**
 * Starts `command` and resolves once its output (stdout and stderr) matches `ready`, whose first
 * group is what it announced (the whole match when it has none).
 */
async function startChild(command: string, args: readonly string[], ready: RegExp): Promise<Child> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const announced = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      const match = ready.exec(buffered);
      if (match !== null) resolve(match[1] ?? match[0]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', () => {
      reject(new Error(`${command} ${args.join(' ')} exited before it was ready: ${buffered}`));
    });
  });
  child.stdout.resume();
  child.stderr.resume();
  return {
    announced,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Starts an HTTP gateway child (built) in front of `upstream`; `announced` is its URL. */
function httpGatewayChild(upstream: URL | ServerCommand): Promise<Child> {
  const source = upstream instanceof URL ? upstream.href : upstream;
  const { command, args } = gatewayCommand([{ namespace: 'fx', source }], {}, 'http', {
    built: true,
    ajv: true,
  });
  return startChild(command, args, /LISTENING (\S+)/);
}

/** Starts mcp-proxy (Streamable HTTP on 127.0.0.1) in front of the stdio fixture. */
async function mcpProxyChild(): Promise<Child & { url: URL }> {
  const bin = createRequire(import.meta.url).resolve('mcp-proxy/dist/bin/mcp-proxy.mjs');
  const port = await freePort();
  const upstream = fixtureCommand('stdio');
  const args = ['--port', String(port), '--host', '127.0.0.1', '--server', 'stream', '--'];
  const child = await startChild(
    process.execPath,
    [bin, ...args, upstream.command, ...upstream.args],
    /starting server/,
  );
  return { ...child, url: new URL(`http://127.0.0.1:${port}/mcp`) };
}

const relayEntry = fileURLToPath(new URL('./relay.ts', import.meta.url));
const tsx = (): string => createRequire(import.meta.url).resolve('tsx');

/** A byte relay over stdio in front of `upstream`, as a command (see relay.ts). */
function stdioRelay(upstream: ServerCommand): ServerCommand {
  return {
    command: process.execPath,
    args: ['--import', tsx(), relayEntry, 'stdio', upstream.command, ...upstream.args],
  };
}

/** A byte relay over TCP in front of `upstream` (an http://127.0.0.1 URL), in a child process. */
async function tcpRelay(upstream: URL): Promise<Child & { url: URL }> {
  const args = ['--import', tsx(), relayEntry, 'tcp', upstream.port];
  const child = await startChild(process.execPath, args, /LISTENING (\d+)/);
  const url = new URL(upstream);
  url.port = child.announced;
  return { ...child, url };
}

function row(label: string, r: Latency, rate: number): string {
  return `${label.padEnd(36)} median ${r.median.toFixed(0).padStart(6)} µs   p99 ${r.p99.toFixed(0).padStart(6)} µs   ${rate.toFixed(0).padStart(6)} calls/s @${CONCURRENCY}`;
}

/** The median over rounds of what `path` adds to `direct` in that round, as a multiple of it. */
function hopRatio(direct: Latency, path: Latency): number {
  return median(direct.rounds.map((d, round) => ((path.rounds[round] ?? NaN) - d) / d));
}

/** The lines comparing a transport's three paths: through/direct, and the hop against the floor. */
function verdict(name: string, direct: Latency, relay: Latency, gateway: Latency): string {
  const hop = gateway.median - direct.median;
  const floor = relay.median - direct.median;
  return (
    `${name}: through the gateway ${(gateway.median / direct.median).toFixed(2)}× the direct path; ` +
    `its hop adds ${hop.toFixed(0)} µs = ${(hop / direct.median).toFixed(2)}× the direct path ` +
    `(round by round: ${hopRatio(direct, gateway).toFixed(2)}×; target ≤ 1.3×); ` +
    `a byte relay's hop adds ${floor.toFixed(0)} µs (${(floor / direct.median).toFixed(2)}×), ` +
    `so the gateway's hop is ${(hop / Math.max(floor, 1)).toFixed(2)}× the floor of a process in the middle`
  );
}

const echo = (client: Client, name: string) => () =>
  client.callTool({ name, arguments: { text: 'hello' } });

// -- stdio ---------------------------------------------------------------------------------

const upstreamCommand = fixtureCommand('stdio');
const direct = await stdioClient(upstreamCommand);
const viaRelay = await stdioClient(stdioRelay(upstreamCommand));
const viaGateway = await stdioClient(
  gatewayCommand([{ namespace: 'fx', source: upstreamCommand }], {}, 'stdio', {
    built: true,
    ajv: true,
  }),
);
const [stdioDirect, stdioRelayed, stdioGateway] = (await latencies([
  echo(direct, 'echo'),
  echo(viaRelay, 'echo'),
  echo(viaGateway, 'fx__echo'),
])) as [Latency, Latency, Latency];
const stdioDirectRate = await throughput(echo(direct, 'echo'));
const stdioRelayRate = await throughput(echo(viaRelay, 'echo'));
const stdioGatewayRate = await throughput(echo(viaGateway, 'fx__echo'));
await direct.close();
await viaRelay.close();
await viaGateway.close();

// -- Streamable HTTP -----------------------------------------------------------------------

const fixture = await startHttpFixture();
const relayChild = await tcpRelay(fixture.url);
const gatewayChild = await httpGatewayChild(fixture.url);
const httpDirect = await httpClient(fixture.url);
const httpRelay = await httpClient(relayChild.url);
const httpVia = await httpClient(new URL(gatewayChild.announced));
const [httpDirectLatency, httpRelayLatency, httpGatewayLatency] = (await latencies([
  echo(httpDirect, 'echo'),
  echo(httpRelay, 'echo'),
  echo(httpVia, 'fx__echo'),
])) as [Latency, Latency, Latency];
const httpDirectRate = await throughput(echo(httpDirect, 'echo'));
const httpRelayRate = await throughput(echo(httpRelay, 'echo'));
const httpGatewayRate = await throughput(echo(httpVia, 'fx__echo'));
await httpDirect.close();
await httpRelay.close();
await httpVia.close();
await gatewayChild.stop();
await relayChild.stop();
await fixture.close();

// -- an HTTP gateway in front of a stdio upstream: ours and a peer's -------------------------

const ours = await httpGatewayChild(fixtureCommand('stdio'));
const peer = await mcpProxyChild();
const oursClient = await httpClient(new URL(ours.announced));
const peerClient = await httpClient(peer.url);
const [oursLatency, peerLatency] = (await latencies([
  echo(oursClient, 'fx__echo'),
  echo(peerClient, 'echo'),
])) as [Latency, Latency];
const oursRate = await throughput(echo(oursClient, 'fx__echo'));
const peerRate = await throughput(echo(peerClient, 'echo'));
await oursClient.close();
await peerClient.close();
await ours.stop();
await peer.stop();

// -- tools/list of 1,000 tools, in memory ----------------------------------------------------

const many = createToolkit({
  tools: Array.from({ length: 1_000 }, (_, i) =>
    defineTool({
      name: `tool_${i}`,
      description: `Tool number ${i}, which does thing ${i % 17}.`,
      input: z.object({ value: z.string() }),
      run: ({ value }) => value,
    }),
  ),
});
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await createMcpServer(many, { pageSize: 1_000 }).connect(serverSide);
const listClient = new Client({ name: 'bench', version: '0' });
await listClient.connect(clientSide);
const [listLatency, pingLatency] = (await latencies([
  async () => {
    const { tools } = await listClient.listTools();
    if (tools.length !== 1_000) throw new Error(`listed ${tools.length} tools`);
  },
  () => listClient.ping(),
])) as [Latency, Latency];
await listClient.close();

// -- memory per session ----------------------------------------------------------------------

const gc = (globalThis as { gc?: () => void }).gc;
const memToolkit = createToolkit({ tools: [] });
const memGateway = await serveHttp(memToolkit, { port: 0 });
const SESSIONS = 100;
gc?.();
const before = process.memoryUsage().heapUsed;
const sessions = await Promise.all(
  Array.from({ length: SESSIONS }, () => httpClient(memGateway.url)),
);
gc?.();
const after = process.memoryUsage().heapUsed;
await Promise.all(sessions.map((s) => s.close()));
await memGateway.close();

console.log(
  `gateway benchmark (${WARMUP} calls a path to warm up, then ${CALLS} in ${RUNS} interleaved rounds)\n`,
);
console.log(row('stdio, direct', stdioDirect, stdioDirectRate));
console.log(row('stdio, through a byte relay (floor)', stdioRelayed, stdioRelayRate));
console.log(row('stdio, through the gateway', stdioGateway, stdioGatewayRate));
console.log(row('HTTP, direct', httpDirectLatency, httpDirectRate));
console.log(row('HTTP, through a byte relay (floor)', httpRelayLatency, httpRelayRate));
console.log(row('HTTP, through the gateway', httpGatewayLatency, httpGatewayRate));
console.log(row('HTTP → stdio, toolplane gateway', oursLatency, oursRate));
console.log(row('HTTP → stdio, mcp-proxy 6.7.19', peerLatency, peerRate));
console.log('');
console.log(verdict('stdio', stdioDirect, stdioRelayed, stdioGateway));
console.log(
  `       direct path ${(stdioDirect.median / 390).toFixed(2)}× its floor (SDK over stdio, 390 µs)`,
);
console.log(verdict('HTTP', httpDirectLatency, httpRelayLatency, httpGatewayLatency));
console.log(
  `      direct path ${(httpDirectLatency.median / 2200).toFixed(2)}× its floor (SDK over Streamable HTTP, 2.2 ms)`,
);
console.log(
  `HTTP → stdio: toolplane/mcp-proxy ${(oursLatency.median / peerLatency.median).toFixed(2)}× the latency, ${(oursRate / peerRate).toFixed(2)}× the throughput`,
);
console.log(
  `tools/list of 1,000 tools (in memory): median ${listLatency.median.toFixed(0)} µs, p99 ${listLatency.p99.toFixed(0)} µs; ping on the same transport ${pingLatency.median.toFixed(0)} µs (floor ~100 µs)`,
);
console.log(
  `memory per HTTP session (server and client in one process, ${SESSIONS} sessions${gc === undefined ? ', no --expose-gc' : ''}): ${((after - before) / SESSIONS / 1024).toFixed(1)} KiB`,
);
