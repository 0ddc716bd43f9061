// The default validator alone: cached and first-call validation of a typical tool schema, and
// preparing 10,000 distinct schemas. The comparison with ajv (the floor) lives in
// packages/validator-ajv/bench, which can import both.
import { createValidator } from '@toolplane/toolmodel';
import { TYPICAL_TOOL_SCHEMA } from '@toolplane/toolmodel/testing';

const RUNS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** µs of this process's CPU time since `start` (a `process.cpuUsage()`). */
function cpuSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

/**
 * Median µs of CPU time per call of `body` over RUNS runs of `iterations` calls each. CPU time
 * leaves out the time spent waiting for a core, so a loaded machine moves it less than the
 * wall-clock.
 */
function measure(iterations: number, body: () => void): number {
  for (let i = 0; i < Math.min(iterations, 500); i++) body();
  const runs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) body();
    runs.push(cpuSince(start) / iterations);
  }
  return median(runs);
}

const valid = {
  title: 'Crash on start',
  count: 3,
  state: 'open',
  labels: ['bug'],
  owner: { login: 'octocat' },
};
const invalid = { title: '', count: -1, state: 'merged', labels: ['bug', 2], extra: 1 };
const validator = createValidator();
if (!validator.validate(TYPICAL_TOOL_SCHEMA, valid).valid) throw new Error('wrong verdict');

const FLOOR_US = 30; // DESIGN.md: @cfworker/json-schema, typical tool schema, valid input
const cachedValid = measure(20_000, () => validator.validate(TYPICAL_TOOL_SCHEMA, valid));
const cachedInvalid = measure(10_000, () => validator.validate(TYPICAL_TOOL_SCHEMA, invalid));
const schemas = Array.from({ length: 2_000 * (RUNS + 1) + 500 }, () =>
  structuredClone(TYPICAL_TOOL_SCHEMA),
);
let next = 0;
const firstCall = measure(2_000, () => validator.validate(schemas[next++]!, valid));

console.log('CPU time per call, median of 7 runs');
console.log(
  `typical, valid, cached     ${cachedValid.toFixed(2)} µs  ×${(cachedValid / FLOOR_US).toFixed(2)} of DESIGN.md's ~30 µs`,
);
console.log(
  `typical, invalid, cached   ${cachedInvalid.toFixed(2)} µs  ×${(cachedInvalid / cachedValid).toFixed(2)} of valid`,
);
console.log(
  `typical, first call        ${firstCall.toFixed(2)} µs  ×${(firstCall / cachedValid).toFixed(2)} of cached`,
);

const distinct = Array.from({ length: 10_000 }, () => structuredClone(TYPICAL_TOOL_SCHEMA));
const fresh = createValidator();
const start = process.cpuUsage();
for (const schema of distinct) fresh.validate(schema, valid);
console.log(`prepared 10,000 distinct schemas in ${(cpuSince(start) / 1000).toFixed(0)} ms of CPU`);
