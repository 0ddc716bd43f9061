// Memory per open HTTP session against the peers: each server a child process in front of the
// same stdio echo upstream (ours as the gateway child peers.ts runs, built and validating with
// ajv; mcp-proxy; mcp-hub under offline-guard; Mastra's MCPServer), and real SDK clients in this
// process, each connected (initialize, or Mastra's 2026 discovery) and making one echo call, then
// kept open. After WARM sessions (so lazily loaded code is in the baseline) and again at each of
// COUNTS open sessions, the child is asked for its heap after GC (mem-probe.ts, preloaded with
// --expose-gc, answers SIGUSR2) and its VmRSS is read from /proc (after that GC); per-session
// figures are (at N − baseline) / (N − WARM). mcp-hub speaks the older HTTP+SSE transport: its
// sessions are SSE connections. Mastra's MCPServer is stateless (2026-07-28 only): it holds no
// session, so its figure is what one more open client (connected, one call made, its keep-alive
// connection left open) costs it. Runs take the servers in a rotating order; medians of RUNS.
// RUNS, SESSIONS (counts, comma-separated) and PEERS (label words) narrow a run.
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { fixtureCommand, type ServerCommand } from '@toolplane/fixtures';
import type { ServeHttpOptions } from '@toolplane/gateway';
import { requestScopedFetch } from '@toolplane/toolkit';
import { gatewayCommand } from '../src/testing/gateway-command.js';
import { freePort, median } from './measure.js';
import {
  bundleChildren,
  mcpHub,
  mcpProxyCommand,
  onStderrLine,
  rssOf,
  startMiddle,
  stop,
  versionOf,
  type Middle,
} from './peer-servers.js';

const RUNS = Number(process.env.RUNS ?? 3);
const COUNTS = (process.env.SESSIONS ?? '200,1000').split(',').map(Number);
const WARM = 20;
/** Sessions opened at once. */
const BATCH = 25;

const require = createRequire(import.meta.url);
const tsx = pathToFileURL(require.resolve('tsx')).href;
const out = await bundleChildren(
  ['mastra-server.ts', 'offline-guard.ts', 'mem-probe.ts'],
  'toolplane-peers-memory',
);
const probe = ['--expose-gc', '--import', pathToFileURL(join(out, 'mem-probe.mjs')).href];
const upstream = fixtureCommand('stdio');
const work = await mkdtemp(join(tmpdir(), 'toolplane-peers-memory-'));
const hub = mcpHub(work, upstream, pathToFileURL(join(out, 'offline-guard.mjs')).href);

type Kind = 'session' | 'sse' | 'stateless';

interface Server {
  readonly label: string;
  readonly kind: Kind;
  start(): Promise<Middle>;
}

const withProbe = (command: ServerCommand): ServerCommand => ({
  command: command.command,
  args: [...probe, ...command.args],
});
// Its defaults cap one source at 512 open connections (half of 1,024), against a flood from one
// address; every client here is on 127.0.0.1 and holds a GET stream open, so the caps are raised
// as a deployment expecting this many clients would. The peers have no such caps.
// (The child passes its options on to serveHttp, so HTTP options travel in them.)
const caps: Omit<ServeHttpOptions, 'port'> = {
  maxConnections: 4_096,
  maxConnectionsPerSource: 4_096,
};
const ours = gatewayCommand([{ namespace: 'fx', source: upstream }], caps, 'http', {
  built: true,
  ajv: true,
});
if (!ours.args.includes(tsx)) throw new Error('the gateway child runs under tsx');

const allServers: Server[] = [
  { label: 'toolplane gateway', kind: 'session', start: () => startMiddle(withProbe(ours)) },
  {
    label: `mcp-proxy ${versionOf('mcp-proxy')}`,
    kind: 'session',
    start: async () => {
      const port = await freePort();
      return startMiddle(withProbe(mcpProxyCommand(port, upstream)), {
        port,
        ready: /starting server/,
      });
    },
  },
  {
    label: `mcp-hub ${versionOf('mcp-hub')} (SSE)`,
    kind: 'sse',
    start: async () => {
      await hub.prepare();
      const port = await freePort();
      // Ready once it listens; its upstream may still be starting (see openSession).
      return startMiddle(hub.command(port, probe), { port, ready: /./, env: hub.env });
    },
  },
  {
    label: `Mastra MCPServer ${versionOf('@mastra/mcp')} (stateless)`,
    kind: 'stateless',
    start: () =>
      startMiddle({
        command: process.execPath,
        args: [...probe, join(out, 'mastra-server.mjs'), upstream.command, ...upstream.args],
      }),
  },
];

// PEERS=toolplane,mcp-hub measures only the servers whose label holds one of the words.
const only = process.env.PEERS?.toLowerCase().split(',');
const servers = allServers.filter(
  (server) => only === undefined || only.some((word) => server.label.toLowerCase().includes(word)),
);

/** Asks the child for its heap after GC; its VmRSS read once it has answered. */
function memoryReader(middle: Middle): () => Promise<{ heap: number; rss: number }> {
  const waiting: ((heap: number) => void)[] = [];
  onStderrLine(middle.child, (line) => {
    const match = /HEAP (\d+)$/.exec(line);
    if (match !== null) waiting.shift()?.(Number(match[1]));
  });
  const pid = middle.child.pid ?? 0;
  return async () => {
    const heap = await new Promise<number>((resolve) => {
      waiting.push(resolve);
      process.kill(pid, 'SIGUSR2');
    });
    return { heap, rss: rssOf(pid) };
  };
}

/** One client: connected, one echo call made, left open. */
async function openSession(server: Server, url: URL, tool: { name?: string }): Promise<Client> {
  const client = new Client(
    { name: 'bench', version: '0' },
    server.kind === 'stateless' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- mcp-hub 4.2.1 serves MCP over SSE only
  const sse = SSEClientTransport;
  const transport: Transport =
    server.kind === 'sse'
      ? new sse(url, { fetch: requestScopedFetch() })
      : new StreamableHTTPClientTransport(url, { fetch: requestScopedFetch() });
  await client.connect(transport);
  // The first client waits for the tool: mcp-hub listens before its upstream is up.
  for (let tries = 0; tool.name === undefined; tries++) {
    const { tools } = await client.listTools();
    tool.name = tools.find((t) => /echo$/.test(t.name))?.name;
    if (tool.name !== undefined) break;
    if (tries > 300) throw new Error(`${server.label} lists no echo tool`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await client.callTool({ name: tool.name, arguments: { text: 'hello' } });
  return client;
}

interface Figures {
  /** Per count: bytes per session (heap after GC, VmRSS). */
  readonly heap: number[];
  readonly rss: number[];
  readonly era: string;
}

async function measureServer(server: Server): Promise<Figures> {
  const middle = await server.start();
  const memory = memoryReader(middle);
  const clients: Client[] = [];
  const tool: { name?: string } = {};
  const openUpTo = async (count: number): Promise<void> => {
    while (clients.length < count) {
      const batch = Math.min(BATCH, count - clients.length);
      clients.push(
        ...(await Promise.all(
          Array.from({ length: batch }, () => openSession(server, middle.url, tool)),
        )),
      );
      if (middle.said().includes('offline-guard: refused')) {
        throw new Error(`${server.label} tried to leave this machine:\n${middle.said()}`);
      }
    }
  };
  try {
    clients.push(await openSession(server, middle.url, tool));
    await openUpTo(WARM);
    const base = await memory();
    const heap: number[] = [];
    const rss: number[] = [];
    for (const count of COUNTS) {
      await openUpTo(count);
      const now = await memory();
      process.stderr.write(`${server.label}: ${String(count)} open\n`);
      heap.push((now.heap - base.heap) / (count - WARM));
      rss.push((now.rss - base.rss) / (count - WARM));
    }
    return { heap, rss, era: clients[0]?.getProtocolEra() ?? '?' };
  } finally {
    for (let i = 0; i < clients.length; i += BATCH) {
      await Promise.all(clients.slice(i, i + BATCH).map((c) => c.close().catch(() => undefined)));
    }
    await stop(middle.child);
  }
}

const loads: number[] = [];
const results = servers.map((): Figures[] => []);
try {
  for (let run = 0; run < RUNS; run++) {
    for (let turn = 0; turn < servers.length; turn++) {
      const index = (run + turn) % servers.length;
      loads.push(loadavg()[0] ?? NaN);
      results[index]?.push(await measureServer(servers[index] as Server));
    }
  }
} finally {
  await rm(work, { recursive: true, force: true });
}

const kb = (bytes: number): string => (bytes / 1024).toFixed(1);
console.log(
  `memory per open HTTP session (${new Date().toISOString().slice(0, 10)}; load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}; each server a child in front of a stdio echo upstream; sessions opened ${String(BATCH)} at a time by SDK clients in the bench process, each initialized and one call made, kept open; heap after GC via a preloaded probe, VmRSS from /proc; per session above a baseline of ${String(WARM)} open sessions; medians of ${String(RUNS)} runs, each run's figures in brackets)\n`,
);
console.log(
  `${'peer'.padEnd(40)} ${COUNTS.map((n) => `heap KB @${String(n)}`.padStart(28)).join(' ')} ${COUNTS.map((n) => `RSS KB @${String(n)}`.padStart(30)).join(' ')}  era`,
);
for (const [index, server] of servers.entries()) {
  const runs = results[index] ?? [];
  const column = (pick: (f: Figures) => number[], at: number, width: number): string => {
    const values = runs.map((f) => pick(f)[at] ?? NaN);
    return `${kb(median(values))} [${values.map(kb).join(' ')}]`.padStart(width);
  };
  console.log(
    `${server.label.padEnd(40)} ${COUNTS.map((_, at) => column((f) => f.heap, at, 28)).join(' ')} ${COUNTS.map((_, at) => column((f) => f.rss, at, 30)).join(' ')}  ${runs[0]?.era ?? ''}`,
  );
}
console.log(
  '\nMastra: stateless, no session is held; its row is what one more open client costs it.\n',
);
