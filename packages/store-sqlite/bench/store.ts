/**
 * Per-call cost of the SQLite store, as medians of several runs, each next to its floor measured
 * in alternating runs: the same statement on raw better-sqlite3 with the same pragmas (WAL,
 * synchronous=FULL) and an IMMEDIATE transaction, so the ratio is the store's own overhead
 * (validation, change log, JSON, events).
 *
 * Run: pnpm --filter @toolplane/store-sqlite bench
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSqliteStore } from '@toolplane/store-sqlite';

const RUNS = 5;
/** Rounds of 10 writes for the cases that fsync. */
const FSYNC_ROUNDS = 31;
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
/**
 * A floor and a subject timed in alternating rounds of `iterations` calls each, so both see the
 * same disk and CPU weather: the median µs per call of each, and the median of the per-round
 * ratios. Writes that wait for an fsync swing with the disk's other traffic, so they take many
 * short rounds; a ratio of separate medians over a few long runs came out anywhere from 0.2× to
 * 7× on a shared disk.
 */
async function paired(
  iterations: number,
  floor: (i: number) => unknown,
  subject: (i: number) => unknown,
  rounds = RUNS,
): Promise<[number, number, number]> {
  // Each side counts its calls on across rounds, so short rounds still cycle through every key.
  const calls = new Map<(i: number) => unknown, number>();
  const time = async (body: (i: number) => unknown): Promise<number> => {
    const first = calls.get(body) ?? 0;
    calls.set(body, first + iterations);
    const start = performance.now();
    for (let i = first; i < first + iterations; i++) await body(i);
    return ((performance.now() - start) * 1000) / iterations;
  };
  await time(floor);
  await time(subject);
  const floors: number[] = [];
  const subjects: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // The order flips each round, so neither side always follows the other's fsync.
    if (round % 2 === 0) {
      floors.push(await time(floor));
      subjects.push(await time(subject));
    } else {
      subjects.push(await time(subject));
      floors.push(await time(floor));
    }
  }
  const ratios = subjects.map((value, i) => value / (floors[i] ?? Number.NaN));
  return [median(floors), median(subjects), median(ratios)];
}

const dir = mkdtempSync(join(tmpdir(), 'store-sqlite-bench-'));
try {
  const openRaw = (file: string, synchronous: 'FULL' | 'NORMAL') => {
    const db = new Database(join(dir, file));
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.exec('CREATE TABLE prompts (name TEXT PRIMARY KEY, data TEXT NOT NULL) STRICT');
    const upsert = db.prepare<[string, string]>(
      'INSERT INTO prompts (name, data) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET data = excluded.data',
    );
    const put = db.transaction((name: string, data: string) => upsert.run(name, data));
    return { db, put, select: db.prepare<[string]>('SELECT data FROM prompts WHERE name = ?') };
  };
  const raw = openRaw('raw.db', 'FULL');
  const rawNormal = openRaw('raw-normal.db', 'NORMAL');
  const rawPut = raw.put;
  const select = raw.select;

  const store = createSqliteStore({ path: join(dir, 'store.db') });
  const fast = createSqliteStore({ path: join(dir, 'fast.db'), synchronous: 'normal' });
  const prompt = (i: number) => ({
    name: `p${i % 100}`,
    description: 'A benchmark prompt',
    template: 'Hello {{ who }}, here is item ' + String(i % 100),
  });

  const rows: [string, number, number | undefined][] = [];
  // Each write carries a fresh value: SQLite skips the disk for an upsert that changes nothing.
  let serial = 0;
  const [floorPut, put, putRatio] = await paired(
    10,
    (i) => rawPut.immediate(`p${i % 100}`, JSON.stringify({ ...prompt(i), serial: ++serial })),
    (i) => store.putPrompt(prompt(i)),
    FSYNC_ROUNDS,
  );
  const [floorPutNormal, putNormal, putNormalRatio] = await paired(
    3_000,
    (i) =>
      rawNormal.put.immediate(`p${i % 100}`, JSON.stringify({ ...prompt(i), serial: ++serial })),
    (i) => fast.putPrompt(prompt(i)),
  );
  // The durable store against the 'normal' one, round by round, under the same disk weather.
  const [, , durableOverNormal] = await paired(
    10,
    (i) => fast.putPrompt(prompt(i)),
    (i) => store.putPrompt(prompt(i)),
    FSYNC_ROUNDS,
  );
  const [floorGet, get, getRatio] = await paired(
    50_000,
    (i) => select.get(`p${i % 100}`),
    (i) => store.getPrompt(`p${i % 100}`),
  );
  const [floorResource, resource, resourceRatio] = await paired(
    10,
    (i) => rawPut.immediate(`r${i % 100}`, `${'x'.repeat(4096)}${++serial}`),
    (i) =>
      store.putResource({
        uri: `notes://r${i % 100}`,
        name: `r${i % 100}`,
        text: `${'x'.repeat(4096)}${++serial}`,
      }),
    FSYNC_ROUNDS,
  );
  const [, list] = await paired(
    2_000,
    () => undefined,
    () => store.listPrompts(),
  );
  rows.push(['floor: raw upsert, IMMEDIATE txn, fsync (in-run)', floorPut, undefined]);
  rows.push(['putPrompt (durable: fsync per write)', put, putRatio]);
  rows.push(['floor: raw upsert, synchronous=NORMAL (in-run)', floorPutNormal, undefined]);
  rows.push(["putPrompt, synchronous: 'normal'", putNormal, putNormalRatio]);
  rows.push(['floor: raw SELECT by key (in-run)', floorGet, undefined]);
  rows.push(['getPrompt', get, getRatio]);
  rows.push(['listPrompts, 100 prompts', list, undefined]);
  rows.push(['floor: raw upsert of 4 KB, fsync (in-run)', floorResource, undefined]);
  rows.push(['putResource, 4 KB text', resource, resourceRatio]);
  await store.close();
  await fast.close();
  raw.db.close();
  rawNormal.db.close();

  console.log(
    `µs per call: medians of ${String(RUNS)} alternating runs (${String(FSYNC_ROUNDS)} rounds of 10 calls where a write fsyncs); ratios: medians of the per-round ratios`,
  );
  for (const [name, us, ratio] of rows) {
    const vs = ratio === undefined ? '' : `  ${ratio.toFixed(2)}× floor`;
    console.log(`${name.padEnd(50)} ${us.toFixed(2).padStart(10)} µs${vs}`);
  }
  console.log(
    `putPrompt, synchronous: 'normal' against the durable default, in alternating rounds: ${durableOverNormal.toFixed(1)}× faster`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
