/**
 * Cost of @toolplane/store-postgres against the floor beneath it: the same work done with raw
 * `pg` on the same pool size and server, in the same run. DESIGN.md has no PostgreSQL row, so
 * the floor is measured here: a one-statement read (`SELECT … WHERE name = $1`) and a
 * one-statement upsert (`INSERT … ON CONFLICT DO UPDATE`) over loopback. Also prints how long a
 * change takes to reach another instance's subscriber. Medians of several runs.
 *
 * Run: pnpm --filter @toolplane/store-postgres bench   (starts and stops its own server)
 */
import { validatePrompt, type Prompt } from '@toolplane/toolkit';
import { Pool } from 'pg';
import { createPostgresStore, type PostgresStore } from '@toolplane/store-postgres';
import { hasPostgres, POSTGRES_MISSING, startPostgres } from '../src/testing/postgres-server.js';

const RUNS = 5;
const CALLS = 400;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/**
 * Per-call time (µs) of each case: `CALLS` sequential calls per run, the cases interleaved within
 * each run so machine noise falls on all of them alike; the median over `RUNS` runs.
 */
async function perCall(
  cases: Record<string, (i: number) => unknown>,
): Promise<Record<string, number>> {
  const runs: Record<string, number[]> = {};
  // One untimed run first, so JIT warm-up and first-use statement preparation are not counted.
  for (let run = -1; run < RUNS; run++) {
    for (const [label, body] of Object.entries(cases)) {
      const start = performance.now();
      for (let i = 0; i < CALLS; i++) await body(i);
      const us = ((performance.now() - start) * 1000) / CALLS;
      if (run >= 0) (runs[label] ??= []).push(us);
    }
  }
  return Object.fromEntries(Object.entries(runs).map(([label, values]) => [label, median(values)]));
}

const prompt = (name: string, template: string): Prompt => ({
  name,
  description: 'Summarise an issue thread for a maintainer',
  input: { type: 'object', properties: { thread: { type: 'string' } }, required: ['thread'] },
  tools: ['github:get_issue', 'github:list_comments'],
  maxTokens: 1024,
  template,
});

if (!hasPostgres()) {
  console.error(POSTGRES_MISSING);
  process.exit(1);
}

const server = await startPostgres();
const raw = new Pool({ connectionString: server.url });
const stores: PostgresStore[] = [];
try {
  const one = await createPostgresStore({ connectionString: server.url, schema: 'bench' });
  const two = await createPostgresStore({ connectionString: server.url, schema: 'bench' });
  stores.push(one, two);
  await raw.query('CREATE TABLE raw_prompts (name text PRIMARY KEY, data json NOT NULL)');
  for (let i = 0; i < 100; i++) {
    const p = prompt(`p${i}`, `Thread {{ thread }} #${i}`);
    await one.putPrompt(p);
    await raw.query('INSERT INTO raw_prompts VALUES ($1, $2)', [p.name, JSON.stringify(p)]);
  }

  // Put on one instance, wait for the other's subscriber: the cross-instance delay.
  const seenBy = new Map<string, () => void>();
  const stop = two.subscribe((change) => {
    if (change.kind === 'prompt') seenBy.get(change.name)?.();
  });
  const us = await perCall({
    rawGet: (i) =>
      raw.query({
        name: 'raw-get',
        text: 'SELECT data FROM raw_prompts WHERE name = $1',
        values: [`p${i % 100}`],
      }),
    get: (i) => one.getPrompt(`p${i % 100}`),
    rawPut: (i) => {
      const p = prompt(`p${i % 100}`, `v${i}`);
      return raw.query({
        name: 'raw-put',
        text: 'INSERT INTO raw_prompts VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET data = excluded.data',
        values: [p.name, JSON.stringify(p)],
      });
    },
    validate: (i) => validatePrompt(prompt(`p${i % 100}`, `v${i}`)),
    put: (i) => one.putPrompt(prompt(`p${i % 100}`, `v${i}`)),
    list: () => one.listPrompts(),
    notify: async (i) => {
      const name = `p${i % 100}`;
      const seen = new Promise<void>((resolve) => seenBy.set(name, resolve));
      await one.putPrompt(prompt(name, 'x'));
      await seen;
      seenBy.delete(name);
    },
  });
  stop();

  // Two instances writing distinct keys at once: writes serialise on the revision row.
  const throughput: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        (i % 2 === 0 ? one : two).putPrompt(prompt(`c${run}-${i}`, 'x')),
      ),
    );
    throughput.push(400 / ((performance.now() - start) / 1000));
  }

  const row = (label: string, us: number, floor?: number): void => {
    const ratio = floor === undefined ? '' : `  ${(us / floor).toFixed(2)}x raw pg`;
    console.log(`${label.padEnd(48)}${us.toFixed(0).padStart(7)} µs${ratio}`);
  };
  console.log(`medians of ${RUNS} runs x ${CALLS} sequential calls, loopback, fsync off`);
  const at = (label: string): number => us[label] ?? Number.NaN;
  row('raw pg: SELECT data WHERE name = $1 (floor)', at('rawGet'));
  row('getPrompt', at('get'), at('rawGet'));
  row('raw pg: INSERT … ON CONFLICT DO UPDATE (floor)', at('rawPut'));
  row('putPrompt (revision + upsert + log + NOTIFY)', at('put'), at('rawPut'));
  row('  of which validatePrompt (template compile)', at('validate'));
  row('listPrompts, 100 prompts', at('list'), at('rawGet'));
  row('put on one instance → other sees the event', at('notify'), at('rawPut'));
  console.log(
    `${'concurrent putPrompt, two instances'.padEnd(48)}${median(throughput).toFixed(0).padStart(7)} writes/s`,
  );
} finally {
  for (const store of stores) await store.close();
  await raw.end();
  await server.stop();
}
