// The fleet a fleet test file drives, started before its tests and stopped after them: three
// `toolplane serve --http` instances sharing one PostgreSQL store behind HAProxy, on 127.0.0.1.
// Test support, for vitest files only.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, echo } from './fleet-clients.js';
import {
  fleetConfig,
  freePorts,
  HAPROXY_MISSING,
  hasHaproxy,
  hasPostgres,
  POSTGRES_MISSING,
  startHaproxy,
  startInstance,
  startPostgres,
  type Haproxy,
  type Instance,
  type Postgres,
} from './fleet.js';

/** The instances' names, which their `Toolplane-Instance` header gives. */
export const NAMES = ['a', 'b', 'c'] as const;

/** What the tests of one file see of their fleet (once its `beforeAll` has run). */
export interface Fleet {
  /** The balancer's URL, where clients connect. */
  readonly url: URL;
  readonly balancer: Haproxy;
  readonly postgres: Postgres;
  /** The running instance `name`; throws when it is not running. */
  instance(name: string): Instance;
  isRunning(name: string): boolean;
  /** SIGKILLs instance `name`, which stays down until {@link Fleet.start} starts it again. */
  kill(name: string): Promise<void>;
  /** Starts instance `name` again, on its port, against the same store. */
  start(name: string): Promise<Instance>;
  /** Waits until the balancer sends requests to `name` again (its health check has passed). */
  routedTo(name: string): Promise<void>;
}

/**
 * Declares, where it is called, the fleet tests of a file that has HAProxy and the PostgreSQL
 * server binaries (skipped, with a warning, where it has not; in CI, where they must be there,
 * a failing test says which is missing), and `body` with its fleet.
 */
export function describeFleet(title: string, body: (fleet: Fleet) => void): void {
  const haproxy = hasHaproxy();
  const postgres = hasPostgres();
  const inCi = process.env.CI === 'true';
  if (!inCi && !haproxy) console.warn(HAPROXY_MISSING);
  if (!inCi && !postgres) console.warn(POSTGRES_MISSING);
  describe.runIf(inCi && !(haproxy && postgres))(`${title}, in CI`, () => {
    it('find haproxy and the PostgreSQL server binaries', () => {
      expect.fail(haproxy ? POSTGRES_MISSING : HAPROXY_MISSING);
    });
  });
  describe.skipIf(!(haproxy && postgres))(title, () => {
    body(useFleet());
  });
}

/** Starts the fleet before the tests of the enclosing `describe` and stops it after them. */
function useFleet(): Fleet {
  let dir = '';
  let pg: Postgres | undefined;
  let balancer: Haproxy | undefined;
  const instances = new Map<string, Instance>();
  const ports = new Map<string, number>();

  const instance = (name: string): Instance => {
    const found = instances.get(name);
    if (found === undefined) throw new Error(`instance ${name} is not running`);
    return found;
  };
  const start = async (name: string): Promise<Instance> => {
    const started = await startInstance({
      dir,
      name,
      port: ports.get(name) ?? 0,
      postgresUrl: pg?.url ?? '',
    });
    instances.set(name, started);
    return started;
  };
  const routedTo = async (name: string): Promise<void> => {
    const url = balancer?.url ?? new URL('http://127.0.0.1');
    const seen: string[] = [];
    const client = await connect(url, 'modern', seen);
    try {
      const deadline = Date.now() + 15_000;
      while (!seen.includes(name)) {
        if (Date.now() > deadline) throw new Error(`the balancer never routed to ${name}`);
        // A call, not tools/list: a 2026 client caches lists (their ttlMs).
        await echo(client, 'probe');
      }
    } finally {
      await client.close();
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolplane-fleet-'));
    const [balancerPort = 0, ...instancePorts] = await freePorts(1 + NAMES.length);
    NAMES.forEach((name, i) => ports.set(name, instancePorts[i] ?? 0));
    await writeFile(
      join(dir, 'toolplane.config.json'),
      JSON.stringify(fleetConfig({ balancerPort, drainMs: 5_000 }), null, 2),
    );
    pg = await startPostgres();
    // The first instance migrates the schema; the others find it done.
    await start('a');
    await Promise.all(NAMES.slice(1).map((name) => start(name)));
    balancer = await startHaproxy(dir, {
      port: balancerPort,
      servers: NAMES.map((name) => ({ name, port: ports.get(name) ?? 0 })),
    });
    for (const name of NAMES) await routedTo(name);
  }, 120_000);

  afterAll(async () => {
    await balancer?.stop();
    await Promise.all([...instances.values()].map((running) => running.stop('SIGKILL')));
    await pg?.stop();
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  }, 60_000);

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the fleet's ${what} is not running`);
    return value;
  };
  return {
    get url() {
      return started(balancer, 'balancer').url;
    },
    get balancer() {
      return started(balancer, 'balancer');
    },
    get postgres() {
      return started(pg, 'PostgreSQL');
    },
    instance,
    isRunning: (name) => instances.has(name),
    kill: async (name) => {
      await instance(name).stop('SIGKILL');
      instances.delete(name);
    },
    start,
    routedTo,
  };
}
