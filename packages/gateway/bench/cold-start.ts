// Cold start against the peers: from spawning each HTTP server in front of one stdio upstream to
// the first full tools/list that holds the upstream's `echo` tool, the upstream's own start (a
// stdio client spawning it and listing its tools) as the floor. The upstream is
// @modelcontextprotocol/server-everything (prebuilt JavaScript, so its start is not a compile).
// Paths: the minimal bridge (bridge.ts), `toolplane serve --http` from the CLI's build (its
// bundle, as the bin runs it, and the unbundled dist/bin.js beside it), mcp-proxy, Mastra's
// MCPServer (mastra-server.ts) and mcp-hub, under offline-guard.ts with a fresh marketplace
// cache of its own, so it neither fetches the catalog nor listens beyond 127.0.0.1. The bench's
// TypeScript children are bundled with esbuild first, so none of them starts by compiling. Rounds
// run every path once, in an order that rotates; figures are medians over the rounds, with the
// middle process's CPU up to that first list (from /proc, the upstream child not included).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { freePort, median } from './measure.js';
import { bundleChildren, mcpHub, mcpProxyCommand, versionOf } from './peer-servers.js';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
/** How long a path may take to list the tool before the run fails. */
const LIMIT_MS = 60_000;
const TICK_MS = 10; // Linux's USER_HZ: /proc reports CPU time in 10 ms ticks.

const require = createRequire(import.meta.url);
const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const everything = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const upstream = { command: process.execPath, args: [everything, 'stdio'] };
const cliBin = here('../../cli/bin/toolplane.js');
const cliDist = here('../../cli/dist/bin.js');

const out = await bundleChildren(
  ['bridge.ts', 'mastra-server.ts', 'offline-guard.ts'],
  'toolplane-cold-start',
);

const work = await mkdtemp(join(tmpdir(), 'toolplane-cold-start-'));

/** CPU time of a process so far, ms (user + system). */
async function cpuOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

interface Started {
  readonly child: ChildProcess;
  /** The MCP endpoint, once the child has said where it is (or at once, when known). */
  readonly url: Promise<URL>;
  /** What the child has written so far, stdout and stderr. */
  readonly said: () => string;
}

interface ColdPath {
  readonly label: string;
  readonly sse?: boolean;
  /** Speaks only 2026-07-28 (Mastra's MCPServer), so the client pins that era. */
  readonly modern?: boolean;
  start(): Promise<Started>;
}

/** Spawns `args` and, when `announce` is set, reads its `LISTENING <url>` line. */
function run(
  args: readonly string[],
  { url, env }: { url?: URL; env?: NodeJS.ProcessEnv } = {},
): Started {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env === undefined ? {} : { env }),
  });
  let said = '';
  const announced = new Promise<URL>((resolve, reject) => {
    const seen = (chunk: string): void => {
      said += chunk;
      const match = /LISTENING (\S+)/.exec(said);
      if (url === undefined && match?.[1] !== undefined) resolve(new URL(match[1]));
    };
    child.stdout.setEncoding('utf8').on('data', seen);
    child.stderr.setEncoding('utf8').on('data', seen);
    child.once('exit', (code) => {
      reject(new Error(`${args.join(' ')} exited (${String(code)}):\n${said}`));
    });
  });
  // Its exit after the measurement (the bench ends it) is no failure when the URL was known.
  announced.catch(() => undefined);
  return {
    child,
    url: url === undefined ? announced : Promise.resolve(url),
    said: () => said,
  };
}

/** Starts a child that listens on a port given to it, at /mcp. */
const onPort = async (make: (port: number, url: URL) => Started): Promise<Started> => {
  const port = await freePort();
  return make(port, new URL(`http://127.0.0.1:${String(port)}/mcp`));
};

const toolplaneConfig = join(work, 'toolplane.config.json');
await writeFile(toolplaneConfig, JSON.stringify({ mcpServers: { fx: upstream }, store: 'memory' }));
const hub = mcpHub(work, upstream, join(out, 'offline-guard.mjs'));

const paths: ColdPath[] = [
  {
    label: 'bridge (floor + HTTP)',
    start: () =>
      Promise.resolve(run([join(out, 'bridge.mjs'), upstream.command, ...upstream.args])),
  },
  {
    label: 'toolplane serve (bin, bundle)',
    start: () =>
      onPort((port, url) =>
        run([cliBin, '--config', toolplaneConfig, 'serve', '--http', '--port', String(port)], {
          url,
        }),
      ),
  },
  {
    label: 'toolplane serve (dist/bin.js)',
    start: () =>
      onPort((port, url) =>
        run([cliDist, '--config', toolplaneConfig, 'serve', '--http', '--port', String(port)], {
          url,
        }),
      ),
  },
  {
    label: `mcp-proxy ${versionOf('mcp-proxy')}`,
    start: () => onPort((port, url) => run(mcpProxyCommand(port, upstream).args, { url })),
  },
  {
    label: `Mastra MCPServer ${versionOf('@mastra/mcp')}`,
    modern: true,
    start: () =>
      Promise.resolve(run([join(out, 'mastra-server.mjs'), upstream.command, ...upstream.args])),
  },
  {
    label: `mcp-hub ${versionOf('mcp-hub')} (SSE)`,
    sse: true,
    start: async () => {
      await hub.prepare();
      return onPort((port, url) => run(hub.command(port).args, { url, env: hub.env }));
    },
  },
];

/** ms from spawning the upstream to its tools/list answer: the floor. */
async function upstreamStart(): Promise<number> {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(new StdioClientTransport({ ...upstream, stderr: 'ignore' }));
  const { tools } = await client.listTools();
  const ms = performance.now() - started;
  await client.close();
  if (!tools.some((tool) => tool.name === 'echo')) throw new Error('the upstream lists no echo');
  return ms;
}

/** Lists the tools at `url` once: the names, or undefined while the server is not there yet. */
async function listOnce(url: URL, path: ColdPath): Promise<string[] | undefined> {
  const client = new Client(
    { name: 'bench', version: '0' },
    path.modern === true ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- mcp-hub 4.2.1 serves MCP over SSE only
  const sse = SSEClientTransport;
  const transport: Transport =
    path.sse === true ? new sse(url) : new StreamableHTTPClientTransport(url);
  try {
    await client.connect(transport);
    return (await client.listTools()).tools.map((tool) => tool.name);
  } catch {
    return undefined;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** ms from spawn to the first tools/list holding the echo tool, and the CPU spent by then. */
async function coldStart(path: ColdPath): Promise<{ ms: number; cpu: number }> {
  const started = performance.now();
  const { child, url: where, said } = await path.start();
  try {
    const url = await where;
    for (;;) {
      const names = await listOnce(url, path);
      if (said().includes('offline-guard: refused')) {
        throw new Error(`${path.label} tried to leave this machine:\n${said()}`);
      }
      if (names?.some((name) => /(^|_|:)echo$/.test(name)) === true) {
        const ms = performance.now() - started;
        return { ms, cpu: await cpuOf(child.pid ?? 0) };
      }
      if (performance.now() - started > LIMIT_MS) {
        throw new Error(`${path.label} listed no echo tool in ${String(LIMIT_MS)} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

try {
  const floor: number[] = [];
  const ms = paths.map((): number[] => []);
  const cpu = paths.map((): number[] => []);
  const loads: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    loads.push(loadavg()[0] ?? NaN);
    floor.push(await upstreamStart());
    for (let turn = 0; turn < paths.length; turn++) {
      const index = (round + turn) % paths.length;
      const measured = await coldStart(paths[index] as ColdPath);
      ms[index]?.push(measured.ms);
      cpu[index]?.push(measured.cpu);
    }
  }
  const ours = ms[1] ?? [];
  const ratio = (values: number[], of: number[]): number =>
    median(values.map((value, round) => value / (of[round] ?? NaN)));
  console.log(
    `cold start (${new Date().toISOString().slice(0, 10)}; load ${loads.map((l) => l.toFixed(1)).join(' ')} at the rounds; spawn → first tools/list holding the upstream's echo tool; ${String(ROUNDS)} rounds, medians; ratios round by round)\n`,
  );
  console.log(
    `${'path'.padEnd(32)} ${'to list'.padStart(8)} ${'× floor'.padStart(8)} ${'× ours'.padStart(7)} ${'CPU'.padStart(7)}`,
  );
  console.log(
    `${"upstream's own start (floor)".padEnd(32)} ${median(floor).toFixed(0).padStart(5)} ms ${'1.00'.padStart(7)}× ${ratio(floor, ours).toFixed(2).padStart(6)}×`,
  );
  for (const [index, path] of paths.entries()) {
    const values = ms[index] ?? [];
    console.log(
      `${path.label.padEnd(32)} ${median(values).toFixed(0).padStart(5)} ms ${ratio(values, floor).toFixed(2).padStart(7)}× ${ratio(values, ours).toFixed(2).padStart(6)}× ${median(
        cpu[index] ?? [],
      )
        .toFixed(0)
        .padStart(4)} ms`,
    );
  }
  console.log('');
} finally {
  await rm(work, { recursive: true, force: true });
}
