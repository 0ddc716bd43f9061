/**
 * What an HTTP connector's client transport costs per call, in this process's CPU time: an SDK
 * v2 `Client` calling the fixture's `add` over Streamable HTTP (a 2025 session server in a child
 * process, so its work is not counted) through the SDK's own `StreamableHTTPClientTransport`
 * (fetch, web streams, a zod parse per message), and through the toolkit's
 * `StreamableHttpClientTransport` (undici's pool). The SDK's transport is the floor the toolkit
 * replaced; the difference is what every call through a gateway's HTTP connector saves. Medians
 * of interleaved rounds; CPU time leaves out the time spent waiting for a core on a loaded machine.
 *
 * Run: pnpm --filter @toolplane/toolkit bench
 */
import { setMaxListeners } from 'node:events';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StreamableHttpClientTransport } from '../src/connectors/transport/http-client-transport.js';
import { fixtureCommand, startHttpFixture } from '@toolplane/fixtures';

const ROUNDS = 9;
const CALLS = 300;

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

// The SDK's transport hands every request's fetch its connection-long abort signal, and Node's
// fetch drops its listener on that signal only when the request is garbage-collected: thousands
// pile up between collections. That is part of the floor as users get it, not a fault of this
// bench, so the warning about it is switched off.
setMaxListeners(0);

const fixture = await startHttpFixture({ server: fixtureCommand('http') });
const clients = new Map<string, Client>();
try {
  const transports = {
    "SDK's StreamableHTTPClientTransport (floor)": new StreamableHTTPClientTransport(fixture.url),
    "toolkit's StreamableHttpClientTransport": new StreamableHttpClientTransport(fixture.url),
  };
  for (const [name, transport] of Object.entries(transports)) {
    const client = new Client({ name: 'bench', version: '0' });
    await client.connect(transport);
    clients.set(name, client);
  }
  const wall = new Map<string, number[]>();
  const cpu = new Map<string, number[]>();
  for (const [, client] of clients) {
    for (let i = 0; i < 50; i++) await client.callTool({ name: 'add', arguments: { a: 1, b: i } });
  }
  const names = [...clients.keys()];
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length] as string;
      const client = clients.get(name) as Client;
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      for (let i = 0; i < CALLS; i++) {
        await client.callTool({ name: 'add', arguments: { a: 1, b: i } });
      }
      const used = process.cpuUsage(cpuStart);
      (wall.get(name) ?? wall.set(name, []).get(name))?.push(
        ((performance.now() - start) * 1000) / CALLS,
      );
      (cpu.get(name) ?? cpu.set(name, []).get(name))?.push((used.user + used.system) / CALLS);
    }
  }
  console.log(
    `\nHTTP client transport, callTool over Streamable HTTP (2025 session), this process's CPU per call\n  medians of ${String(ROUNDS)} interleaved rounds of ${String(CALLS)} calls`,
  );
  const floorName = names[0] as string;
  const floorCpu = median(cpu.get(floorName) ?? []);
  for (const name of names) {
    const c = median(cpu.get(name) ?? []);
    const vs =
      name === floorName
        ? ''
        : `  ×${(c / floorCpu).toFixed(2)} (${c <= floorCpu ? '−' : '+'}${Math.abs(c - floorCpu).toFixed(0)} µs CPU)`;
    console.log(
      `  ${name.padEnd(44)} ${median(wall.get(name) ?? [])
        .toFixed(0)
        .padStart(6)} µs wall, ${c.toFixed(0).padStart(5)} µs CPU${vs}`,
    );
  }
} finally {
  await Promise.all([...clients.values()].map((client) => client.close()));
  await fixture.close();
}
