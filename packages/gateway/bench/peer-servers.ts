// What the peers benchmarks (peers.ts, peers-memory.ts, peers-stdio.ts, cold-start.ts) share:
// a process's CPU and resident set from /proc, starting an HTTP server in the middle and waiting
// for its port, the bench's TypeScript children bundled with esbuild (so that no child starts by
// compiling, nor carries tsx's loader in its heap), and how mcp-hub is run without leaving this
// machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerCommand } from '@toolplane/fixtures';
import { build } from 'esbuild';

// Linux's USER_HZ: /proc reports CPU time in these ticks.
const TICK_US = 10_000;

const require = createRequire(import.meta.url);
const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

/** A process's CPU time so far (user + system, µs), from /proc (10 ms ticks). */
export function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

/** A process's resident set now (VmRSS, bytes), from /proc. */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (match === null) throw new Error(`no VmRSS for process ${String(pid)}`);
  return Number(match[1]) * 1024;
}

/** The installed version of a peer's npm package. */
export const versionOf = (name: string): string =>
  (require(`${name}/package.json`) as { version: string }).version;

/** A process in the middle, started by {@link startMiddle}. */
export interface Middle {
  readonly child: ChildProcess;
  readonly url: URL;
  /** What the child has written so far, stdout and stderr. */
  readonly said: () => string;
}

/**
 * Starts `middle` (announcing `LISTENING <url>`, or at `port` once `ready` is printed), with
 * `env` as its environment when given, and returns once its port takes connections.
 */
export async function startMiddle(
  middle: ServerCommand,
  {
    port,
    ready = /LISTENING (\S+)/,
    env,
  }: { port?: number; ready?: RegExp; env?: NodeJS.ProcessEnv } = {},
): Promise<Middle> {
  const child = spawn(middle.command, middle.args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env === undefined ? {} : { env }),
  });
  let out = '';
  const url = await new Promise<URL>((resolve, reject) => {
    const seen = (chunk: string): void => {
      // Kept short: a chatty peer logging every session would otherwise grow it without end.
      out = (out + chunk).slice(-100_000);
      const match = ready.exec(out);
      if (match === null) return;
      resolve(
        new URL(port === undefined ? (match[1] ?? '') : `http://127.0.0.1:${String(port)}/mcp`),
      );
    };
    child.stdout.setEncoding('utf8').on('data', seen);
    child.stderr.setEncoding('utf8').on('data', seen);
    child.once('exit', () => {
      reject(new Error(`${middle.args.join(' ')} exited: ${out}`));
    });
  });
  // A child may say it is starting before it listens: wait for the port to take connections.
  for (let tries = 0; ; tries++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.end();
        resolve(true);
      }).once('error', () => {
        resolve(false);
      });
    });
    if (open) break;
    if (tries > 100) throw new Error(`${url.href} never took a connection`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, url, said: () => out };
}

/** Sends SIGTERM to a child started here and waits for its exit. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * The bench's TypeScript children (`entries`, file names in this folder) bundled as ESM into
 * the package's cache folder `name`; returns that folder, each entry there as `<entry>.mjs`.
 * Inside the package, so that the bundles' package imports resolve from its node_modules.
 */
export async function bundleChildren(entries: readonly string[], name: string): Promise<string> {
  const out = here(`../node_modules/.cache/${name}/`);
  await rm(out, { recursive: true, force: true });
  await build({
    entryPoints: entries.map(here),
    outdir: out,
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    logLevel: 'error',
  });
  return out;
}

/** The arguments of mcp-proxy's CLI serving Streamable HTTP on `port` of 127.0.0.1. */
export function mcpProxyCommand(port: number, upstream: ServerCommand): ServerCommand {
  return {
    command: process.execPath,
    args: [
      require.resolve('mcp-proxy/dist/bin/mcp-proxy.mjs'),
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--server',
      'stream',
      '--',
      upstream.command,
      ...upstream.args,
    ],
  };
}

/**
 * mcp-hub in front of `upstream`, run under offline-guard (its bundle at `guard`), with a home of
 * its own under `work`: it listens on every interface (no host option) and fetches a marketplace
 * catalog from the internet as it starts. `prepare()` writes its config and a fresh catalog cache
 * (a catalog younger than its one-hour TTL is used as is, never fetched) before each start.
 */
export function mcpHub(
  work: string,
  upstream: ServerCommand,
  guard: string,
): {
  readonly prepare: () => Promise<void>;
  readonly command: (port: number, nodeFlags?: readonly string[]) => ServerCommand;
  readonly env: NodeJS.ProcessEnv;
} {
  const home = join(work, 'hub-home');
  const config = join(work, 'mcp-hub.json');
  return {
    prepare: async () => {
      await writeFile(config, JSON.stringify({ mcpServers: { fx: upstream } }));
      const cache = join(home, 'data', 'mcp-hub', 'cache');
      await mkdir(cache, { recursive: true });
      await writeFile(
        join(cache, 'registry.json'),
        JSON.stringify({
          registry: {
            version: 'bench',
            generatedAt: Date.now(),
            totalServers: 1,
            servers: [{ id: 'bench', name: 'bench', description: 'offline placeholder' }],
          },
          lastFetchedAt: Date.now(),
          serverDocumentation: {},
        }),
      );
    },
    command: (port, nodeFlags = []) => ({
      command: process.execPath,
      args: [
        ...nodeFlags,
        '--import',
        guard,
        require.resolve('mcp-hub/dist/cli.js'),
        '--port',
        String(port),
        '--config',
        config,
      ],
    }),
    env: {
      PATH: process.env.PATH,
      HOME: home,
      XDG_DATA_HOME: join(home, 'data'),
      XDG_STATE_HOME: join(home, 'state'),
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_CACHE_HOME: join(home, 'cache'),
    },
  };
}

/** Calls `onLine` with each whole line `child` writes on stderr (its probes answer there). */
export function onStderrLine(child: ChildProcess, onLine: (line: string) => void): void {
  let buffered = '';
  child.stderr?.on('data', (chunk: string | Buffer) => {
    buffered += String(chunk);
    let end: number;
    while ((end = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      onLine(line);
    }
  });
}
