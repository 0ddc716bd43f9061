import { getEventListeners } from 'node:events';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureCommand, startHttpFixture, type HttpFixture } from '@toolplane/fixtures';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHttpClientTransport } from './http-client-transport.js';
import { requestScopedFetch } from './scoped-fetch.js';

// Node's fetch (undici) raises a signal's listener limit to 1,500 and keeps each request's abort
// listener until the request is garbage-collected; so a client that hands one long-lived signal
// to every fetch warns (MaxListenersExceededWarning) once 1,500 calls land between collections.
// After its calls, a client must hold no more than the listeners of the calls in flight: the
// count finds such a pile long before the warning would (handed the SDK's connection-long signal
// unscoped, undici's fetch left 203 listeners on it after 200 calls), and a listener kept per call
// on a plain signal is warned of past ten.
const CALLS = 200;

let fixture: HttpFixture;
const warnings: Error[] = [];
const onWarning = (warning: Error): void => {
  if (warning.name === 'MaxListenersExceededWarning') warnings.push(warning);
};
const clients: Client[] = [];

beforeAll(async () => {
  fixture = await startHttpFixture({ server: fixtureCommand('http') });
  process.on('warning', onWarning);
}, 60_000);

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  process.off('warning', onWarning);
  await fixture.close();
});

async function callMany(client: Client, signal?: AbortSignal): Promise<void> {
  for (let i = 0; i < CALLS; i++) {
    const result = await client.callTool(
      { name: 'add', arguments: { a: i, b: 1 } },
      signal === undefined ? {} : { signal },
    );
    expect(result.isError).not.toBe(true);
  }
}

describe('abort listeners after many sequential calls on one client', { timeout: 120_000 }, () => {
  it('leaves none on the caller signal of the toolkit transport', async () => {
    const client = new Client({ name: 'listeners', version: '0' });
    clients.push(client);
    await client.connect(new StreamableHttpClientTransport(fixture.url));
    const caller = new AbortController();
    await callMany(client, caller.signal);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(warnings).toEqual([]);
  });

  it('keeps the SDK transport connection-long signal at one listener with requestScopedFetch', async () => {
    const scoped = requestScopedFetch();
    // The signals the SDK's transport hands its fetch: its connection-long one, call after call.
    const seen = new Set<AbortSignal>();
    const fetch: typeof globalThis.fetch = (input, init) => {
      if (init?.signal) seen.add(init.signal);
      return scoped(input, init);
    };
    const client = new Client({ name: 'listeners', version: '0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(fixture.url, { fetch }));
    await callMany(client);
    expect(seen.size).toBeGreaterThan(0);
    for (const signal of seen) {
      expect(getEventListeners(signal, 'abort').length).toBeLessThanOrEqual(1);
    }
    expect(warnings).toEqual([]);
  });
});

describe('abort listeners with many calls in flight on one client', { timeout: 60_000 }, () => {
  it('warns of none with more calls in flight at once than the limit of ten, none with a signal', async () => {
    const client = new Client({ name: 'listeners', version: '0' });
    clients.push(client);
    await client.connect(new StreamableHttpClientTransport(fixture.url));
    // Each call reports progress once it runs on the server: the marker that all are in flight.
    const IN_FLIGHT = 12;
    let running = 0;
    let allRunning = (): void => undefined;
    const everyCallRuns = new Promise<void>((resolve) => {
      allRunning = resolve;
    });
    const calls = Array.from({ length: IN_FLIGHT }, (_, i) =>
      client.callTool(
        { name: 'slow', arguments: { ms: 60_000, label: `in-flight-${String(i)}` } },
        {
          onprogress: () => {
            running += 1;
            if (running === IN_FLIGHT) allRunning();
          },
        },
      ),
    );
    await everyCallRuns;
    expect(warnings).toEqual([]);
    // Closing the client ends the calls still waiting.
    await client.close();
    await Promise.allSettled(calls);
  });
});
