// Validator throughput: the default validator (@cfworker/json-schema) against ajv, cached and
// first-call, on a typical tool schema and a large nested one. Prints medians of several runs
// and ratios to ajv's compiled validate, the floor in DESIGN.md.
import { createValidator, type JsonSchema, type SchemaValidator } from '@toolplane/toolmodel';
import { TYPICAL_TOOL_SCHEMA } from '@toolplane/toolmodel/testing';
import { createAjvValidator } from '@toolplane/validator-ajv';

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
function measure(iterations: number, body: (i: number) => void): number {
  for (let i = 0; i < Math.min(iterations, 1000); i++) body(i);
  const runs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) body(i);
    runs.push(cpuSince(start) / iterations);
  }
  return median(runs);
}

function check(
  validator: SchemaValidator,
  schema: JsonSchema,
  value: unknown,
  valid: boolean,
): void {
  if (validator.validate(schema, value).valid !== valid)
    throw new Error('benchmark input gives the wrong verdict');
}

const typicalValid = {
  title: 'Crash on start',
  count: 3,
  state: 'open',
  labels: ['bug', 'p1'],
  owner: { login: 'octocat' },
  draft: false,
};
const typicalInvalid = { title: '', count: -1, state: 'merged', labels: ['bug', 2], extra: 1 };

// 40 properties, each an object of 5 mixed fields, one of them an array of objects.
function largeSchema(): JsonSchema {
  const item = {
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: 0 },
      name: { type: 'string', maxLength: 64 },
      kind: { enum: ['a', 'b', 'c'] },
      tags: { type: 'array', items: { type: 'string' } },
      children: {
        type: 'array',
        items: {
          type: 'object',
          properties: { id: { type: 'integer' }, ok: { type: 'boolean' } },
          required: ['id'],
        },
      },
    },
    required: ['id', 'name'],
    additionalProperties: false,
  };
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 40; i++) properties[`field${i}`] = structuredClone(item);
  return { type: 'object', properties, required: ['field0'] };
}
function largeValue(): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (let i = 0; i < 40; i++) {
    value[`field${i}`] = {
      id: i,
      name: `item ${i}`,
      kind: 'b',
      tags: ['x', 'y', 'z'],
      children: [{ id: 1, ok: true }, { id: 2 }],
    };
  }
  return value;
}

const large = largeSchema();
const largeOk = largeValue();
const validators = { cfworker: createValidator(), ajv: createAjvValidator() } as const;
for (const validator of Object.values(validators)) {
  check(validator, TYPICAL_TOOL_SCHEMA, typicalValid, true);
  check(validator, TYPICAL_TOOL_SCHEMA, typicalInvalid, false);
  check(validator, large, largeOk, true);
}

// Each row: label, µs per call, and the floor: ajv's cached figure for the same case.
const rows: [string, number, number][] = [];
const cases = [
  ['typical, valid', TYPICAL_TOOL_SCHEMA, typicalValid, 200_000],
  ['typical, invalid', TYPICAL_TOOL_SCHEMA, typicalInvalid, 100_000],
  ['large nested, valid', large, largeOk, 5_000],
] as const;
for (const [label, schema, value, iterations] of cases) {
  const floor = measure(iterations, () => validators.ajv.validate(schema, value));
  const slow = measure(Math.ceil(iterations / 50), () =>
    validators.cfworker.validate(schema, value),
  );
  rows.push([`ajv, cached: ${label}`, floor, floor], [`cfworker, cached: ${label}`, slow, floor]);
}

// First call: a schema object never seen before, so preparing it is part of the call.
const fresh = (count: number, source: JsonSchema) =>
  Array.from({ length: count }, () => structuredClone(source));
const firstCalls = [
  ['typical', TYPICAL_TOOL_SCHEMA, typicalValid, 0],
  ['large nested', large, largeOk, 2],
] as const;
for (const [label, schema, value, floorRow] of firstCalls) {
  for (const [name, create, count] of [
    ['cfworker', createValidator, label === 'typical' ? 2_000 : 50],
    ['ajv', createAjvValidator, label === 'typical' ? 100 : 10],
  ] as const) {
    const schemas = fresh(count * (RUNS + 1) + 1000, schema);
    const validator = create();
    let next = 0;
    const us = measure(count, () => validator.validate(schemas[next++]!, value));
    rows.push([`${name}, first call (prepare + validate): ${label}`, us, rows[floorRow]![1]]);
  }
}

const width = Math.max(...rows.map(([label]) => label.length));
console.log(
  'CPU time per call, median of 7 runs; floor: ajv compiled validate of the same case (DESIGN.md: ~0.3 µs on the typical schema)\n',
);
for (const [label, us, floor] of rows) {
  const time = us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(2)} µs`;
  console.log(`${label.padEnd(width)}  ${time.padStart(10)}  ×${(us / floor).toFixed(1)} floor`);
}

// Preparing many distinct schemas, as when a gateway registers 10,000 tools.
console.log('');
for (const [name, create, count] of [
  ['cfworker', createValidator, 10_000],
  ['ajv', createAjvValidator, 1_000],
] as const) {
  const schemas = fresh(count, TYPICAL_TOOL_SCHEMA);
  const validator = create();
  const start = process.cpuUsage();
  for (const schema of schemas) validator.validate(schema, typicalValid);
  const ms = cpuSince(start) / 1000;
  const projected =
    count === 10_000 ? '' : `, projected for 10,000: ${((ms * 10) / count).toFixed(1)} s`;
  console.log(
    `${name}: prepared ${count.toLocaleString('en')} distinct typical schemas in ${ms.toFixed(0)} ms (${((ms * 1000) / count).toFixed(0)} µs each${projected})`,
  );
}
