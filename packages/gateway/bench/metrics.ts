// The cost of metrics (issue 33). 1. `GET /metrics` over HTTP from a gateway whose toolkit has
// 10,000 tools, every one of them called (so each has its series: ok, and isError for one in
// ten), median of many scrapes; target ≤ 50 ms. 2. What the metrics hook adds to a call: the
// observer's own time per call in a tight loop, and sequential HTTP tools/call of a builtin
// through a gateway with metrics against the same gateway without, measured in interleaved
// rounds, the median of the round-by-round ratios. Part of `pnpm bench`.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGatewayMetrics, serveHttp, type HttpGateway } from '@toolplane/gateway';
import { createToolkit, defineTool, requestScopedFetch, type Toolkit } from '@toolplane/toolkit';
import { z } from 'zod';

const TOOLS = 10_000;
const SCRAPES = Number(process.env.SCRAPES ?? 30);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const CALLS = 500;
const HOOK_CALLS = 1_000_000;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function toolkitOf(size: number): Toolkit {
  return createToolkit({
    tools: Array.from({ length: size }, (_, i) =>
      defineTool({
        name: `tool_${String(i)}`,
        description: `Tool number ${String(i)}.`,
        input: z.object({ value: z.string() }),
        run: ({ value }) => value,
      }),
    ),
  });
}

// -- 1. scrape time with 10k tools ----------------------------------------------------------

const big = toolkitOf(TOOLS);
const metrics = createGatewayMetrics();
const scraped = await serveHttp(big, { port: 0, metrics });
// Every tool called (through the observer calls feed), one in ten also failed.
for (let i = 0; i < TOOLS; i++) {
  const record = {
    namespace: 'builtin',
    tool: `builtin:tool_${String(i)}`,
    outcome: 'ok',
    durationMs: 0.2,
    sessionId: undefined,
    subject: undefined,
    requestId: i,
    args: {},
  };
  metrics.observer.toolCall?.(record);
  if (i % 10 === 0) metrics.observer.toolCall?.({ ...record, outcome: 'isError' });
}
const metricsUrl = new URL('/metrics', scraped.url);
let bytes = 0;
const scrapeMs: number[] = [];
for (let i = 0; i < SCRAPES + 3; i++) {
  const start = performance.now();
  const text = await (await fetch(metricsUrl)).text();
  if (i >= 3) scrapeMs.push(performance.now() - start);
  bytes = text.length;
}
// The same text made in process, without HTTP: what prom-client's registry itself costs.
const inProcessMs: number[] = [];
for (let i = 0; i < SCRAPES; i++) {
  const start = performance.now();
  await metrics.scrape();
  inProcessMs.push(performance.now() - start);
}
// The floor: the same call series written by hand from a Map, no library (what any exposition
// of 11,000 series costs in string building alone).
const series = new Map<string, number>();
for (let i = 0; i < TOOLS; i++) {
  series.set(`builtin\u0000builtin:tool_${String(i)}\u0000ok`, 1);
  if (i % 10 === 0) series.set(`builtin\u0000builtin:tool_${String(i)}\u0000isError`, 1);
}
const floorMs: number[] = [];
for (let i = 0; i < SCRAPES; i++) {
  const start = performance.now();
  let text = '# TYPE toolplane_tool_calls_total counter\n';
  for (const [key, value] of series) {
    const [namespace, tool, outcome] = key.split('\u0000');
    text += `toolplane_tool_calls_total{namespace="${String(namespace)}",tool="${String(tool)}",outcome="${String(outcome)}"} ${String(value)}\n`;
  }
  floorMs.push(performance.now() - start + (text.length > 0 ? 0 : 1));
}
await scraped.close();
await big.close();
console.log(
  `GET /metrics, ${String(TOOLS)} tools called (${String(Math.round(bytes / 1024))} KiB): median ${median(scrapeMs).toFixed(1)} ms over ${String(SCRAPES)} scrapes (target ≤ 50 ms); in process (no HTTP) ${median(inProcessMs).toFixed(1)} ms, ${(median(inProcessMs) / median(floorMs)).toFixed(1)}× a hand-written floor of ${median(floorMs).toFixed(1)} ms`,
);

// -- 2. the hook's cost per call --------------------------------------------------------------

const own = createGatewayMetrics();
const hook = own.observer.toolCall;
const records = Array.from({ length: 100 }, (_, i) => ({
  namespace: 'fx',
  tool: `fx:tool_${String(i)}`,
  outcome: i % 10 === 0 ? 'isError' : 'ok',
  durationMs: 1,
  sessionId: 'session',
  subject: undefined,
  requestId: i,
  args: {},
}));
const hookStart = performance.now();
for (let i = 0; i < HOOK_CALLS; i++) hook?.(records[i % 100] as (typeof records)[number]);
const hookUs = ((performance.now() - hookStart) * 1000) / HOOK_CALLS;

// A toolkit each: the two gateways share nothing but the machine.
const smalls = [toolkitOf(10), toolkitOf(10)] as const;
const plain = await serveHttp(smalls[0], { port: 0 });
const measured = await serveHttp(smalls[1], { port: 0, metrics: createGatewayMetrics() });

async function clientOf(gateway: HttpGateway): Promise<Client> {
  const client = new Client({ name: 'bench', version: '0' });
  // With the SDK's own fetch, each call's listener on the transport's connection-long signal
  // stays until garbage collection, and ~1,500 calls print MaxListenersExceededWarning.
  await client.connect(
    new StreamableHTTPClientTransport(gateway.url, { fetch: requestScopedFetch() }),
  );
  return client;
}
const clients = { plain: await clientOf(plain), measured: await clientOf(measured) };

async function perCall(client: Client): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < CALLS; i++)
    await client.callTool({ name: 'builtin__tool_1', arguments: { value: 'x' } });
  return ((performance.now() - start) * 1000) / CALLS;
}

await perCall(clients.plain);
await perCall(clients.measured);
const ratios: number[] = [];
const plainUs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // Alternate which goes first, so neither always runs on a warmer machine.
  const first = round % 2 === 0;
  const a = first ? await perCall(clients.plain) : 0;
  const b = await perCall(clients.measured);
  const c = first ? a : await perCall(clients.plain);
  ratios.push(b / c);
  plainUs.push(c);
}
await clients.plain.close();
await clients.measured.close();
await plain.close();
await measured.close();
await Promise.all(smalls.map((toolkit) => toolkit.close()));
console.log(
  `metrics hook alone: ${hookUs.toFixed(2)} µs per call (${((hookUs / median(plainUs)) * 100).toFixed(2)}% of an HTTP call's ${median(plainUs).toFixed(0)} µs)`,
);
console.log(
  `HTTP tools/call with metrics / without: median ${median(ratios).toFixed(3)}× over ${String(ROUNDS)} rounds (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})`,
);
