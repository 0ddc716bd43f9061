// What an input_required round costs a 2026-07-28 call (a builtin that elicits once, answered at
// once), as the two requests of one round trip: start, then the retry with the answer. Three ways:
// the call held in its gateway and resumed there (no shared key), and, with a shared key, the
// call replayed from its requestState by the same gateway or by another one. Medians of
// interleaved runs, as ratios to the held call. Part of `pnpm bench`.
import { callModern } from '@toolplane/fixtures';
import { serveHttp, type HttpGateway } from '@toolplane/gateway';
import { createToolkit, defineTool, getSession } from '@toolplane/toolkit';
import { z } from 'zod';

const ROUNDS = 700;
const RUNS = 7;
const WARMUP = 200;
const KEY = 'a-bench-request-state-key-of-32-bytes!';
const capabilities = { elicitation: { form: {} } };

const ask = defineTool({
  name: 'ask',
  description: 'Asks once.',
  input: z.object({ q: z.string() }),
  annotations: { readOnlyHint: true },
  run: async ({ q }) =>
    (await getSession().elicit({ message: q, requestedSchema: { type: 'object', properties: {} } }))
      .action,
});

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

interface Answer {
  result?: { inputRequests?: Record<string, unknown>; requestState?: string };
}

/** A raw 2026 call of the asking builtin; a retry's `params` carry the round's answer. */
const post = (url: URL, params: object = {}) =>
  callModern<Answer>(url, 'builtin__ask', { q: 'ok?' }, { params, capabilities, client: 'bench' });

/** One round trip: start on `first`, answer on `second`. */
async function roundTrip(first: URL, second: URL): Promise<void> {
  const asked = await post(first);
  const [key = ''] = Object.keys(asked.result?.inputRequests ?? {});
  const done = await post(second, {
    requestState: asked.result?.requestState,
    inputResponses: { [key]: { action: 'accept', content: {} } },
  });
  if (done.result === undefined || 'inputRequests' in done.result) {
    throw new Error(`round trip did not complete: ${JSON.stringify(done)}`);
  }
}

const toolkit = createToolkit({ tools: [ask] });
const gateways: HttpGateway[] = await Promise.all([
  serveHttp(toolkit, { port: 0 }),
  serveHttp(toolkit, { port: 0, requestStateKey: KEY, instanceId: 'a' }),
  serveHttp(toolkit, { port: 0, requestStateKey: KEY, instanceId: 'b' }),
]);
const [held, a, b] = gateways.map((gateway) => gateway.url) as [URL, URL, URL];
const ways: [string, () => Promise<void>][] = [
  ['held in its gateway, resumed there', () => roundTrip(held, held)],
  ['replayed by the same gateway', () => roundTrip(a, a)],
  ['replayed by another gateway', () => roundTrip(a, b)],
];
try {
  for (const [, run] of ways) for (let i = 0; i < WARMUP; i++) await run();
  const medians = ways.map((): number[] => []);
  for (let r = 0; r < RUNS; r++) {
    for (const [index, [, run]] of ways.entries()) {
      const times: number[] = [];
      for (let i = 0; i < ROUNDS / RUNS; i++) {
        const start = performance.now();
        await run();
        times.push(performance.now() - start);
      }
      medians[index]?.push(median(times));
    }
  }
  const floor = median(medians[0] ?? []);
  console.log('input_required round trip (start + answered retry), median of run medians:');
  for (const [index, [name]] of ways.entries()) {
    const ms = median(medians[index] ?? []);
    console.log(`  ${name.padEnd(36)} ${ms.toFixed(2)} ms  ×${(ms / floor).toFixed(2)}`);
  }
} finally {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  await toolkit.close();
}
