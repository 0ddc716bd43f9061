/**
 * Three toolplane gateways behind HAProxy, one PostgreSQL store, all on 127.0.0.1: a 2026-07-28
 * client's calls spread over every instance, a 2025 session stays on one, and a prompt written
 * to the store reaches a listener held on another instance. Checks its own output and exits
 * non-zero on a mismatch, so CI runs it as a test.
 */
import assert from 'node:assert/strict';
import {
  Client,
  StreamableHTTPClientTransport,
  type FetchLike,
} from '@modelcontextprotocol/client';
import { createPostgresStore } from '@toolplane/store-postgres';
import { missing, startFleet } from './fleet.js';

const reason = missing();
if (reason !== undefined) {
  console.error(`fleet: cannot run: ${reason}`);
  process.exit(2);
}

/** A client whose every request notes the instance that answered (`Toolplane-Instance`). */
async function connect(url: URL, era: 'modern' | 'legacy', seen: string[]): Promise<Client> {
  const tally: FetchLike = async (input, init) => {
    const response = await fetch(input, init);
    seen.push(response.headers.get('toolplane-instance') ?? '?');
    return response;
  };
  const client = new Client(
    { name: `fleet-example-${era}`, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: tally }));
  return client;
}

const count = (names: readonly string[]): Record<string, number> =>
  Object.fromEntries(
    [...new Set(names)].sort().map((n) => [n, names.filter((x) => x === n).length]),
  );

const fleet = await startFleet({ instances: 3 });
try {
  console.log(
    `fleet: HAProxy on ${fleet.url.href}, instances ${[...fleet.instances.keys()].join(', ')}`,
  );

  // 2026-07-28: no session, so every request may go to any instance.
  const modernSeen: string[] = [];
  const modern = await connect(fleet.url, 'modern', modernSeen);
  const calls = await Promise.all(
    Array.from({ length: 90 }, (_, i) =>
      modern.callTool({
        name: 'builtin__json_format',
        arguments: { json: `{"call":${String(i)}}`, indent: 0 },
      }),
    ),
  );
  calls.forEach((result, i) => {
    assert.deepEqual(result.structuredContent, {
      text: `{"call":${String(i)}}`,
      bytes: `{"call":${String(i)}}`.length,
    });
  });
  await modern.close();
  const modernCounts = count(modernSeen);
  console.log(`fleet: 2026 client, 90 calls answered by ${JSON.stringify(modernCounts)}`);
  assert.deepEqual(Object.keys(modernCounts), [...fleet.instances.keys()]);

  // 2025: a session lives in one instance; HAProxy's stick table keeps it there.
  const legacySeen: string[] = [];
  const legacy = await connect(fleet.url, 'legacy', legacySeen);
  for (let i = 0; i < 10; i++) {
    await legacy.callTool({ name: 'builtin__json_format', arguments: { json: '[1]' } });
  }
  await legacy.close();
  const legacyCounts = count(legacySeen.filter((name) => name !== '?'));
  console.log(`fleet: 2025 session, every request answered by ${JSON.stringify(legacyCounts)}`);
  assert.equal(Object.keys(legacyCounts).length, 1);

  // A prompt written to the shared store reaches a subscriptions/listen stream on gw3.
  const gw3 = fleet.instances.get('gw3') ?? fleet.url;
  const listener = await connect(gw3, 'modern', []);
  const heard = new Promise<number>((resolve) => {
    listener.setNotificationHandler('notifications/prompts/list_changed', () => {
      resolve(performance.now());
    });
  });
  const subscription = await listener.listen({ promptsListChanged: true });
  const writer = await createPostgresStore({ connectionString: fleet.postgresUrl });
  const written = performance.now();
  await writer.putPrompt({ name: 'standup', description: 'Daily standup notes', template: 'Hi' });
  const ms = (await heard) - written;
  await writer.close();
  const { prompts } = await listener.listPrompts();
  await subscription.close();
  await listener.close();
  console.log(`fleet: prompt written to the store, heard on gw3 after ${ms.toFixed(0)} ms`);
  assert.ok(prompts.some((p) => p.name === 'user__standup'));

  console.log('fleet: all checks passed');
} finally {
  await fleet.stop();
}
