// The gateway hop's cost in the process in the middle, against the floor of that process: CPU
// per call (the middle process's own process.cpuUsage(), read through cpu-probe.ts) and the
// client's p50, echo tool over a stdio upstream, sequential calls. stdio: a client → gateway →
// upstream against client → byte relay → upstream (relay.ts). HTTP: a Streamable HTTP client →
// HTTP gateway → stdio upstream against the same client → a minimal HTTP→stdio bridge (bridge.ts)
// → upstream. Paths are measured in interleaved rounds; ratios are taken round by round and their
// median reported with the spread. Everything of ours runs built (dist), validating with ajv, as
// `toolplane serve` does. Targets (issue 19): CPU ≤ 1.5× the floor on both; p50 ≤ 1.2× the relay
// (stdio), ≤ 1.1× the bridge (HTTP).
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Readable } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fixtureCommand, type ServerCommand } from '@toolplane/fixtures';
import { requestScopedFetch } from '@toolplane/toolkit';
import { gatewayCommand } from '../src/testing/gateway-command.js';
import { cpuReader, probed } from './cpu-reader.js';
import { announcedUrl, measure as measureAll, median, ratios, type Measured } from './measure.js';

const measure = (paths: readonly Path[]) =>
  measureAll(paths, { warmup: WARMUP, rounds: ROUNDS, calls: CALLS, blocks: BLOCKS });

const WARMUP = 2_000;
// A 2026-07-28 client: every call a request of its own (no session), its envelope in _meta.
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
type Era = 'legacy' | 'modern';
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const CALLS = 1_000;
const BLOCKS = 10;

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

interface Path {
  readonly label: string;
  readonly call: () => Promise<unknown>;
  readonly cpu: () => Promise<number>;
  close(): Promise<void>;
}

/** A client of a stdio process in the middle (`middle` is its node script and arguments). */
async function stdioPath(
  label: string,
  middle: ServerCommand,
  tool: string,
  era: Era = 'legacy',
): Promise<Path> {
  const transport = new StdioClientTransport({
    command: middle.command,
    args: probed(middle),
    stderr: 'pipe',
  });
  const stderr = transport.stderr as Readable;
  const client = new Client({ name: 'bench', version: '0' }, era === 'modern' ? MODERN : {});
  await client.connect(transport);
  const cpu = cpuReader(transport.pid as number, stderr);
  return {
    label,
    call: () => client.callTool({ name: tool, arguments: { text: 'hello' } }),
    cpu,
    close: () => client.close(),
  };
}

/** A Streamable HTTP client of an HTTP process in the middle, started here. */
async function httpPath(
  label: string,
  middle: ServerCommand,
  tool: string,
  era: Era = 'legacy',
): Promise<Path> {
  const child = spawn(middle.command, probed(middle), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await announcedUrl(child);
  const cpu = cpuReader(child.pid as number, child.stderr);
  const client = new Client({ name: 'bench', version: '0' }, era === 'modern' ? MODERN : {});
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: requestScopedFetch() }));
  return {
    label,
    call: () => client.callTool({ name: tool, arguments: { text: 'hello' } }),
    cpu,
    close: async () => {
      await client.close();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function spread(values: readonly number[]): string {
  return `median ${median(values).toFixed(2)}×, rounds ${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}×`;
}

function report(name: string, floor: Measured, gateway: Measured, p50Target: number): void {
  const cpu = ratios(gateway.cpu, floor.cpu);
  const p50 = ratios(gateway.p50, floor.p50);
  const verdict = (values: number[], target: number): string =>
    median(values) <= target ? `met (≤ ${target}×)` : `MISSED (target ≤ ${target}×)`;
  console.log(
    `${name}: middle-process CPU per call: floor ${median(floor.cpu).toFixed(1)} µs, gateway ${median(gateway.cpu).toFixed(1)} µs`,
  );
  console.log(`  CPU ratio ${spread(cpu)}: ${verdict(cpu, 1.5)}`);
  console.log(
    `  p50: floor ${median(floor.p50).toFixed(0)} µs, gateway ${median(gateway.p50).toFixed(0)} µs; ratio ${spread(p50)}: ${verdict(p50, p50Target)}`,
  );
}

const upstream = fixtureCommand('stdio');
const node = (script: string, ...rest: string[]): ServerCommand => ({
  command: process.execPath,
  args: ['--import', tsx, here(script), ...rest],
});
const gateway = (mode: 'stdio' | 'http'): ServerCommand =>
  gatewayCommand([{ namespace: 'fx', source: upstream }], {}, mode, { built: true, ajv: true });

// BASE=<folder>: a copy of another commit's built packages made by bench/base-copy.sh. Only the
// gateway of this build and of that one are then measured, in the same interleaved rounds,
// against the same floors: the change's own ratio, which a loaded machine moves far less than
// either against its floor.
const BASE = process.env.BASE;
if (BASE !== undefined) {
  const entry = here('../src/testing/serve-gateway.ts');
  const based = (mode: 'stdio' | 'http'): ServerCommand => {
    const command = gateway(mode);
    const baseEntry = join(BASE, 'gateway', 'src', 'testing', 'serve-gateway.ts');
    return { ...command, args: command.args.map((arg) => (arg === entry ? baseEntry : arg)) };
  };
  const pairs = async (name: string, paths: Path[]): Promise<void> => {
    const [floor, base, head] = (await measure(paths)) as [Measured, Measured, Measured];
    for (const path of paths) await path.close();
    console.log(
      `${name}: floor ${median(floor.cpu).toFixed(1)} µs, base ${median(base.cpu).toFixed(1)} µs (${spread(ratios(base.cpu, floor.cpu))} the floor), this build ${median(head.cpu).toFixed(1)} µs (${spread(ratios(head.cpu, floor.cpu))}); this build / base ${spread(ratios(head.cpu, base.cpu))}`,
    );
  };
  console.log(`\nhop CPU, this build against BASE (load ${loadavg()[0]?.toFixed(2) ?? '?'})`);
  for (const era of ['legacy', 'modern'] as const) {
    const floor = era === 'legacy' ? upstream : fixtureCommand('stdio-dual');
    const relayOf = node('./relay.ts', 'stdio', floor.command, ...floor.args);
    await pairs(`stdio ${era === 'legacy' ? 2025 : 2026}`, [
      await stdioPath('relay', relayOf, 'echo', era),
      await stdioPath('base', based('stdio'), 'fx__echo', era),
      await stdioPath('gateway', gateway('stdio'), 'fx__echo', era),
    ]);
    await pairs(`HTTP ${era === 'legacy' ? 2025 : 2026}`, [
      await httpPath('bridge', node('./bridge.ts', floor.command, ...floor.args), 'echo', era),
      await httpPath('base', based('http'), 'fx__echo', era),
      await httpPath('gateway', gateway('http'), 'fx__echo', era),
    ]);
  }
  console.log(`(load at the end ${loadavg()[0]?.toFixed(2) ?? '?'})`);
  process.exit(0);
}

const relay = node('./relay.ts', 'stdio', upstream.command, ...upstream.args);
const bridge = node('./bridge.ts', upstream.command, ...upstream.args);
// The floors of the 2026 era pass a 2026 client's bytes to an upstream that speaks it; the
// gateway serves both eras in front of the same 2025 upstream (its hop is what is measured).
const dual = fixtureCommand('stdio-dual');
const relay26 = node('./relay.ts', 'stdio', dual.command, ...dual.args);
const bridge26 = node('./bridge.ts', dual.command, ...dual.args);
const stdio = [
  await stdioPath('relay', relay, 'echo'),
  await stdioPath('gateway', gateway('stdio'), 'fx__echo'),
  await stdioPath('sdk proxy', node('./sdk-proxy.ts', upstream.command, ...upstream.args), 'echo'),
  await stdioPath('relay 2026', relay26, 'echo', 'modern'),
  await stdioPath('gateway 2026', gateway('stdio'), 'fx__echo', 'modern'),
];
const [stdioRelay, stdioGateway, sdkProxy, stdioRelay26, stdioGateway26] = (await measure(
  stdio,
)) as [Measured, Measured, Measured, Measured, Measured];
for (const path of stdio) await path.close();

const http = [
  await httpPath('bridge', bridge, 'echo'),
  await httpPath('gateway', gateway('http'), 'fx__echo'),
  await httpPath('bridge 2026', bridge26, 'echo', 'modern'),
  await httpPath('gateway 2026', gateway('http'), 'fx__echo', 'modern'),
];
const [httpBridge, httpGateway, httpBridge26, httpGateway26] = (await measure(http)) as [
  Measured,
  Measured,
  Measured,
  Measured,
];
for (const path of http) await path.close();

/** The 2026 era's CPU and p50 through the gateway against the 2025 era's, round by round. */
function eraReport(name: string, legacy: Measured, modern: Measured): void {
  const cpu = ratios(modern.cpu, legacy.cpu);
  const p50 = ratios(modern.p50, legacy.p50);
  console.log(
    `${name}: gateway CPU per call 2025 ${median(legacy.cpu).toFixed(1)} µs, 2026 ${median(modern.cpu).toFixed(1)} µs; ratio ${spread(cpu)}: ${median(cpu) <= 1.1 ? 'met' : 'MISSED'} (target ≤ 1.1×); p50 ratio ${spread(p50)}`,
  );
}

console.log(
  `\nhop CPU benchmark (${new Date().toISOString().slice(0, 10)}; load ${loadavg()
    .map((load) => load.toFixed(2))
    .join(
      ' ',
    )}; ${WARMUP} calls a path to warm up, then ${ROUNDS} rounds of ${CALLS} sequential calls a path, the paths taking turns every ${CALLS / BLOCKS} calls; a loaded machine, so ratios, not times)\n`,
);
report('stdio 2025, gateway vs a byte relay', stdioRelay, stdioGateway, 1.2);
console.log(
  `  for reference, a bare SDK v2 proxy (sdk-proxy.ts): CPU ${median(sdkProxy.cpu).toFixed(1)} µs = ${spread(ratios(sdkProxy.cpu, stdioRelay.cpu))} the relay; p50 ${median(sdkProxy.p50).toFixed(0)} µs = ${spread(ratios(sdkProxy.p50, stdioRelay.p50))}`,
);
report('stdio 2026, gateway vs a byte relay', stdioRelay26, stdioGateway26, 1.2);
report('HTTP 2025 → stdio, gateway vs a minimal bridge', httpBridge, httpGateway, 1.1);
report('HTTP 2026 → stdio, gateway vs a minimal bridge', httpBridge26, httpGateway26, 1.1);
eraReport('stdio, 2026 against 2025', stdioGateway, stdioGateway26);
eraReport('HTTP, 2026 against 2025', httpGateway, httpGateway26);
