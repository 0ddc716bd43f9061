// A fleet as the fleet tests and the bench start it, all on 127.0.0.1: a throwaway PostgreSQL
// server (scripts/postgres.sh), N `toolplane serve --http` instances sharing it, and HAProxy
// from the system's packages in front of them. Test and bench support (and the fleet example's
// launcher, through `@toolplane/cli/testing`), not part of the published package.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fixtureCommand } from '@toolplane/fixtures';
import type { PostgresServer } from '@toolplane/store-postgres/testing';
import { binCommand, exited, listeningUrl, startCli } from './cli-process.js';

/** What to tell a developer whose machine has no HAProxy. */
export const HAPROXY_MISSING =
  'haproxy not found, so the fleet tests are skipped. Install it with ' +
  '`apt-get install -y --no-install-recommends haproxy`; in CI it is required.';

// The throwaway PostgreSQL server the instances share is the store's own test server.
export { hasPostgres, postgresBinDir, startPostgres } from '@toolplane/store-postgres/testing';
/** A throwaway PostgreSQL server. */
export type Postgres = PostgresServer;

/** What to tell a developer whose machine has no PostgreSQL server binaries. */
export const POSTGRES_MISSING =
  'PostgreSQL server binaries (initdb, pg_ctl) not found, so the fleet tests are skipped. ' +
  'Install them with `apt-get install -y --no-install-recommends postgresql`; in CI they are required.';

/** Whether `haproxy` is on PATH. */
export function hasHaproxy(): boolean {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** `n` distinct free TCP ports on 127.0.0.1 (held together while chosen, so all differ). */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => {
            resolve(server);
          });
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** One gateway instance behind the balancer. */
export interface BackendServer {
  readonly name: string;
  readonly port: number;
  /** Where it listens (default 127.0.0.1). */
  readonly host?: string;
}

/** Options of {@link haproxyConfig}. */
export interface HaproxyConfigOptions {
  /** The port HAProxy listens on (127.0.0.1, unless {@link bind} says otherwise). */
  readonly port: number;
  /** The frontend's whole `bind` line, for a deployment (`:443 ssl crt /etc/haproxy/mcp.pem`). */
  readonly bind?: string;
  readonly servers: readonly BackendServer[];
  /** How often each instance's `/healthz` is checked (default 500 ms). */
  readonly checkIntervalMs?: number;
  /** How often while an instance's health changes (default half of `checkIntervalMs`). */
  readonly fastCheckIntervalMs?: number;
  /** Passed checks before an instance gets requests again (default 1). */
  readonly rise?: number;
}

/**
 * The HAProxy configuration of the recipe, the one the fleet tests, the fleet example and
 * docs/fleet.md (which quotes it, checked by `fleet-docs.test.ts`) use: per-request round robin
 * for 2026-07-28 requests, a stick table learnt from the `Mcp-Session-Id` answer header for 2025
 * sessions, health checks on `/healthz`, and retries elsewhere only where nothing ran (a refused
 * connection, a 503).
 */
export function haproxyConfig(options: HaproxyConfigOptions): string {
  const inter = options.checkIntervalMs ?? 500;
  const fastinter = options.fastCheckIntervalMs ?? Math.max(100, inter / 2);
  const bind = options.bind ?? `127.0.0.1:${String(options.port)}`;
  const servers = options.servers.map(
    (s) => `  server ${s.name} ${s.host ?? '127.0.0.1'}:${String(s.port)}`,
  );
  return `global
  maxconn 4096

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout http-keep-alive 10s
  # Retry elsewhere only when the request surely did not run: a refused connection, or the 503
  # a draining instance answers before doing anything. Never on a broken answer (the call may
  # have run: a client retries idempotent reads itself).
  retries 3
  option redispatch 1
  retry-on conn-failure 503
  option http-buffer-request
  # The client's address in X-Forwarded-For: list this balancer in each instance's
  # http.trustedProxies, so that per-client bounds (connections, failed tokens) hold per client.
  option forwardfor
  # A fresh connection to the instance for every request. A kept-alive one can be dead (its
  # instance just crashed, or closed it idle) before HAProxy notices; a request sent on it gets
  # no answer, and HAProxy then closes the client's kept-alive connection without a word, so a
  # call begun after a crash fails. A fresh connection to a dead instance is refused instead,
  # which the retry above sends elsewhere.
  option http-server-close

frontend mcp
  bind ${bind}
  default_backend gateways

backend gateways
  # 2026-07-28 requests carry everything they need: any instance, request by request.
  balance roundrobin
  # 2025 sessions live in the instance that created them: learn it from initialize's answer
  # header, route the session's later requests there. (A hash of the header cannot work: the
  # instance that created the session is not the one the hash would pick.)
  stick-table type string len 64 size 1m expire 30m
  stick store-response res.hdr(mcp-session-id)
  stick match req.hdr(mcp-session-id)
  # /healthz is 200 only when the instance can serve (store reachable, start-up done, not draining).
  option httpchk
  http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host 127.0.0.1
  http-check expect status 200
  default-server check inter ${String(inter)}ms fastinter ${String(fastinter)}ms fall 2 rise ${String(options.rise ?? 1)}
${servers.join('\n')}
`;
}

/** A running HAProxy. */
export interface Haproxy {
  /** The MCP endpoint through the balancer. */
  readonly url: URL;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts HAProxy in the foreground with {@link haproxyConfig}, its file written in `dir`. */
export async function startHaproxy(dir: string, options: HaproxyConfigOptions): Promise<Haproxy> {
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, haproxyConfig(options));
  execFileSync('haproxy', ['-c', '-q', '-f', file]);
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = new URL(`http://127.0.0.1:${options.port}/mcp`);
  // Ready once it accepts connections.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${stderr}`);
    try {
      await fetch(new URL('/healthz', url));
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`haproxy did not start: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const done = exited(child);
      child.kill('SIGTERM');
      await done;
    },
  };
}

/** The `requestState` key the test fleet's instances share (`TOOLPLANE_REQUEST_STATE_KEY`). */
export const FLEET_REQUEST_STATE_KEY = 'the-test-fleet-shares-this-request-state-key';

/**
 * The config every instance reads; the store's URL comes from `TOOLPLANE_POSTGRES_URL`. Two
 * 2025-era fixture upstreams: `fx`, whose eliciting and sampling tools may be replayed on another
 * instance (`replayTools`), and `fy`, whose may not.
 */
export function fleetConfig(options: { balancerPort: number; drainMs?: number }): object {
  const fixture = fixtureCommand('stdio');
  return {
    store: { postgres: '${TOOLPLANE_POSTGRES_URL}' },
    mcpServers: {
      fx: { command: fixture.command, args: fixture.args },
      fy: { command: fixture.command, args: fixture.args },
    },
    waitMs: 60_000,
    // Destructive tools ask first: an approval answer may reach any instance.
    approval: { destructive: true },
    http: {
      allowedHosts: [`127.0.0.1:${options.balancerPort}`],
      drainMs: options.drainMs ?? 5_000,
      replayTools: ['fx__elicit', 'fx__sample'],
    },
  };
}

/** One running `toolplane serve --http` instance. */
export interface Instance {
  readonly name: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** Its own endpoint, past the balancer. */
  readonly url: URL;
  /** What it printed on stderr so far. */
  readonly stderr: () => string;
  /** Sends `signal` to its process group (it and its upstream children) and waits for its exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Options of {@link startInstance}. */
export interface InstanceOptions {
  /** Where `toolplane.config.json` is. */
  readonly dir: string;
  readonly name: string;
  readonly port: number;
  readonly postgresUrl: string;
  /** `TOOLPLANE_REQUEST_STATE_KEY` (default {@link FLEET_REQUEST_STATE_KEY}). */
  readonly requestStateKey?: string;
}

/** Starts `toolplane serve --http` (the committed bin) and resolves once it serves. */
export async function startInstance(options: InstanceOptions): Promise<Instance> {
  const child = startCli(['serve', '--http', '--port', String(options.port)], {
    cwd: options.dir,
    command: binCommand,
    detached: true,
    env: {
      TOOLPLANE_POSTGRES_URL: options.postgresUrl,
      TOOLPLANE_INSTANCE_ID: options.name,
      TOOLPLANE_REQUEST_STATE_KEY: options.requestStateKey ?? FLEET_REQUEST_STATE_KEY,
    },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const url = await listeningUrl(child);
    await waitForOutputOf(child, () => stderr, /serving \(GET \/healthz/);
    return {
      name: options.name,
      port: options.port,
      child,
      url,
      stderr: () => stderr,
      stop: (signal = 'SIGKILL') => stopGroup(child, signal),
    };
  } catch (error) {
    await stopGroup(child, 'SIGKILL');
    throw error;
  }
}

/** Resolves once what `child` printed (`text()`) matches `pattern`; rejects on exit or after `ms`. */
function waitForOutputOf(
  child: ChildProcess,
  text: () => string,
  pattern: RegExp,
  ms = 60_000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      child.stderr?.off('data', check);
      child.off('exit', onExit);
      if (error === undefined) resolve();
      else reject(error);
    };
    const check = (): void => {
      if (pattern.test(text())) finish();
    };
    const onExit = (): void => {
      finish(new Error(`exited before ${String(pattern)}:\n${text()}`));
    };
    const timer = setTimeout(() => {
      finish(new Error(`timed out waiting for ${String(pattern)}:\n${text()}`));
    }, ms);
    // Listeners run in order: the one that collects `text` was added first.
    child.stderr?.on('data', check);
    child.once('exit', onExit);
    check();
  });
}

async function stopGroup(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const done = exited(child);
  try {
    process.kill(-(child.pid ?? 0), signal);
  } catch {
    child.kill(signal);
  }
  const code = await done;
  // The upstream children of a killed instance go with the group.
  if (signal !== 'SIGKILL') {
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  return code;
}
