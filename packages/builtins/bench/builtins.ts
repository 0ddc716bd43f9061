// The cost of a builtin tool called through the toolkit (lookup, validation, dispatch) against
// calling its handler directly, in CPU time; then how long a CPU-heavy builtin holds the event
// loop (wall-clock by nature: on a loaded machine it includes time spent waiting for a core).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createToolkit, runInSession } from '@toolplane/toolkit';
import { builtinTools } from '@toolplane/builtins';

const light = builtinTools({ only: ['time_now', 'text_stats'] });
const [timeNow, textStats] = light;
if (timeNow === undefined || textStats === undefined) throw new Error('no builtins');
const toolkit = createToolkit({ tools: light });
const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
const context = {
  signal: new AbortController().signal,
  progress: () => undefined,
  meta: undefined,
};

/**
 * The handler alone and the same call through the toolkit, in alternating runs (so a machine
 * whose load changes slows both alike), timed in CPU time (which leaves out the time spent
 * waiting for a core): µs per call, medians over the runs, and the median of the per-run
 * differences.
 */
async function paired(
  direct: () => unknown,
  through: () => unknown,
  iterations = 2_000,
  runs = 7,
): Promise<{ direct: number; through: number; overhead: number }> {
  const cpu = async (fn: () => unknown): Promise<number> => {
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) await fn();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / iterations;
  };
  await cpu(direct);
  await cpu(through);
  const directs: number[] = [];
  const throughs: number[] = [];
  for (let run = 0; run < runs; run++) {
    directs.push(await cpu(direct));
    throughs.push(await cpu(through));
  }
  const median = (values: number[]): number =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  return {
    direct: median(directs),
    through: median(throughs),
    overhead: median(throughs.map((value, i) => value - (directs[i] ?? Number.NaN))),
  };
}

console.log('CPU time per call, medians of 7 alternating runs of 2,000 calls');
for (const [name, tool, args] of [
  ['time_now', timeNow, { timeZone: 'Europe/Paris' }],
  ['text_stats (900 chars)', textStats, { text }],
] as const) {
  const r = await paired(
    () => tool.handler(args, context),
    () => toolkit.callTool(`builtin:${tool.tool.name}`, args),
  );
  console.log(`${`${name}: handler (the floor)`.padEnd(40)} ${r.direct.toFixed(2)} µs`);
  console.log(
    `${`${name}: toolkit.callTool`.padEnd(40)} ${r.through.toFixed(2)} µs  +${r.overhead.toFixed(2)} µs, ×${(r.through / r.direct).toFixed(2)} the handler`,
  );
}
await toolkit.close();

// How long one call of a CPU-heavy builtin can hold the event loop that serves every session:
// the worst event-loop delay seen during the call (1 ms resolution), median of five calls.
const heavyTools = builtinTools();
const heavy = createToolkit({ tools: heavyTools });
const ten = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const bigDocument = Array.from({ length: 40_000 }, (_, i) => ({
  id: i,
  name: `item ${i}`,
  tags: ['a', 'b'],
}));
for (const [label, name, args] of [
  [
    'json_query, 10^8 values (stopped)',
    'json_query',
    { expression: `length([]${'.[@,@,@,@,@,@,@,@,@,@][]'.repeat(8)})`, data: ten },
  ],
  [
    'json_query, 10^7 values',
    'json_query',
    { expression: `length([]${'.[@,@,@,@,@,@,@,@,@,@][]'.repeat(7)})`, data: ten },
  ],
  [
    `json_query over ${(JSON.stringify(bigDocument).length / 1e6).toFixed(1)} MB`,
    'json_query',
    { expression: 'length([?id > `5`])', data: bigDocument },
  ],
  ['text_stats, 8,192 chars (inline)', 'text_stats', { text: 'Some words here. '.repeat(482) }],
  ['text_stats, 1M chars (worker)', 'text_stats', { text: 'Some words here. '.repeat(58_823) }],
  [
    'json_format, 8 KB nested 4,000 deep, indent 8 (refused)',
    'json_format',
    { json: `${'['.repeat(4_000)}${']'.repeat(4_000)}`, indent: 8 },
  ],
] as const) {
  const holds: number[] = [];
  for (let run = 0; run < 5; run++) {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    await heavy.callTool(`builtin:${name}`, args).catch(() => undefined);
    delay.disable();
    holds.push(delay.max / 1e6);
  }
  holds.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(40)} longest event-loop hold ${(holds[2] ?? 0).toFixed(1)} ms (median of 5)`,
  );
}

// Victims under a hog: one caller keeps two 1M-character text_stats in flight (seconds of CPU
// each) while another calls a trivial json_query and a 10k-character text_stats in turn; the
// victim's latency, median and worst of 10 calls, against the same calls with no hog.
const big = { text: 'Some words here. '.repeat(58_823) };
const small = { text: 'A short sentence. '.repeat(600) };
async function victim(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    const start = performance.now();
    await runInSession({ id: 'victim' }, async () => {
      await heavy.callTool('builtin:json_query', { expression: 'a', data: { a: i } });
      await heavy.callTool('builtin:text_stats', small);
    });
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}
const quiet = await victim();
let hogging = true;
const hogs = [0, 1].map(async () => {
  while (hogging) {
    await runInSession({ id: 'hog' }, () => heavy.callTool('builtin:text_stats', big)).catch(
      () => undefined,
    );
  }
});
const attacked = await victim();
hogging = false;
await Promise.all(hogs);
const show = (times: number[]) =>
  `median ${(times[5] ?? 0).toFixed(1)} ms, worst ${(times.at(-1) ?? 0).toFixed(1)} ms`;
console.log(`victim json_query + text_stats, no hog:   ${show(quiet)}`);
console.log(`victim json_query + text_stats, with hog: ${show(attacked)}`);
await heavy.close();
await heavyTools.close();
await light.close();
