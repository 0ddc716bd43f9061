/**
 * Fleet throughput: calls/s of 2026-07-28 clients at 32 concurrent calls (builtin json_format)
 * through HAProxy to 1, 2 and 3 instances, as ratios to one instance without the balancer; the
 * balancer's own hop (sequential calls, through HAProxy vs direct); and change fan-out latency
 * (a prompt written to the store until a subscriptions/listen stream on an instance hears it).
 * Medians of several runs; the clients run on the same machine as the fleet.
 *
 *   pnpm --filter @toolplane/example-fleet bench
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createPostgresStore } from '@toolplane/store-postgres';
import { missing, startBalancer, startFleet } from '../src/fleet.js';

const CONCURRENCY = 32;
const CALLS = 1_500;
const RUNS = 5;
const HOP_CALLS = 300;

const reason = missing();
if (reason !== undefined) {
  console.error(`bench: cannot run: ${reason}`);
  process.exit(2);
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

async function clients(url: URL, n: number): Promise<Client[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const client = new Client(
        { name: 'fleet-bench', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new StreamableHTTPClientTransport(url));
      return client;
    }),
  );
}

const call = (client: Client, i: number) =>
  client.callTool({ name: 'builtin__json_format', arguments: { json: `[${String(i)}]` } });

/**
 * Calls per second of `CALLS` calls, `CONCURRENCY` at a time, over a few clients, and the share
 * of one core the clients themselves used (near 1 means the clients, not the fleet, set the pace).
 */
async function throughput(url: URL): Promise<{ rate: number; clientCpu: number }> {
  const pool = await clients(url, 4);
  try {
    await Promise.all(Array.from({ length: 64 }, (_, i) => call(pool[i % 4] as Client, i)));
    const rates: number[] = [];
    const cpu: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      let next = 0;
      const started = performance.now();
      const usage = process.cpuUsage();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, worker) => {
          while (next < CALLS) await call(pool[worker % 4] as Client, next++);
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(usage);
      rates.push(CALLS / seconds);
      cpu.push((used.user + used.system) / 1e6 / seconds);
    }
    return { rate: median(rates), clientCpu: median(cpu) };
  } finally {
    await Promise.all(pool.map((client) => client.close()));
  }
}

/** Median milliseconds of one call at a time. */
async function perCall(url: URL): Promise<number> {
  const [client] = await clients(url, 1);
  if (client === undefined) return 0;
  try {
    const times: number[] = [];
    for (let i = 0; i < HOP_CALLS; i++) {
      const started = performance.now();
      await call(client, i);
      times.push(performance.now() - started);
    }
    return median(times.slice(20));
  } finally {
    await client.close();
  }
}

const fleet = await startFleet({ instances: 3, balancer: false });
const names = [...fleet.instances.keys()];
const ports = new Map(names.map((name) => [name, Number(fleet.instances.get(name)?.port)]));
try {
  const direct = fleet.instances.get('gw1') ?? fleet.url;
  const { rate: floor, clientCpu } = await throughput(direct);
  console.log(
    `one instance, no balancer: ${floor.toFixed(0)} calls/s at ${String(CONCURRENCY)} concurrent (the floor, 1.00); clients used ${clientCpu.toFixed(2)} of a core`,
  );
  const hop: { direct: number; balanced: number } = { direct: await perCall(direct), balanced: 0 };
  for (const n of [1, 2, 3]) {
    const servers = new Map(names.slice(0, n).map((name) => [name, ports.get(name) ?? 0]));
    // The port the instances accept as Host; one balancer at a time.
    const balancer = await startBalancer(fleet.balancerPort, servers);
    try {
      const { rate, clientCpu: used } = await throughput(balancer.url);
      console.log(
        `${String(n)} instance(s) behind HAProxy: ${rate.toFixed(0)} calls/s, ${(rate / floor).toFixed(2)}× the floor, ${(rate / floor / n).toFixed(2)} per instance; clients used ${used.toFixed(2)} of a core`,
      );
      if (n === 1) hop.balanced = await perCall(balancer.url);
    } finally {
      await balancer.stop();
    }
  }
  console.log(
    `balancer hop, one call at a time: ${hop.direct.toFixed(2)} ms direct, ${hop.balanced.toFixed(2)} ms through HAProxy (${(hop.balanced / hop.direct).toFixed(2)}×)`,
  );

  // Change fan-out: a write through the store until a listener on another instance hears it.
  const [listener] = await clients(fleet.instances.get('gw3') ?? fleet.url, 1);
  const writer = await createPostgresStore({ connectionString: fleet.postgresUrl });
  if (listener !== undefined) {
    let heard: (() => void) | undefined;
    listener.setNotificationHandler('notifications/prompts/list_changed', () => {
      heard?.();
    });
    const subscription = await listener.listen({ promptsListChanged: true });
    const latencies: number[] = [];
    for (let i = 0; i < 60; i++) {
      const got = new Promise<void>((resolve) => (heard = resolve));
      const started = performance.now();
      await writer.putPrompt({ name: `p${String(i % 5)}`, template: `v${String(i)}` });
      await got;
      latencies.push(performance.now() - started);
    }
    await subscription.close();
    await listener.close();
    const settled = latencies.slice(10);
    console.log(
      `change fan-out across instances: p50 ${percentile(settled, 50).toFixed(1)} ms, p99 ${percentile(settled, 99).toFixed(1)} ms (${String(settled.length)} writes)`,
    );
  }
  await writer.close();
} finally {
  await fleet.stop();
}
