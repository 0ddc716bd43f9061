// The gateway hop per MCP era and transport, echo tool: a 2026-07-28 client served per request
// over HTTP, a 2025 client in an HTTP session, and each era over stdio, against the direct SDK
// path (the same v2 client straight to the upstream) in interleaved rounds. Then memory per 2025
// session and per 2026 request in flight. Runs the built packages, as users run them. Part of
// `pnpm bench`.
import { spawn } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { serveHttp } from '@toolplane/gateway';
import { fixtureCommand, startHttpFixture } from '@toolplane/fixtures';
import { createToolkit, defineTool, requestScopedFetch } from '@toolplane/toolkit';
import { z } from 'zod';
import { gatewayCommand } from '../src/testing/gateway-command.js';

const CALLS = 1_400;
const RUNS = 7;
const WARMUP = 1_000;
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** Per-round medians (µs) of each call, measured in interleaved rounds after a warm-up. */
async function rounds(calls: readonly (() => Promise<unknown>)[]): Promise<number[][]> {
  for (const call of calls) for (let i = 0; i < WARMUP; i++) await call();
  const result = calls.map((): number[] => []);
  for (let run = 0; run < RUNS; run++) {
    for (const [index, call] of calls.entries()) {
      const times: number[] = [];
      for (let i = 0; i < CALLS / RUNS; i++) {
        const start = performance.now();
        await call();
        times.push((performance.now() - start) * 1000);
      }
      result[index]?.push(median(times));
    }
  }
  return result;
}

async function http(url: URL, era: 'modern' | 'legacy'): Promise<Client> {
  const client = new Client({ name: 'bench', version: '0' }, era === 'modern' ? MODERN : {});
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: requestScopedFetch() }));
  return client;
}

async function stdio(
  command: { command: string; args: readonly string[] },
  era: 'modern' | 'legacy',
): Promise<Client> {
  const client = new Client({ name: 'bench', version: '0' }, era === 'modern' ? MODERN : {});
  await client.connect(
    new StdioClientTransport({ command: command.command, args: [...command.args] }),
  );
  return client;
}

/** An HTTP gateway child (built) in front of `upstream`, announcing its URL. */
async function httpGateway(upstream: URL): Promise<{ url: URL; stop(): Promise<void> }> {
  const { command, args } = gatewayCommand(
    [{ namespace: 'fx', source: upstream.href }],
    {},
    'http',
    {
      built: true,
      ajv: true,
    },
  );
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /LISTENING (\S+)/.exec(out);
      if (match?.[1] !== undefined) resolve(new URL(match[1]));
    });
    child.once('exit', () => {
      reject(new Error(`the gateway exited: ${out}`));
    });
  });
  child.stdout.resume();
  return {
    url,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const echo = (client: Client, name: string) => () =>
  client.callTool({ name, arguments: { text: 'hello' } });

// -- HTTP: the fixture, straight and through a gateway, each era -----------------------------

const fixture = await startHttpFixture();
const gateway = await httpGateway(fixture.url);
const httpDirect = await http(fixture.url, 'legacy');
const httpLegacy = await http(gateway.url, 'legacy');
const httpModern = await http(gateway.url, 'modern');
if (httpModern.getProtocolEra() !== 'modern') throw new Error('the 2026 client fell back');
const httpRounds = await rounds([
  echo(httpDirect, 'echo'),
  echo(httpLegacy, 'fx__echo'),
  echo(httpModern, 'fx__echo'),
]);
await Promise.all([httpDirect.close(), httpLegacy.close(), httpModern.close()]);
await gateway.stop();
await fixture.close();

// -- stdio: the fixture, straight and through a gateway child, each era ----------------------

const upstream = fixtureCommand('stdio');
const viaGateway = gatewayCommand([{ namespace: 'fx', source: upstream }], {}, 'stdio', {
  built: true,
  ajv: true,
});
const stdioDirect = await stdio(upstream, 'legacy');
const stdioLegacy = await stdio(viaGateway, 'legacy');
const stdioModern = await stdio(viaGateway, 'modern');
if (stdioModern.getProtocolEra() !== 'modern') throw new Error('the 2026 client fell back');
const stdioRounds = await rounds([
  echo(stdioDirect, 'echo'),
  echo(stdioLegacy, 'fx__echo'),
  echo(stdioModern, 'fx__echo'),
]);
await Promise.all([stdioDirect.close(), stdioLegacy.close(), stdioModern.close()]);

// -- memory: per 2025 session, per 2026 request in flight -----------------------------------

const gc = (globalThis as { gc?: () => void }).gc;
let release: () => void = () => undefined;
const held = new Promise<void>((resolve) => {
  release = resolve;
});
const memToolkit = createToolkit({
  tools: [
    defineTool({
      name: 'hold',
      description: 'Answers once released.',
      input: z.object({}),
      run: async () => {
        await held;
        return 'released';
      },
    }),
  ],
});
const memGateway = await serveHttp(memToolkit, { port: 0 });
const COUNT = 100;
gc?.();
let before = process.memoryUsage().heapUsed;
const legacySessions = await Promise.all(
  Array.from({ length: COUNT }, () => http(memGateway.url, 'legacy')),
);
gc?.();
const perSession = (process.memoryUsage().heapUsed - before) / COUNT;
await Promise.all(legacySessions.map((client) => client.close()));
const modernClient = await http(memGateway.url, 'modern');
gc?.();
before = process.memoryUsage().heapUsed;
const inFlight = Array.from({ length: COUNT }, () =>
  modernClient.callTool({ name: 'builtin__hold', arguments: {} }),
);
await new Promise((resolve) => setTimeout(resolve, 500));
gc?.();
const perRequest = (process.memoryUsage().heapUsed - before) / COUNT;
release();
await Promise.all(inFlight);
await modernClient.close();
await memGateway.close();

// -- report ---------------------------------------------------------------------------------

const table = (
  transport: string,
  [direct = [], legacy = [], modern = []]: number[][],
): string[] => {
  const ratio = (path: number[]) => median(path.map((value, i) => value / (direct[i] ?? NaN)));
  return [
    `${`${transport}, direct (SDK v2 client → upstream)`.padEnd(52)} ${median(direct).toFixed(0).padStart(6)} µs`,
    `${`${transport}, 2025 session through the gateway`.padEnd(52)} ${median(legacy).toFixed(0).padStart(6)} µs  ${ratio(legacy).toFixed(2)}× direct`,
    `${`${transport}, 2026-07-28 through the gateway`.padEnd(52)} ${median(modern).toFixed(0).padStart(6)} µs  ${ratio(modern).toFixed(2)}× direct`,
  ];
};
console.log(`gateway per era (${WARMUP} calls to warm up, then ${CALLS} in ${RUNS} rounds)\n`);
for (const line of [...table('HTTP', httpRounds), ...table('stdio', stdioRounds)]) {
  console.log(line);
}
console.log(
  `memory: ${(perSession / 1024).toFixed(1)} KiB per 2025 HTTP session, ${(perRequest / 1024).toFixed(1)} KiB per 2026 request in flight${gc === undefined ? ' (run with --expose-gc for steady figures)' : ''}`,
);
