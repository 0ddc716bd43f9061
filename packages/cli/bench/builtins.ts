// The cost of a builtin tool called through the toolkit (lookup, validation, dispatch) against
// calling its handler directly. Prints medians of several runs and the ratio between them.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createToolkit } from '@toolplane/toolkit';
import { builtinTools, textStats, timeNow } from '@toolplane/cli';

const toolkit = createToolkit({ tools: [timeNow, textStats] });
const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
const context = {
  signal: new AbortController().signal,
  progress: () => undefined,
  meta: undefined,
};

async function median(
  label: string,
  fn: () => unknown,
  iterations = 2_000,
  runs = 5,
): Promise<number> {
  const results: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) await fn();
    results.push(((performance.now() - start) / iterations) * 1000);
  }
  results.sort((a, b) => a - b);
  const value = results[Math.floor(runs / 2)] ?? 0;
  console.log(`${label.padEnd(40)} ${value.toFixed(2)} µs per call`);
  return value;
}

for (const [name, tool, args] of [
  ['time_now', timeNow, { timeZone: 'Europe/Paris' }],
  ['text_stats (900 chars)', textStats, { text }],
] as const) {
  const direct = await median(`${name}: handler`, () => tool.handler(args, context));
  const through = await median(`${name}: toolkit.callTool`, () =>
    toolkit.callTool(`builtin:${tool.tool.name}`, args),
  );
  console.log(
    `${name}: toolkit overhead ${(through - direct).toFixed(2)} µs, ratio ${(through / direct).toFixed(2)}× the handler (the floor)`,
  );
}
await toolkit.close();

// How long one call of a CPU-heavy builtin can hold the event loop that serves every session:
// the worst event-loop delay seen during the call (1 ms resolution), median of five calls.
const heavy = createToolkit({ tools: builtinTools });
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
await heavy.close();
