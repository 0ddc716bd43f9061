import { createIndex, type ToolIndex } from '@toolplane/toolindex';
import { createLocalRegistry, createRunner, type Runner } from '@toolplane/toolrun';

/** One case of a comparison: a function whose promise is one unit of work (a call, a turn). */
export type BenchCase = () => Promise<unknown>;

/** Options of {@link compare}. */
export interface CompareOptions {
  /** Units of work per case per round. */
  readonly iterations: number;
  /** Rounds; every round runs every case once, in a rotating order (default 31). */
  readonly rounds?: number;
  /** Units of work per case before measuring (default `iterations / 5`). */
  readonly warmup?: number;
}

/** Per-round samples of a comparison: µs of wall-clock and of process CPU time per unit. */
export interface Samples {
  readonly rounds: number;
  readonly iterations: number;
  readonly wall: Readonly<Record<string, readonly number[]>>;
  readonly cpu: Readonly<Record<string, readonly number[]>>;
}

/** The median of `values` (the lower middle one of an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

/**
 * Runs the cases interleaved, round after round, so that a machine whose load changes while the
 * benchmark runs slows every case alike: each round runs each case for `iterations` units, in an
 * order that rotates from round to round, and records the wall-clock and the process CPU time
 * (which leaves out the time the process waited for a core) per unit.
 */
export async function compare(
  cases: Readonly<Record<string, BenchCase>>,
  options: CompareOptions,
): Promise<Samples> {
  const names = Object.keys(cases);
  const rounds = options.rounds ?? 31;
  const { iterations } = options;
  const wall: Record<string, number[]> = {};
  const cpu: Record<string, number[]> = {};
  for (const name of names) {
    wall[name] = [];
    cpu[name] = [];
    const fn = cases[name] as BenchCase;
    const warmup = options.warmup ?? Math.ceil(iterations / 5);
    for (let i = 0; i < warmup; i++) await fn();
  }
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length] as string;
      const fn = cases[name] as BenchCase;
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      for (let i = 0; i < iterations; i++) await fn();
      const elapsed = performance.now() - start;
      const used = process.cpuUsage(cpuStart);
      wall[name]?.push((elapsed * 1000) / iterations);
      cpu[name]?.push((used.user + used.system) / iterations);
    }
  }
  return { rounds, iterations, wall, cpu };
}

/** µs per unit of one case: median and minimum, of wall-clock and of CPU time. */
export interface Timing {
  readonly wall: number;
  readonly wallMin: number;
  readonly cpu: number;
  readonly cpuMin: number;
}

/** The {@link Timing} of one case. */
export function timing(samples: Samples, name: string): Timing {
  const wall = samples.wall[name] ?? [];
  const cpu = samples.cpu[name] ?? [];
  return {
    wall: median(wall),
    wallMin: Math.min(...wall),
    cpu: median(cpu),
    cpuMin: Math.min(...cpu),
  };
}

/** What `name` costs over `floor`, per unit: medians of the per-round differences, and ratios. */
export interface Overhead {
  /** Median over rounds of (case − floor), wall-clock µs. */
  readonly wall: number;
  /** Median over rounds of (case − floor), CPU µs. */
  readonly cpu: number;
  /** Difference of the two cases' fastest rounds, wall-clock µs. */
  readonly wallMin: number;
  /** Median over rounds of case / floor, wall-clock. */
  readonly ratio: number;
  /** Median over rounds of case / floor, CPU time (the steadier ratio on a loaded machine). */
  readonly cpuRatio: number;
}

/**
 * The overhead of `name` over `floor`, paired round by round (the two ran back to back, under
 * the same load), divided by `per` (e.g. 16 for a turn of 16 calls against 16 floor calls).
 */
export function overhead(samples: Samples, name: string, floor: string, per = 1): Overhead {
  const pair = (series: Readonly<Record<string, readonly number[]>>): number[] => {
    const a = series[name] ?? [];
    const b = series[floor] ?? [];
    return a.map((value, i) => value - (b[i] ?? Number.NaN));
  };
  const ratio = (series: Readonly<Record<string, readonly number[]>>): number => {
    const b = series[floor] ?? [];
    return median((series[name] ?? []).map((value, i) => value / (b[i] ?? Number.NaN)));
  };
  const a = samples.wall[name] ?? [];
  const b = samples.wall[floor] ?? [];
  return {
    wall: median(pair(samples.wall)) / per,
    cpu: median(pair(samples.cpu)) / per,
    wallMin: (Math.min(...a) - Math.min(...b)) / per,
    ratio: ratio(samples.wall),
    cpuRatio: ratio(samples.cpu),
  };
}

const us = (value: number): string => `${value.toFixed(2)} µs`;
const signed = (value: number): string =>
  `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(2)} µs`;

/** One line of a report: a case's timing, per `per` units. */
export function timingLine(label: string, samples: Samples, name: string, per = 1): string {
  const t = timing(samples, name);
  return `  ${label.padEnd(48)} ${us(t.wall / per).padStart(10)} (min ${us(t.wallMin / per)}, CPU ${us(t.cpu / per)})`;
}

/**
 * One line of a report: an overhead against a floor, with its verdict against `target` µs, taken
 * on CPU time (on a loaded machine the wall-clock also counts the time spent waiting for a core).
 */
export function overheadLine(
  label: string,
  samples: Samples,
  name: string,
  floor: string,
  options: { readonly per?: number; readonly target?: number } = {},
): string {
  const o = overhead(samples, name, floor, options.per);
  const verdict =
    options.target === undefined
      ? ''
      : `  ${o.cpu <= options.target ? 'MET' : 'MISSED'} (≤ ${String(options.target)} µs)`;
  return `  ${label.padEnd(48)} ${signed(o.wall).padStart(10)} wall, ${signed(o.cpu)} CPU, ${signed(o.wallMin)} min-to-min; ${o.cpuRatio.toFixed(2)}× the floor in CPU (${o.ratio.toFixed(2)}× wall)${verdict}`;
}

/** The header every report opens with: what was measured and how. */
export function header(title: string, samples: Samples): string {
  return `${title}\n  medians (and minima) of ${String(samples.rounds)} interleaved rounds of ${String(samples.iterations)} units; overheads are medians of round-by-round differences. The machine may be loaded: read ratios and CPU time before wall-clock.`;
}

/** A runner over local tools for overhead benchmarks, with its index. */
export interface BenchSource {
  readonly index: ToolIndex;
  readonly runner: Runner;
}

/**
 * An index and runner with the local tools the overhead benchmarks call: `bench:add`
 * (`{ a, b }` → `{ sum }`, so the adapter is all that differs from calling the runner) and
 * `bench:wait` (answers `'ok'` after 5 ms, for parallel against sequential).
 */
export function benchSource(): BenchSource {
  const index = createIndex();
  const local = createLocalRegistry()
    .register('add', (args) => {
      const { a, b } = args as { a: number; b: number };
      return { sum: a + b };
    })
    .register(
      'wait',
      () =>
        new Promise((resolve) =>
          setTimeout(() => {
            resolve('ok');
          }, 5),
        ),
    );
  index.registerTool(
    {
      namespace: 'bench',
      name: 'add',
      description: 'Adds two numbers.',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    },
    { kind: 'local', local: { name: 'add' } },
  );
  index.registerTool(
    { namespace: 'bench', name: 'wait', inputSchema: { type: 'object', properties: {} } },
    { kind: 'local', local: { name: 'wait' } },
  );
  return { index, runner: createRunner({ index, local }) };
}

/** One tool call as a provider benchmark describes it, before it is put in the provider's form. */
export interface BenchCall {
  readonly id: string;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** What a provider's overhead benchmark needs to know of its package. */
export interface ProviderBench<Turn> {
  /** The function measured, e.g. `runToolCalls`. */
  readonly label: string;
  /** A model turn with these calls, in the provider's wire form. */
  turn(calls: readonly BenchCall[]): Turn;
  /** Runs a turn's calls through the adapter. */
  run(turn: Turn, options: { readonly concurrency: number }): Promise<unknown>;
}

/** The overhead target per call over the runner, µs. */
export const TARGET_US = 5;

/**
 * The overhead benchmark every provider package runs, on {@link benchSource}'s tools: a turn of
 * one call and a turn of 16 calls (concurrency 16) against calling the runner as often, then 16
 * calls of a 5 ms tool in parallel against one at a time. Prints the report.
 */
export async function runProviderBench<Turn>(
  source: BenchSource,
  bench: ProviderBench<Turn>,
  options: { readonly rounds?: number } = {},
): Promise<void> {
  const { runner } = source;
  const args = { a: 2, b: 3 };
  const adds = (n: number): BenchCall[] =>
    Array.from({ length: n }, (_, i) => ({ id: `c${String(i)}`, name: 'bench__add', args }));
  const one = bench.turn(adds(1));
  const sixteen = bench.turn(adds(16));
  const rounds = options.rounds ?? 31;
  const perCall = await compare(
    {
      runner: () => runner.run('bench:add', args),
      adapter: () => bench.run(one, { concurrency: 8 }),
    },
    { iterations: 5_000, rounds },
  );
  const perTurn = await compare(
    {
      runner: () => Promise.all(adds(16).map(() => runner.run('bench:add', args))),
      adapter: () => bench.run(sixteen, { concurrency: 16 }),
    },
    { iterations: 400, rounds },
  );
  const waits = bench.turn(
    Array.from({ length: 16 }, (_, i) => ({ id: `w${String(i)}`, name: 'bench__wait', args: {} })),
  );
  const parallel = await compare(
    {
      sequential: () => bench.run(waits, { concurrency: 1 }),
      parallel: () => bench.run(waits, { concurrency: 16 }),
    },
    { iterations: 2, rounds: 5, warmup: 1 },
  );
  console.log(header(`${bench.label}: adapter overhead per tool call`, perCall));
  console.log(timingLine('runner.run, 1 call (the floor)', perCall, 'runner'));
  console.log(timingLine(`${bench.label}, turn of 1 call`, perCall, 'adapter'));
  console.log(
    overheadLine('  overhead, turn of 1 call', perCall, 'adapter', 'runner', { target: TARGET_US }),
  );
  console.log(timingLine('16 × runner.run, per call', perTurn, 'runner', 16));
  console.log(timingLine(`${bench.label}, turn of 16, per call`, perTurn, 'adapter', 16));
  console.log(
    overheadLine('  overhead per call, turn of 16', perTurn, 'adapter', 'runner', {
      per: 16,
      target: TARGET_US,
    }),
  );
  const sequential = timing(parallel, 'sequential').wall / 1000;
  const concurrent = timing(parallel, 'parallel').wall / 1000;
  console.log(
    `  16 calls of a 5 ms tool: sequential ${sequential.toFixed(1)} ms, parallel ${concurrent.toFixed(1)} ms (${(sequential / concurrent).toFixed(1)}× faster)`,
  );
}
