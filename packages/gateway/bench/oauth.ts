// What OAuth costs a gateway call: the same gateway over Streamable HTTP on 127.0.0.1, once with a
// static bearer token (the floor: the token is compared, nothing else) and once as an OAuth
// resource server (an ES256 JWT from a real oidc-provider, verified against its JWKS, scopes
// filtering a 1,000-tool list). tools/call of a builtin and tools/list, in interleaved rounds
// after a warm-up; medians. Then tools/call with an opaque token (RFC 7662 introspection), its
// answer cached and asked every time. The machine may be loaded: read the ratios, not the times.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { serveHttp } from '@toolplane/gateway';
import { createResourceServer } from '@toolplane/oauth';
import { startAuthorizationServer } from '@toolplane/oauth/testing';
import { createToolkit, defineTool, requestScopedFetch } from '@toolplane/toolkit';

const TOOLS = 1_000;
const ROUNDS = 7;
const CALLS = 200;
const STATIC = 'a-static-bench-token-of-32-chars';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

const tools = Array.from({ length: TOOLS }, (_, i) =>
  defineTool({
    name: `tool_${String(i)}`,
    description: `Tool ${String(i)}.`,
    input: { type: 'object', properties: { text: { type: 'string' } } },
    tags: i % 2 === 0 ? ['read'] : ['write'],
    run: () => 'ok',
  }),
);
const toolkit = createToolkit({ tools });
const resources: Record<string, string[]> = {};
const opaque: string[] = [];
const as = await startAuthorizationServer({ resources, opaque });
// oidc-provider prints a notice on introspection; the figures are what this bench prints.
const info = console.info;
console.info = () => undefined;
const plain = await serveHttp(toolkit, { port: 0, token: STATIC });
const oauth = await serveHttp(toolkit, {
  port: 0,
  auth: createResourceServer({
    issuer: as.issuer,
    scopes: { 'tools:read': { tags: ['read'] }, 'tools:admin': { namespaces: ['*'] } },
  }),
});
resources[oauth.url.href] = ['tools:read'];
const { accessToken } = await as.token({ resource: oauth.url.href, scope: 'tools:read' });
const [asClient] = as.clients;
if (asClient === undefined) throw new Error('no client');
const introspecting = async (cache: false | undefined) => {
  const served = await serveHttp(toolkit, {
    port: 0,
    auth: createResourceServer({
      issuer: as.issuer,
      scopes: { 'tools:read': { tags: ['read'] } },
      introspection: {
        clientId: asClient.clientId,
        clientSecret: asClient.clientSecret,
        ...(cache === undefined ? {} : { cache }),
      },
    }),
  });
  resources[served.url.href] = ['tools:read'];
  opaque.push(served.url.href);
  const token = (await as.token({ resource: served.url.href, scope: 'tools:read' })).accessToken;
  return { served, token };
};
const cached = await introspecting(undefined);
const uncached = await introspecting(false);

async function client(url: URL, token: string): Promise<Client> {
  const c = new Client({ name: 'bench', version: '0' });
  await c.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      // As bench/gateway.ts: without the SDK's listener pile-up on its connection-long signal.
      fetch: requestScopedFetch(),
    }),
  );
  return c;
}

try {
  const floor = await client(plain.url, STATIC);
  const ours = await client(oauth.url, accessToken);
  const fromCache = await client(cached.served.url, cached.token);
  const asking = await client(uncached.served.url, uncached.token);
  const listed = (await ours.listTools()).tools.length;
  if (listed !== TOOLS / 2) throw new Error(`OAuth listed ${String(listed)} tools`);
  const paths = {
    'tools/call, static token': () => floor.callTool({ name: 'builtin__tool_0', arguments: {} }),
    'tools/call, OAuth JWT': () => ours.callTool({ name: 'builtin__tool_0', arguments: {} }),
    'tools/list (1,000), static token': () => floor.listTools(),
    'tools/list (1,000 → 500), OAuth JWT': () => ours.listTools(),
    'tools/call, opaque, cached': () =>
      fromCache.callTool({ name: 'builtin__tool_0', arguments: {} }),
    'tools/call, opaque, introspected': () =>
      asking.callTool({ name: 'builtin__tool_0', arguments: {} }),
  };
  const entries = Object.entries(paths);
  for (const [, call] of entries) for (let i = 0; i < 50; i++) await call();
  const rounds = new Map<string, number[]>(entries.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Every other round in reverse, so neither path always runs first (after a GC, say).
    for (const [name, call] of round % 2 === 0 ? entries : [...entries].reverse()) {
      const start = performance.now();
      for (let i = 0; i < CALLS; i++) await call();
      rounds.get(name)?.push(((performance.now() - start) / CALLS) * 1000);
    }
  }
  const m = (name: string) => median(rounds.get(name) ?? []);
  console.log(
    `gateway over Streamable HTTP, medians of ${String(ROUNDS)} rounds × ${String(CALLS)}:`,
  );
  for (const [floorName, oursName] of [
    ['tools/call, static token', 'tools/call, OAuth JWT'],
    ['tools/list (1,000), static token', 'tools/list (1,000 → 500), OAuth JWT'],
    ['tools/call, static token', 'tools/call, opaque, cached'],
    ['tools/call, static token', 'tools/call, opaque, introspected'],
  ] as const) {
    console.log(`  ${floorName.padEnd(38)} ${m(floorName).toFixed(0)} µs`);
    console.log(
      `  ${oursName.padEnd(38)} ${m(oursName).toFixed(0)} µs  ×${(m(oursName) / m(floorName)).toFixed(2)}`,
    );
  }
  await floor.close();
  await ours.close();
  await fromCache.close();
  await asking.close();
} finally {
  console.info = info;
  await plain.close();
  await oauth.close();
  await cached.served.close();
  await uncached.served.close();
  await as.close();
}
