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
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
/**
 * Medians over RUNS of the mean time per call (µs) of a floor and a subject, measured in
 * alternating runs so both see the same disk and CPU weather.
 */
async function paired(
  iterations: number,
  floor: (i: number) => unknown,
  subject: (i: number) => unknown,
): Promise<[number, number]> {
  const time = async (body: (i: number) => unknown): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) await body(i);
    return ((performance.now() - start) * 1000) / iterations;
  };
  await time(floor);
  await time(subject);
  const floors: number[] = [];
  const subjects: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    floors.push(await time(floor));
    subjects.push(await time(subject));
  }
  return [median(floors), median(subjects)];
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
  const [floorPut, put] = await paired(
    300,
    (i) => rawPut.immediate(`p${i % 100}`, JSON.stringify({ ...prompt(i), serial: ++serial })),
    (i) => store.putPrompt(prompt(i)),
  );
  const [floorPutNormal, putNormal] = await paired(
    3_000,
    (i) =>
      rawNormal.put.immediate(`p${i % 100}`, JSON.stringify({ ...prompt(i), serial: ++serial })),
    (i) => fast.putPrompt(prompt(i)),
  );
  const [floorGet, get] = await paired(
    50_000,
    (i) => select.get(`p${i % 100}`),
    (i) => store.getPrompt(`p${i % 100}`),
  );
  const [floorResource, resource] = await paired(
    300,
    (i) => rawPut.immediate(`r${i % 100}`, `${'x'.repeat(4096)}${++serial}`),
    (i) =>
      store.putResource({
        uri: `notes://r${i % 100}`,
        name: `r${i % 100}`,
        text: `${'x'.repeat(4096)}${++serial}`,
      }),
  );
  const [, list] = await paired(
    2_000,
    () => undefined,
    () => store.listPrompts(),
  );
  rows.push(['floor: raw upsert, IMMEDIATE txn, fsync (in-run)', floorPut, undefined]);
  rows.push(['putPrompt (durable: fsync per write)', put, put / floorPut]);
  rows.push(['floor: raw upsert, synchronous=NORMAL (in-run)', floorPutNormal, undefined]);
  rows.push(["putPrompt, synchronous: 'normal'", putNormal, putNormal / floorPutNormal]);
  rows.push(['floor: raw SELECT by key (in-run)', floorGet, undefined]);
  rows.push(['getPrompt', get, get / floorGet]);
  rows.push(['listPrompts, 100 prompts', list, undefined]);
  rows.push(['floor: raw upsert of 4 KB, fsync (in-run)', floorResource, undefined]);
  rows.push(['putResource, 4 KB text', resource, resource / floorResource]);
  await store.close();
  await fast.close();
  raw.db.close();
  rawNormal.db.close();

  console.log(`median of ${RUNS} runs, µs per call`);
  for (const [name, us, ratio] of rows) {
    const vs = ratio === undefined ? '' : `  ${ratio.toFixed(2)}× floor`;
    console.log(`${name.padEnd(50)} ${us.toFixed(2).padStart(10)} µs${vs}`);
  }
  console.log(
    `putPrompt, synchronous: 'normal' against the durable default: ${(put / putNormal).toFixed(1)}× faster`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
