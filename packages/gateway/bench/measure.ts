// What the CPU benchmarks share: paths measured in interleaved blocks, medians and ratios.
import type { ChildProcessByStdio } from 'node:child_process';
import { createServer } from 'node:http';
import type { Readable } from 'node:stream';

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** `path`'s values over `floor`'s, round by round. */
export function ratios(path: readonly number[], floor: readonly number[]): number[] {
  return path.map((value, round) => value / (floor[round] ?? NaN));
}

/** A path through a process in the middle: one call, and that process's CPU time so far (µs). */
export interface CpuPath {
  readonly call: () => Promise<unknown>;
  readonly cpu: () => number | Promise<number>;
}

export interface Measured {
  /** Per round: the middle process's CPU per call, µs. */
  readonly cpu: number[];
  /** Per round: the client's median latency, µs. */
  readonly p50: number[];
}

/**
 * Each path's CPU per call and p50, per round: a round is `blocks` blocks of `calls / blocks`
 * calls per path, the paths taking turns block by block, so that load that comes and goes on a
 * busy machine hits them alike.
 */
export async function measure(
  paths: readonly CpuPath[],
  { warmup, rounds, calls, blocks }: Record<'warmup' | 'rounds' | 'calls' | 'blocks', number>,
): Promise<Measured[]> {
  for (const path of paths) for (let i = 0; i < warmup; i++) await path.call();
  const results = paths.map((): Measured => ({ cpu: [], p50: [] }));
  for (let round = 0; round < rounds; round++) {
    const times = paths.map((): number[] => []);
    const cpu = paths.map(() => 0);
    for (let block = 0; block < blocks; block++) {
      for (const [index, path] of paths.entries()) {
        const before = await path.cpu();
        for (let i = 0; i < calls / blocks; i++) {
          const start = performance.now();
          await path.call();
          times[index]?.push((performance.now() - start) * 1000);
        }
        cpu[index] = (cpu[index] ?? 0) + (await path.cpu()) - before;
      }
    }
    for (const [index, result] of results.entries()) {
      result.cpu.push((cpu[index] ?? NaN) / calls);
      result.p50.push(median(times[index] ?? []));
    }
  }
  return results;
}

/** A port free right now on 127.0.0.1, for a child that cannot pick its own. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** The URL a child announces as one `LISTENING <url>` line on its stdout. */
export function announcedUrl(
  child: ChildProcessByStdio<null, Readable, Readable | null>,
): Promise<URL> {
  return new Promise<URL>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /LISTENING (\S+)/.exec(out);
      if (match?.[1] !== undefined) resolve(new URL(match[1]));
    });
    child.once('exit', () => {
      reject(new Error(`${child.spawnfile} exited before it listened: ${out}`));
    });
  });
}

/**
 * Prints a race's table: each path's CPU per call and p50, and both as ratios (round by round)
 * to the floor (the first path) and to ours (the second).
 */
export function printRace(
  title: string,
  paths: readonly { readonly label: string; readonly negotiated: string }[],
  measured: readonly Measured[],
): void {
  const [floor, ours] = measured as [Measured, Measured];
  const ratio = (values: number[], of: number[]): string => median(ratios(values, of)).toFixed(2);
  console.log(title);
  console.log(
    `${'path'.padEnd(28)} ${'CPU/call'.padStart(9)} ${'× floor'.padStart(8)} ${'× ours'.padStart(7)} ${'p50'.padStart(8)} ${'× floor'.padStart(8)} ${'× ours'.padStart(7)}  era spoken`,
  );
  for (const [index, p] of paths.entries()) {
    const m = measured[index] as Measured;
    console.log(
      `${p.label.padEnd(28)} ${median(m.cpu).toFixed(0).padStart(6)} µs ${ratio(m.cpu, floor.cpu).padStart(7)}× ${ratio(m.cpu, ours.cpu).padStart(6)}× ${median(m.p50).toFixed(0).padStart(5)} µs ${ratio(m.p50, floor.p50).padStart(7)}× ${ratio(m.p50, ours.p50).padStart(6)}×  ${p.negotiated}`,
    );
  }
}
