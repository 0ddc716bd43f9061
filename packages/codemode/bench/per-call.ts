/**
 * Where a tool call from inside the sandbox spends its time, for a local tool (the runner's
 * `bench:add`): 100 sequential calls in one run, the same 100 calls at once (`Promise.all`), a
 * run that makes none, and 100 direct runner calls; medians of interleaved rounds. The
 * difference between sequential and parallel is the per-call host↔worker round trip, which
 * batching cannot remove from a program that awaits each call before the next.
 *
 * Run: `pnpm --filter @toolplane/codemode exec node --conditions=@toolplane/source --import tsx
 * bench/per-call.ts`.
 */
import { benchSource, compare, header, timing } from '@toolplane/test-support/bench';
import { createCodeMode } from '@toolplane/codemode';

const CALLS = 100;
const source = benchSource();
const code = createCodeMode(source);
const args = { a: 2, b: 3 };
await code.run('return 1;');
const samples = await compare(
  {
    direct: async () => {
      for (let i = 0; i < CALLS; i++) await source.runner.run('bench:add', args);
    },
    sequential: () =>
      code.run(`for (let i = 0; i < ${String(CALLS)}; i++) await tools.bench.add({ a: 2, b: 3 });`),
    parallel: () =>
      code.run(
        `const all = []; for (let i = 0; i < ${String(CALLS)}; i++) all.push(tools.bench.add({ a: 2, b: 3 })); await Promise.all(all);`,
      ),
    trivial: () => code.run('return 1;'),
  },
  { iterations: 3, rounds: 21 },
);
await code.close();
console.log(header(`Per tool call, local tool, ${String(CALLS)} calls a run`, samples));
const direct = timing(samples, 'direct');
const trivial = timing(samples, 'trivial');
for (const name of ['direct', 'sequential', 'parallel', 'trivial']) {
  const t = timing(samples, name);
  const perCall =
    name === 'trivial' ? t.wall : (t.wall - (name === 'direct' ? 0 : trivial.wall)) / CALLS;
  console.log(
    `  ${name.padEnd(12)} run ${(t.wall / 1000).toFixed(3)} ms (CPU ${(t.cpu / 1000).toFixed(3)} ms)` +
      (name === 'trivial'
        ? ''
        : `, per call ${perCall.toFixed(1)} µs, ratio ${(perCall / (direct.wall / CALLS)).toFixed(1)}×`),
  );
}
