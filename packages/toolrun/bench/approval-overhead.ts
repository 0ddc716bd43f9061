// What the approval middleware costs a call that needs no approval (target ≤ 2 µs): a local
// read-only tool run through a runner with approval({ destructive, tools, except }) against the
// same runner without it, validation off, in one process. The cases take turns in rounds and the
// figures are medians of the rounds, with the round-by-round ratio. Run with
// `pnpm --filter @toolplane/toolrun bench`.
import { createIndex } from '@toolplane/toolindex';
import type { Tool } from '@toolplane/toolmodel';
import { approval, createLocalRegistry, createRunner } from '@toolplane/toolrun';

const ROUNDS = 21;
const CALLS = 100_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const readTool: Tool = {
  name: 'read',
  namespace: 'fs',
  description: 'Reads a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  annotations: { readOnlyHint: true },
};
const args = { path: 'notes.txt' };

const index = createIndex();
index.registerTool(readTool, { kind: 'local', local: { name: 'read' } });
const local = createLocalRegistry().register('read', (input) => input);
const bare = createRunner({ index, local, validate: { input: false, output: false } });
const guarded = createRunner({
  index,
  local,
  validate: { input: false, output: false },
  middleware: [
    approval({
      destructive: true,
      unannotated: true,
      tools: ['bank:*', 'github:delete_*', 'fs:rm*'],
      except: ['fs:rmdir_dry_run'],
      ask: () => Promise.resolve('decline'),
    }),
  ],
});

const cases = {
  none: () => bare.run('fs:read', args),
  approval: () => guarded.run('fs:read', args),
};
const samples: Record<keyof typeof cases, number[]> = { none: [], approval: [] };
const names = Object.keys(cases) as (keyof typeof cases)[];
for (const name of names) for (let i = 0; i < CALLS / 10; i++) await cases[name]();
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? names : [...names].reverse();
  for (const name of order) {
    const fn = cases[name];
    const start = performance.now();
    for (let i = 0; i < CALLS; i++) await fn();
    samples[name].push(((performance.now() - start) * 1000) / CALLS);
  }
}
const none = median(samples.none);
const guardedUs = median(samples.approval);
const ratios = samples.approval.map((value, round) => value / (samples.none[round] ?? NaN));
const added = samples.approval.map((value, round) => value - (samples.none[round] ?? NaN));
const overhead = median(added);
console.log('\napproval middleware, a call that needs no approval (local tool, validation off)');
console.log(`  runner.run() without middleware   ${none.toFixed(3).padStart(8)} µs/call`);
console.log(`  runner.run() with approval(...)    ${guardedUs.toFixed(3).padStart(8)} µs/call`);
console.log(
  `  ratio ×${median(ratios).toFixed(3)} round by round; added ${overhead.toFixed(3)} µs (median of rounds): ${overhead <= 2 ? 'met' : 'MISSED'} (target ≤ 2 µs)`,
);
