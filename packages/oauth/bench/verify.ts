// What verifying a bearer token costs per request, against the floor beneath it: jose's
// jwtVerify with the key already in hand. `authenticate` adds parsing the header, the JWKS
// lookup (cached after the first request) and building the caller. Also the per-caller
// tools/list filter: the scope policy over 10,000 tools, against a bare tag test per tool.
// Medians of interleaved rounds; the machine may be loaded, so read the ratios, not the times.
import { createLocalJWKSet, jwtVerify } from 'jose';
import { createResourceServer, createScopePolicy } from '../src/index.js';
import { startAuthorizationServer } from '../src/testing/index.js';

const RESOURCE = 'http://127.0.0.1:8808/mcp';
const ROUNDS = 7;
const CALLS = 2_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function perCall(fn: () => unknown, calls: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await fn();
  return Number(process.hrtime.bigint() - start) / 1e3 / calls;
}

const as = await startAuthorizationServer({ resources: { [RESOURCE]: ['tools:read'] } });
try {
  const { accessToken } = await as.token({ resource: RESOURCE, scope: 'tools:read' });
  const jwks = (await (await fetch(`${as.issuer}/jwks`)).json()) as Parameters<
    typeof createLocalJWKSet
  >[0];
  const local = createLocalJWKSet(jwks);
  const rs = createResourceServer({
    issuer: as.issuer,
    scopes: { 'tools:read': { tags: ['read'] } },
  });
  const header = `Bearer ${accessToken}`;
  const floor = () => jwtVerify(accessToken, local, { issuer: as.issuer, audience: RESOURCE });
  const ours = () => rs.authenticate(header, { endpoint: RESOURCE });
  await ours();
  const floors: number[] = [];
  const oursTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    floors.push(await perCall(floor, CALLS));
    oursTimes.push(await perCall(ours, CALLS));
  }
  const f = median(floors);
  const o = median(oursTimes);
  console.log(`token check, per request (ES256 JWT, ${String(ROUNDS)} rounds × ${String(CALLS)}):`);
  console.log(`  floor: jose jwtVerify, key in hand   ${f.toFixed(1)} µs`);
  console.log(`  authenticate (remote JWKS, cached)   ${o.toFixed(1)} µs  ×${(o / f).toFixed(2)}`);
  console.log(
    `  share of a Streamable HTTP call on loopback (~2.2 ms floor): ${((o / 2200) * 100).toFixed(1)} %`,
  );

  const tools = Array.from({ length: 10_000 }, (_, i) => ({
    namespace: `ns${String(i % 20)}`,
    name: `tool_${String(i)}`,
    tags: i % 3 === 0 ? ['read'] : ['write'],
  }));
  const policy = createScopePolicy({
    'tools:read': { tags: ['read'] },
    'ns:admin': { namespaces: ['ns1', 'ns2'] },
    picks: { tools: ['ns3:tool_3', 'tool_42'] },
  });
  const granted = ['tools:read', 'picks'];
  const bare = () => tools.filter((t) => t.tags.includes('read')).length;
  const filtered = () => tools.filter((t) => policy.allows(granted, t)).length;
  if (bare() > filtered()) throw new Error('the policy grants less than the bare tag test');
  const bares: number[] = [];
  const filters: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bares.push(await perCall(bare, 50));
    filters.push(await perCall(filtered, 50));
  }
  const b = median(bares);
  const p = median(filters);
  console.log('tools/list filter over 10,000 tools, per list:');
  console.log(`  floor: bare tag test per tool        ${b.toFixed(0)} µs`);
  console.log(`  scope policy (3 scopes, 2 granted)   ${p.toFixed(0)} µs  ×${(p / b).toFixed(2)}`);
} finally {
  await as.close();
}
