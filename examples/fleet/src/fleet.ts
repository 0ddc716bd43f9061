/**
 * Starts a fleet on 127.0.0.1: a throwaway PostgreSQL server (the repository's
 * scripts/postgres.sh), N `toolplane serve --http` instances reading toolplane.config.yaml, and
 * optionally HAProxy in front of them with the configuration of docs/fleet.md. PostgreSQL, the
 * ports and HAProxy (its configuration included) come from the launcher the CLI's fleet tests use.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client,
  StreamableHTTPClientTransport,
  type FetchLike,
} from '@modelcontextprotocol/client';
import {
  freePorts,
  hasHaproxy,
  hasPostgres,
  startHaproxy,
  startPostgres,
} from '@toolplane/cli/testing';

const exampleDir = fileURLToPath(new URL('..', import.meta.url));
// The package's bin (as `npx toolplane` would run it), linked into this example's node_modules.
const toolplane = join(exampleDir, 'node_modules', '@toolplane', 'cli', 'bin', 'toolplane.js');

/** A running fleet. */
export interface Fleet {
  /** Through HAProxy when it was asked for, else the first instance's own endpoint. */
  readonly url: URL;
  /** Each instance's own endpoint, by name. */
  readonly instances: ReadonlyMap<string, URL>;
  readonly postgresUrl: string;
  /** The port the instances expect the balancer on (their allowed `Host`). */
  readonly balancerPort: number;
  stop(): Promise<void>;
}

/** Options of {@link startFleet}. */
export interface FleetOptions {
  readonly instances: number;
  /** Put HAProxy in front (default true). */
  readonly balancer?: boolean;
}

/** Whether this machine has what the fleet needs; the reason when it has not. */
export function missing(): string | undefined {
  if (!hasHaproxy()) return 'haproxy not found: apt-get install -y --no-install-recommends haproxy';
  if (!hasPostgres()) {
    return 'PostgreSQL server binaries not found: apt-get install -y --no-install-recommends postgresql';
  }
  return undefined;
}

/** Starts PostgreSQL, the instances and (by default) HAProxy; `stop()` ends them all. */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const children: ChildProcess[] = [];
  const postgres = await startPostgres();
  const postgresUrl = postgres.url;
  const stop = async (): Promise<void> => {
    await Promise.all(children.map((child) => ended(child, 'SIGTERM')));
    await postgres.stop();
  };
  try {
    const [balancerPort = 0, ...ports] = await freePorts(options.instances + 1);
    const names = ports.map((_, i) => `gw${String(i + 1)}`);
    const instances = new Map<string, URL>();
    // One key for the whole fleet, so a 2026 client's input_required retry resumes anywhere.
    const requestStateKey = randomBytes(33).toString('base64');
    // One after the other: the first migrates the store's schema.
    for (const [i, name] of names.entries()) {
      const child = spawn(
        process.execPath,
        [
          toolplane,
          'serve',
          '--http',
          '--port',
          String(ports[i]),
          '--config',
          'toolplane.config.yaml',
        ],
        {
          cwd: exampleDir,
          stdio: ['ignore', 'ignore', 'pipe'],
          env: {
            ...process.env,
            NO_COLOR: '1',
            TOOLPLANE_POSTGRES_URL: postgresUrl,
            TOOLPLANE_INSTANCE_ID: name,
            TOOLPLANE_REQUEST_STATE_KEY: requestStateKey,
            TOOLPLANE_PUBLIC_HOST: `127.0.0.1:${String(balancerPort)}`,
          },
        },
      );
      children.push(child);
      await printed(child, /serving \(GET \/healthz/);
      instances.set(name, new URL(`http://127.0.0.1:${String(ports[i])}/mcp`));
    }
    let url = instances.get('gw1') ?? new URL('http://127.0.0.1/');
    if (options.balancer !== false) {
      const balancer = await startBalancer(
        balancerPort,
        new Map(names.map((name, i) => [name, ports[i] ?? 0])),
      );
      children.push(balancer.child);
      url = balancer.url;
    }
    return { url, instances, postgresUrl, balancerPort, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A running HAProxy; see {@link startBalancer}. */
export interface Balancer {
  readonly url: URL;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts HAProxy on `port` with the recipe's configuration for `servers` (name → port) and
 * resolves once it has sent requests to each of them.
 */
export async function startBalancer(
  port: number,
  servers: ReadonlyMap<string, number>,
): Promise<Balancer> {
  const dir = await mkdtemp(join(tmpdir(), 'toolplane-haproxy-'));
  const list = [...servers].map(([name, serverPort]) => ({ name, port: serverPort }));
  let haproxy: Awaited<ReturnType<typeof startHaproxy>> | undefined;
  const stop = async (): Promise<void> => {
    await haproxy?.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    haproxy = await startHaproxy(dir, { port, servers: list });
    await healthy(haproxy.url, servers.size);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: haproxy.url, child: haproxy.child, stop };
}

/** Resolves once `child` has printed `pattern` on stderr. */
function printed(child: ChildProcess, pattern: RegExp, ms = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      reject(new Error(`timed out waiting for ${String(pattern)}:\n${text}`));
    }, ms);
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (pattern.test(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited before ${String(pattern)}:\n${text}`));
    });
  });
}

/** Waits until the balancer has answered from `count` different instances (health checks passed). */
async function healthy(url: URL, count: number): Promise<void> {
  const seen = new Set<string>();
  const client = new Client(
    { name: 'fleet-example-probe', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const tally: FetchLike = async (input, init) => {
    const response = await fetch(input, init);
    const name = response.headers.get('toolplane-instance');
    if (name !== null) seen.add(name);
    return response;
  };
  const deadline = Date.now() + 20_000;
  // HAProxy needs a moment to listen.
  for (;;) {
    try {
      await client.connect(new StreamableHTTPClientTransport(url, { fetch: tally }));
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  try {
    while (seen.size < count) {
      if (Date.now() > deadline) throw new Error(`HAProxy reached ${String(seen.size)} instances`);
      // A call, not tools/list: a 2026 client caches lists (their ttlMs).
      await client.callTool({ name: 'builtin__json_format', arguments: { json: '1' } });
    }
  } finally {
    await client.close();
  }
}

async function ended(child: ChildProcess, signal: NodeJS.Signals, ms = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  // Bounded: a child still there after `ms` is killed outright.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => {
      resolve('late');
    }, ms);
  });
  const outcome = await Promise.race([done, late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    child.kill('SIGKILL');
    await done;
  }
}
