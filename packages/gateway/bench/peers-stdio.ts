// The gateway against its peers over stdio, in both eras: a client talks over stdio to a process
// in the middle, itself in front of the same stdio echo upstream. Paths: the byte relay
// (relay.ts, the floor), ours (the gateway child served over stdio, built and validating with
// ajv, as `toolplane serve` does) and Mastra's MCPServer over stdio (`startStdio`, in
// mastra-server.ts), which speaks only 2026-07-28 (it rejects 2025 openings). mcp-proxy has no
// stdio server side (it turns a stdio server into an HTTP one) and mcp-hub serves only HTTP+SSE,
// so neither is in this race. Per path: the middle process's CPU per call (its own
// process.cpuUsage(), read through cpu-probe.ts; /proc's 10 ms ticks are too coarse for the relay's
// few tens of µs a call) and the client's p50, sequential calls, the paths of an era taking turns every
// 100 calls; ratios round by round against ours.
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fixtureCommand, type ServerCommand } from '@toolplane/fixtures';
import { gatewayCommand } from '../src/testing/gateway-command.js';
import { measure as measureAll, printRace } from './measure.js';
import { cpuReader, probed } from './cpu-reader.js';
import { versionOf } from './peer-servers.js';

const WARMUP = 1_000;
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CALLS = 1_000;
const BLOCKS = 10;

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
type Era = 'legacy' | 'modern';

interface Path {
  readonly label: string;
  readonly negotiated: string;
  readonly call: () => Promise<unknown>;
  readonly cpu: () => Promise<number>;
  close(): Promise<void>;
}

async function path(label: string, era: Era, middle: ServerCommand): Promise<Path> {
  const transport = new StdioClientTransport({
    command: middle.command,
    args: probed(middle),
    stderr: 'pipe',
  });
  const stderr = transport.stderr as Readable;
  const client = new Client(
    { name: 'bench', version: '0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(transport);
  const { tools } = await client.listTools();
  const echo = tools.find((tool) => /echo$/.test(tool.name))?.name ?? 'echo';
  const cpu = cpuReader(transport.pid ?? 0, stderr);
  return {
    label,
    negotiated: client.getProtocolEra() ?? era,
    call: () => client.callTool({ name: echo, arguments: { text: 'hello' } }),
    cpu,
    close: () => client.close(),
  };
}

const legacyUpstream = fixtureCommand('stdio');
const modernUpstream = fixtureCommand('stdio-dual');
const node = (script: string, ...rest: string[]): ServerCommand => ({
  command: process.execPath,
  args: ['--import', tsx, here(script), ...rest],
});
const relay = (upstream: ServerCommand) =>
  node('./relay.ts', 'stdio', upstream.command, ...upstream.args);
const gateway = gatewayCommand([{ namespace: 'fx', source: legacyUpstream }], {}, 'stdio', {
  built: true,
  ajv: true,
});
const mastra = node(
  './mastra-server.ts',
  '--stdio',
  legacyUpstream.command,
  ...legacyUpstream.args,
);
const mastraLabel = `Mastra MCPServer ${versionOf('@mastra/mcp')}`;

// The floors pass bytes to an upstream that speaks the client's era; ours and Mastra's serve
// both in front of the 2025 upstream (their hop is what is measured).
const eras: [Era, () => Promise<Path[]>, string[]][] = [
  [
    'legacy',
    async () => [
      await path('byte relay (floor)', 'legacy', relay(legacyUpstream)),
      await path('toolplane gateway', 'legacy', gateway),
    ],
    [`${mastraLabel}: no 2025 era over stdio (it rejects legacy openings)`],
  ],
  [
    'modern',
    async () => [
      await path('byte relay (floor)', 'modern', relay(modernUpstream)),
      await path('toolplane gateway', 'modern', gateway),
      await path(mastraLabel, 'modern', mastra),
    ],
    [],
  ],
];

console.log(
  `peers over stdio (${new Date().toISOString().slice(0, 10)}; load ${loadavg()
    .map((value) => value.toFixed(2))
    .join(
      ' ',
    )}; stdio client → middle process → stdio echo upstream; ${String(WARMUP)} warm-up calls a path, ${String(ROUNDS)} rounds of ${String(CALLS)} sequential calls, paths taking turns every ${String(CALLS / BLOCKS)}; CPU of the middle process from its process.cpuUsage())\n`,
);
for (const [era, open, absent] of eras) {
  const paths = await open();
  const measured = await measureAll(paths, {
    warmup: WARMUP,
    rounds: ROUNDS,
    calls: CALLS,
    blocks: BLOCKS,
  });
  for (const p of paths) await p.close();
  printRace(`${era === 'legacy' ? '2025-11-25' : '2026-07-28'} era over stdio`, paths, measured);
  for (const line of [
    ...absent,
    `mcp-proxy ${versionOf('mcp-proxy')}: no stdio server side (it serves a stdio server over HTTP)`,
    `mcp-hub ${versionOf('mcp-hub')}: no stdio server side (it serves HTTP+SSE)`,
  ]) {
    console.log(`  not in this race: ${line}`);
  }
  console.log('');
}
