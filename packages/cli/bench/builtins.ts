// The cost of a builtin tool called through the toolkit (lookup, validation, dispatch) against
// calling its handler directly. Prints medians of several runs and the ratio between them.
import { createToolkit } from '@toolplane/toolkit';
import { textStats, timeNow } from '@toolplane/cli';

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
    `${name}: toolkit overhead ${(through - direct).toFixed(2)} µs, ratio ${(through / direct).toFixed(2)}x the handler; floor (direct await handler) ~0.09 µs`,
  );
}
await toolkit.close();
