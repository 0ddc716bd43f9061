/**
 * What code mode costs and what it saves, as medians of interleaved rounds:
 * - starting a sandbox (a new worker thread with QuickJS), the process's first and those after
 *   it, and a trivial run on a warm one;
 * - a tool call from inside the sandbox against the same call through the runner or toolkit
 *   directly, for a local tool and for an MCP tool over stdio (targets ≤ 1.5× and ≤ 1.1×);
 * - a scripted multi-step task (25 tool calls with filtering) as plain tool calling against one
 *   `run_code`: model round trips and bytes of tool results the model reads (target ≥ 10× fewer
 *   bytes, one round trip).
 *
 * Run: `pnpm --filter @toolplane/codemode bench`. It runs from source, as the tests do: the
 * sandbox's worker thread then loads its TypeScript through tsx, which the cold start includes.
 */
import { benchSource, compare, header, median, timing } from '@toolplane/test-support/bench';
import { fixtureCommand } from '@toolplane/fixtures';
import { createToolkit } from '@toolplane/toolkit';
import { runToolkit } from '@toolplane/toolkit/testing';
import { availableParallelism, loadavg } from 'node:os';
import { createCodeMode } from '@toolplane/codemode';
import { spareCore, SPIN_ENV } from '../src/channel.js';
import { quickjsPerCall, threadRoundTrips } from './floors.js';
import { expectedAnswer, shopSource, TASK_PROGRAM } from './task.js';

const CALLS = 100;
const loop = (id: string, args: string): string =>
  `for (let i = 0; i < ${String(CALLS)}; i++) await tools.${id}(${args});`;

function line(label: string, value: string): void {
  console.log(`  ${label.padEnd(56)} ${value}`);
}

function verdict(ratio: number, target: number): string {
  return `${ratio <= target ? 'MET' : 'MISSED'} (≤ ${target.toFixed(1)}×)`;
}

// 1. Start and trivial run. The process's first sandbox compiles QuickJS's code as it runs; the
// sandboxes after it share that code (quickjs-wasm.ts), so they are timed apart from it.
{
  const starts: number[] = [];
  for (let i = 0; i < 8; i++) {
    const code = createCodeMode(benchSource());
    const start = performance.now();
    await code.run('return 1;');
    starts.push(performance.now() - start);
    await code.close();
  }
  const [first = NaN, ...later] = starts;
  const code = createCodeMode(benchSource());
  await code.run('return 1;');
  const samples = await compare(
    { trivial: () => code.run('return 1;') },
    { iterations: 50, rounds: 15 },
  );
  await code.close();
  console.log(header('Sandbox start and a trivial run', samples));
  line("cold: the process's first worker thread, QuickJS, `return 1`", `${first.toFixed(1)} ms`);
  line('new worker thread after it, QuickJS, `return 1`', `${median(later).toFixed(1)} ms`);
  const t = timing(samples, 'trivial');
  line(
    'warm: `return 1` in a fresh runtime and context',
    `${(t.wall / 1000).toFixed(3)} ms (CPU ${(t.cpu / 1000).toFixed(3)} ms)`,
  );
}

// The crossing both ways: spinning (as on a machine with a core to spare) and asleep (as under
// load), whatever the load rule would choose, interleaved in the same rounds. The switch is read
// at the start of each run (channel.ts), so each case sets it before its run.
const spinning = (run: () => Promise<unknown>) => async (): Promise<unknown> => {
  process.env[SPIN_ENV] = 'on';
  return run();
};
const asleep = (run: () => Promise<unknown>) => async (): Promise<unknown> => {
  process.env[SPIN_ENV] = 'off';
  return run();
};
const forced = process.env[SPIN_ENV];
const chosen = forced === 'on' || (forced !== 'off' && spareCore()) ? 'spinning' : 'asleep';
const load = (): string => loadavg()[0]?.toFixed(1) ?? '?';
console.log(
  `\nLoad average ${load()} on ${String(availableParallelism())} cores: the load rule ${chosen === 'spinning' ? 'lets both threads spin' : 'keeps both threads from spinning'}${forced === undefined ? '' : ` (${SPIN_ENV}=${forced})`}; the verdicts use that path.`,
);

// 2a. Per call, local tool.
{
  const source = benchSource();
  const code = createCodeMode(source);
  const args = { a: 2, b: 3 };
  const sequential = (): Promise<unknown> => code.run(loop('bench.add', '{ a: 2, b: 3 }'));
  const samples = await compare(
    {
      direct: async () => {
        for (let i = 0; i < CALLS; i++) await source.runner.run('bench:add', args);
      },
      spinning: spinning(sequential),
      asleep: asleep(sequential),
      // The same calls made at once: they cross in one message each way (see execute.ts).
      parallel: () =>
        code.run(
          `const all = []; for (let i = 0; i < ${String(CALLS)}; i++) all.push(tools.bench.add({ a: 2, b: 3 })); await Promise.all(all);`,
        ),
      trivial: () => code.run('return 1;'),
    },
    { iterations: 3, rounds: 21 },
  );
  await code.close();
  report(
    `Per tool call, local tool (bench:add, ${String(CALLS)} sequential calls a run)`,
    samples,
    1.5,
  );
  const parallel = timing(samples, 'parallel');
  const trivial = timing(samples, 'trivial');
  line(
    `${String(CALLS)} calls at once (Promise.all), per call, start out`,
    `${((parallel.wall - trivial.wall) / CALLS).toFixed(1)} µs (CPU ${((parallel.cpu - trivial.cpu) / CALLS).toFixed(1)} µs)`,
  );
}

// 2b. Per call, MCP tool over stdio.
{
  const toolkit = createToolkit();
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  const running = await runToolkit(toolkit);
  const code = createCodeMode(toolkit);
  const args = { a: 2, b: 3 };
  // A run passes every call a signal (to cancel it upstream when the run ends): this case
  // shows what that signal costs the toolkit's path by itself.
  const signal = new AbortController().signal;
  const sequential = (): Promise<unknown> => code.run(loop('fx.add', '{ a: 2, b: 3 }'));
  try {
    const samples = await compare(
      {
        direct: async () => {
          for (let i = 0; i < CALLS; i++) await toolkit.callTool('fx:add', args);
        },
        signalled: async () => {
          for (let i = 0; i < CALLS; i++) await toolkit.callTool('fx:add', args, { signal });
        },
        spinning: spinning(sequential),
        asleep: asleep(sequential),
        trivial: () => code.run('return 1;'),
      },
      { iterations: 1, rounds: 15, warmup: 1 },
    );
    report(
      `Per tool call, MCP tool over stdio (fixture add, ${String(CALLS)} calls a run)`,
      samples,
      1.1,
    );
    const direct = timing(samples, 'direct');
    const signalled = timing(samples, 'signalled');
    line(
      'direct with a signal (as a run passes one), per call',
      `${(signalled.wall / CALLS).toFixed(1)} µs (CPU ${(signalled.cpu / CALLS).toFixed(1)} µs), ${(signalled.wall / direct.wall).toFixed(2)}× direct`,
    );
  } finally {
    await code.close();
    await running.stop();
  }
}
if (forced === undefined) Reflect.deleteProperty(process.env, SPIN_ENV);
else process.env[SPIN_ENV] = forced;

function report(title: string, samples: Awaited<ReturnType<typeof compare>>, target: number): void {
  const direct = timing(samples, 'direct');
  const trivial = timing(samples, 'trivial');
  console.log(header(title, samples));
  const perDirect = direct.wall / CALLS;
  line(
    'direct (runner / toolkit), per call',
    `${perDirect.toFixed(1)} µs (CPU ${(direct.cpu / CALLS).toFixed(1)} µs)`,
  );
  const per: Record<string, { wall: number; cpu: number }> = {};
  for (const path of ['spinning', 'asleep'] as const) {
    const sandbox = timing(samples, path);
    const perSandbox = sandbox.wall / CALLS;
    const perCallOnly = (sandbox.wall - trivial.wall) / CALLS;
    per[path] = { wall: perSandbox, cpu: sandbox.cpu / CALLS };
    line(
      `sandbox ${path}, per call, the run’s start shared`,
      `${perSandbox.toFixed(1)} µs (CPU ${(sandbox.cpu / CALLS).toFixed(1)} µs)`,
    );
    line(
      `sandbox ${path}, per call, the run’s start left out`,
      `${perCallOnly.toFixed(1)} µs (CPU ${((sandbox.cpu - trivial.cpu) / CALLS).toFixed(1)} µs)`,
    );
    const ratio = perSandbox / perDirect;
    const mark = path === chosen ? `  ${verdict(ratio, target)}` : '';
    line(`ratio, ${path} / direct`, `${ratio.toFixed(2)}×${mark}`);
  }
  const spun = per.spinning;
  const slept = per.asleep;
  if (spun !== undefined && slept !== undefined) {
    line(
      'spinning vs asleep, per call: wall saved, CPU spent',
      `${(slept.wall - spun.wall).toFixed(1)} µs wall, ${(spun.cpu - slept.cpu).toFixed(1)} µs CPU`,
    );
  }
}

// 2c. The floors under a call from the sandbox: a round trip between threads, and QuickJS's share.
{
  const trips = await threadRoundTrips(2_000);
  const code = createCodeMode(benchSource());
  await code.run('return 1;');
  const inside = await quickjsPerCall(code, CALLS);
  await code.close();
  console.log('\nFloors under a call from the sandbox (per call or round trip)');
  const us = (t: { wall: number; cpu: number }): string =>
    `${t.wall.toFixed(1)} µs (CPU ${t.cpu.toFixed(1)} µs)`;
  line('round trip main ⇄ worker, both wake from sleep', us(trips.sleeping));
  line('round trip main ⇄ worker, both spinning', us(trips.spinning));
  line('QuickJS alone: await an async call, JSON both ways', us(inside));
}

// 3. The multi-step task: plain tool calling against one run_code.
{
  const source = shopSource();
  const customers = (await source.runner.run('shop:list_customers', {})).structured as {
    id: string;
  }[];
  // Plain tool calling: the model reads every result; one turn for the list, then one with
  // every list_orders call in parallel (the fewest a model can do), then its answer.
  let plainBytes = JSON.stringify(customers).length;
  let plainCalls = 1;
  for (const customer of customers) {
    const orders = await source.runner.run('shop:list_orders', { customer: customer.id });
    plainBytes += JSON.stringify(orders.structured).length;
    plainCalls++;
  }
  const code = createCodeMode(source);
  const declarations = code.declarations();
  const result = await code.run(TASK_PROGRAM);
  await code.close();
  const answer = JSON.stringify(result.value);
  if (answer !== JSON.stringify(expectedAnswer())) throw new Error('code mode answered wrong');
  const codeBytes = answer.length + JSON.stringify(result.logs).length;
  console.log('\nA multi-step task: customers who spent over 1,500 (24 customers × 30 orders)');
  line('plain tool calling: tool calls', String(plainCalls));
  line(
    'plain tool calling: model turns that call tools',
    `2 (the list, then ${String(plainCalls - 1)} in parallel; one at a time: ${String(plainCalls)})`,
  );
  line('plain tool calling: bytes of tool results the model reads', String(plainBytes));
  line('code mode: tool calls made inside one run', String(result.calls.total));
  line('code mode: model turns that call tools', '1 (one run_code)');
  line('code mode: bytes of the run_code result the model reads', String(codeBytes));
  line('code mode: bytes of declarations it read first', String(declarations.length));
  const ratio = plainBytes / codeBytes;
  line('fewer bytes of results', `${ratio.toFixed(1)}×  ${ratio >= 10 ? 'MET' : 'MISSED'} (≥ 10×)`);
  line(
    'fewer bytes, declarations counted',
    `${(plainBytes / (codeBytes + declarations.length)).toFixed(1)}×`,
  );
}
