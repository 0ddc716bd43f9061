/**
 * Per-call cost of prompts, resources and the memory store, as medians of several runs, each
 * next to the floor beneath it measured in the same run: `@cfworker/json-schema` validation
 * (DESIGN.md: ~30 µs) under a validated render, a direct `await handler()` (~0.09 µs) under the
 * memory store.
 *
 * Run: pnpm --filter @toolplane/toolkit bench
 */
import { createValidator } from '@toolplane/toolmodel';
import {
  createMemoryStore,
  dataResource,
  parsePrompt,
  renderPrompt,
  validatePrompt,
} from '@toolplane/toolkit';

const RUNS = 7;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Median over RUNS of the mean time per call, in microseconds. */
async function perCall(iterations: number, body: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < Math.min(iterations, 200); i++) await body(i);
  const runs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) await body(i);
    runs.push(((performance.now() - start) * 1000) / iterations);
  }
  return median(runs);
}

const SOURCE = `---
description: Reviews a pull request
model: claude-sonnet-4-5
input:
  type: object
  properties:
    language: { type: string, description: Programming language }
    diff: { type: string }
    files: { type: array, items: { type: string } }
  required: [diff]
tools: [github:get_pr, builtin:search]
max_tokens: 4096
---
# Code reviewer

Review this {{ language | default: "code" | upper }} change touching {{ files | join: ", " }}:

{% for file in files %}- {{ file | trim }}
{% endfor %}
{{ diff }}
`;
const input = {
  language: 'typescript',
  diff: '+ const a = 1;\n- const a = 2;\n'.repeat(20),
  files: ['src/a.ts', 'src/b.ts', 'src/c.ts'],
};

const prompt = parsePrompt(SOURCE, { filename: 'review.md' });
const unvalidated = validatePrompt({ ...prompt, input: undefined });
const validator = createValidator();
const schema = prompt.input ?? {};
const handler = (args: { n: number }): Promise<number> => Promise.resolve(args.n);
const store = createMemoryStore();
const text4k = Buffer.from('Plain notes, line after line of them.\n'.repeat(108));

const rows: [string, number, string, number | undefined][] = [];
const floorValidate = await perCall(20_000, () => validator.validate(schema, input));
const floorHandler = await perCall(200_000, (i) => handler({ n: i }));
rows.push(['floor: cfworker validate (same schema, in-run)', floorValidate, '', undefined]);
rows.push(['floor: await handler(args) (in-run)', floorHandler, '', undefined]);
rows.push([
  'parsePrompt (template cached)',
  await perCall(5_000, () => parsePrompt(SOURCE, { filename: 'review.md' })),
  '',
  undefined,
]);
const rendered = await perCall(5_000, () => renderPrompt(prompt, input));
rows.push(['renderPrompt, validated input', rendered, 'validate', rendered / floorValidate]);
rows.push([
  'renderPrompt, no input schema',
  await perCall(5_000, () => renderPrompt(unvalidated, input)),
  '',
  undefined,
]);
const put = await perCall(50_000, (i) => store.putPrompt({ name: `p${i % 100}`, template: 'x' }));
rows.push(['memory store putPrompt', put, 'handler', put / floorHandler]);
const get = await perCall(200_000, (i) => store.getPrompt(`p${i % 100}`));
rows.push(['memory store getPrompt', get, 'handler', get / floorHandler]);
rows.push([
  'dataResource, 4 KB of text (sniff + decode)',
  await perCall(5_000, () => dataResource('notes', text4k)),
  '',
  undefined,
]);
await store.close();

console.log(`median of ${RUNS} runs, µs per call`);
for (const [name, us, floor, ratio] of rows) {
  const vs = ratio === undefined ? '' : `  ${ratio.toFixed(1)}× ${floor} floor`;
  console.log(`${name.padEnd(48)} ${us.toFixed(2).padStart(10)} µs${vs}`);
}
