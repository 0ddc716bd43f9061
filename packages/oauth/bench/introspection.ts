// What the introspection cache saves per request with an opaque token: `authenticate` against a
// real oidc-provider on 127.0.0.1, once asking the introspection endpoint every time
// (`cache: false`, an HTTP round trip per request) and once answering from the cache (a SHA-256
// of the token and a Map lookup, issuer/audience/expiry checked again). For reference, the JWT
// path with its keys cached (no request, but an ES256 signature check each time). Medians of
// interleaved rounds; the machine may be loaded, so read the ratios, not the times.
import { createResourceServer } from '../src/index.js';
import { startAuthorizationServer } from '../src/testing/index.js';

const OPAQUE = 'http://127.0.0.1:7777/mcp';
const JWT = 'http://127.0.0.1:8808/mcp';
const ROUNDS = 7;
const UNCACHED_CALLS = 100;
const CACHED_CALLS = 2_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function perCall(fn: () => Promise<unknown>, calls: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await fn();
  return Number(process.hrtime.bigint() - start) / 1e3 / calls;
}

const as = await startAuthorizationServer({
  resources: { [OPAQUE]: ['tools:read'], [JWT]: ['tools:read'] },
  opaque: [OPAQUE],
  accessTokenTTL: 3_600,
});
// oidc-provider logs a notice on introspection; the figures are what this prints.
const log = console.log;
const info = console.info;
console.log = console.info = () => undefined;
try {
  const client = as.clients[0];
  if (client === undefined) throw new Error('no client');
  const credentials = { clientId: client.clientId, clientSecret: client.clientSecret };
  const uncached = createResourceServer({
    issuer: as.issuer,
    audience: OPAQUE,
    introspection: { ...credentials, cache: false },
  });
  const cached = createResourceServer({
    issuer: as.issuer,
    audience: OPAQUE,
    introspection: credentials,
  });
  const jwtServer = createResourceServer({ issuer: as.issuer });
  const opaque = `Bearer ${(await as.token({ resource: OPAQUE, scope: 'tools:read' })).accessToken}`;
  const jwt = `Bearer ${(await as.token({ resource: JWT, scope: 'tools:read' })).accessToken}`;
  const run = {
    floor: () => jwtServer.authenticate(jwt, { endpoint: JWT }),
    cached: () => cached.authenticate(opaque, { endpoint: OPAQUE }),
    uncached: () => uncached.authenticate(opaque, { endpoint: OPAQUE }),
  };
  for (const fn of Object.values(run)) await fn();
  const times = { floor: [] as number[], cached: [] as number[], uncached: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    times.floor.push(await perCall(run.floor, CACHED_CALLS));
    times.cached.push(await perCall(run.cached, CACHED_CALLS));
    times.uncached.push(await perCall(run.uncached, UNCACHED_CALLS));
  }
  const [f, c, u] = [median(times.floor), median(times.cached), median(times.uncached)];
  log(`token check, per request (${String(ROUNDS)} rounds, medians):`);
  log(`  opaque, introspection answer cached          ${c.toFixed(1)} µs`);
  log(`  JWT, keys cached (ES256 verify each time)    ${f.toFixed(1)} µs  ×${(f / c).toFixed(1)}`);
  log(`  opaque, introspected every time (no cache)   ${u.toFixed(1)} µs  ×${(u / c).toFixed(0)}`);
  log(
    `  uncached is ×${(u / 2200).toFixed(1)} the ~2.2 ms floor of an MCP call over loopback HTTP`,
  );
} finally {
  console.log = log;
  console.info = info;
  await as.close();
}
