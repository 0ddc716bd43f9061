/**
 * A new sandbox worker's start and its first program, as a user's process pays them: from the
 * built package (`dist`, the worker plain JavaScript), one process, sandbox after sandbox. For
 * each new code mode (one worker): the wall time of its first `run` (the worker's start, QuickJS
 * instantiated, one program with a tool call) and the process's CPU across it, then the same
 * program again on the warm worker. The process's first sandbox compiles QuickJS's code as it
 * runs; those after it share that code (src/quickjs-wasm.ts), so it is reported apart.
 *
 * Run: `pnpm build`, then `pnpm --filter @toolplane/codemode bench`.
 */
import { createCodeMode } from '@toolplane/codemode';
import { benchSource, median } from '@toolplane/test-support/bench';
import { loadavg } from 'node:os';

const SANDBOXES = 13;
const PROGRAM = 'const { sum } = await tools.bench.add({ a: 2, b: 3 }); return sum;';

const firstRun: number[] = [];
const firstCpu: number[] = [];
const warmRun: number[] = [];
for (let i = 0; i < SANDBOXES; i++) {
  const code = createCodeMode(benchSource());
  const cpu = process.cpuUsage();
  let start = performance.now();
  await code.run(PROGRAM);
  firstRun.push(performance.now() - start);
  const used = process.cpuUsage(cpu);
  firstCpu.push((used.user + used.system) / 1000);
  start = performance.now();
  await code.run(PROGRAM);
  warmRun.push(performance.now() - start);
  await code.close();
}

const ms = (value: number | undefined): string => `${(value ?? Number.NaN).toFixed(1)} ms`;
const line = (label: string, value: string): void => {
  console.log(`  ${label.padEnd(58)} ${value}`);
};
console.log(
  `\nA new sandbox's start and first program, built package (load ${loadavg()[0]?.toFixed(1) ?? '?'})`,
);
line(
  "the process's first sandbox: start and first run",
  `${ms(firstRun[0])} (CPU ${ms(firstCpu[0])})`,
);
line(
  `each sandbox after it (median of ${String(SANDBOXES - 1)}): start and first run`,
  `${ms(median(firstRun.slice(1)))} (CPU ${ms(median(firstCpu.slice(1)))})`,
);
line('the same program again on its warm worker (median)', ms(median(warmRun)));
