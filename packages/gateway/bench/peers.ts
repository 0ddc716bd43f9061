// The gateway against its peers from npm, each an HTTP server in front of the same stdio echo
// upstream, in both eras: a 2025 client (mcp-proxy) and a 2026-07-28 client (mcp-proxy, which
// serves both eras on one endpoint, and Mastra's MCPServer, which speaks only 2026-07-28), with
// the minimal bridge (bridge.ts) as each era's floor. Per path: the middle process's CPU per
// call, read from /proc/<pid>/stat (user + system ticks), and the client's p50, sequential calls,
// the paths of an era taking turns every 100 calls, ratios taken round by round against the
// floor. Everything on 127.0.0.1; ours runs built, validating with ajv, as `toolplane serve`
// does. mcp-hub speaks only 2025 over the older HTTP+SSE transport, and runs under
// offline-guard.ts (it binds every interface and fetches a marketplace catalog from the internet
// as it starts). The same race over stdio is peers-stdio.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { fixtureCommand, type ServerCommand } from '@toolplane/fixtures';
import { requestScopedFetch } from '@toolplane/toolkit';
import { gatewayCommand } from '../src/testing/gateway-command.js';
import { freePort, measure as measureAll, printRace } from './measure.js';
import {
  bundleChildren,
  cpuOf,
  mcpHub,
  mcpProxyCommand,
  startMiddle,
  stop,
  versionOf,
} from './peer-servers.js';

const measure = (paths: readonly Path[]) =>
  measureAll(paths, { warmup: WARMUP, rounds: ROUNDS, calls: CALLS, blocks: BLOCKS });

const WARMUP = 1_000;
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const CALLS = 1_000;
const BLOCKS = 10;

const require = createRequire(import.meta.url);
const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const tsx = require.resolve('tsx');
type Era = 'legacy' | 'modern';

interface Path {
  readonly label: string;
  readonly era: Era;
  readonly negotiated: string;
  readonly call: () => Promise<unknown>;
  readonly cpu: () => number;
  close(): Promise<void>;
}

interface Options {
  /** The port the child listens on, when it does not announce its URL. */
  readonly port?: number;
  /** What the child prints once it is starting, when it does not announce its URL. */
  readonly ready?: RegExp;
  readonly env?: NodeJS.ProcessEnv;
  /** Speaks the older HTTP+SSE transport (mcp-hub). */
  readonly sse?: boolean;
}

async function path(
  label: string,
  era: Era,
  middle: ServerCommand,
  { sse = false, ...start }: Options = {},
): Promise<Path> {
  const { child, url, said } = await startMiddle(middle, start);
  const client = new Client(
    { name: 'bench', version: '0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- mcp-hub 4.2.1 serves MCP over SSE only
  const Sse = SSEClientTransport;
  await client.connect(
    sse
      ? new Sse(url, { fetch: requestScopedFetch() })
      : new StreamableHTTPClientTransport(url, { fetch: requestScopedFetch() }),
  );
  // mcp-hub listens before its upstream is up: wait (bounded) for the tool to be listed.
  let echo: string | undefined;
  for (let tries = 0; echo === undefined; tries++) {
    const { tools } = await client.listTools();
    echo = tools.find((tool) => /echo$/.test(tool.name))?.name;
    if (echo !== undefined) break;
    if (tries > 300) throw new Error(`${label} lists no echo tool`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const pid = child.pid ?? 0;
  return {
    label,
    era,
    negotiated: client.getProtocolEra() ?? era,
    call: () => client.callTool({ name: echo, arguments: { text: 'hello' } }),
    cpu: () => cpuOf(pid),
    close: async () => {
      await client.close();
      await stop(child);
      if (said().includes('offline-guard: refused')) {
        throw new Error(`${label} tried to leave this machine:\n${said()}`);
      }
    },
  };
}

const legacyUpstream = fixtureCommand('stdio');
const modernUpstream = fixtureCommand('stdio-dual');
const node = (script: string, upstream: ServerCommand): ServerCommand => ({
  command: process.execPath,
  args: ['--import', tsx, here(script), upstream.command, ...upstream.args],
});
const gateway = gatewayCommand([{ namespace: 'fx', source: legacyUpstream }], {}, 'http', {
  built: true,
  ajv: true,
});
const proxyPort = await freePort();
const mcpProxy = mcpProxyCommand(proxyPort, legacyUpstream);
const proxyPort26 = await freePort();
const mcpProxy26 = mcpProxyCommand(proxyPort26, legacyUpstream);
const proxyVersion = versionOf('mcp-proxy');
const work = await mkdtemp(join(tmpdir(), 'toolplane-peers-'));
const guard = join(
  await bundleChildren(['offline-guard.ts'], 'toolplane-peers'),
  'offline-guard.mjs',
);
const hub = mcpHub(work, legacyUpstream, guard);
await hub.prepare();
const hubPort = await freePort();
const mastraVersion = versionOf('@mastra/mcp');

const eras: [Era, Path[]][] = [
  [
    'legacy',
    [
      await path('bridge (floor)', 'legacy', node('./bridge.ts', legacyUpstream)),
      await path('toolplane gateway', 'legacy', gateway),
      await path(`mcp-proxy ${proxyVersion}`, 'legacy', mcpProxy, {
        port: proxyPort,
        ready: /starting server/,
      }),
      await path(`mcp-hub ${versionOf('mcp-hub')} (SSE)`, 'legacy', hub.command(hubPort), {
        port: hubPort,
        ready: /./,
        env: hub.env,
        sse: true,
      }),
    ],
  ],
  [
    'modern',
    [
      await path('bridge (floor)', 'modern', node('./bridge.ts', modernUpstream)),
      await path('toolplane gateway', 'modern', gateway),
      await path(`mcp-proxy ${proxyVersion}`, 'modern', mcpProxy26, {
        port: proxyPort26,
        ready: /starting server/,
      }),
      await path(
        `Mastra MCPServer ${mastraVersion}`,
        'modern',
        node('./mastra-server.ts', legacyUpstream),
      ),
    ],
  ],
];

const load = loadavg()
  .map((value) => value.toFixed(2))
  .join(' ');
console.log(
  `peers (${new Date().toISOString().slice(0, 10)}; load ${load}; HTTP in front of a stdio echo upstream; ${String(WARMUP)} warm-up calls a path, ${String(ROUNDS)} rounds of ${String(CALLS)} sequential calls, paths taking turns every ${String(CALLS / BLOCKS)}; CPU of the middle process from /proc, 10 ms ticks)\n`,
);
for (const [era, paths] of eras) {
  const measured = await measure(paths);
  for (const p of paths) await p.close();
  printRace(`${era === 'legacy' ? '2025-11-25' : '2026-07-28'} era`, paths, measured);
  console.log('');
}
await rm(work, { recursive: true, force: true });
