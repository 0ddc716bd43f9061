// Conversion of 1,000 tool schemas per provider (target ≤ 50 ms), and exposeTools over an index
// of 1,000 tools (listing, naming, conversion). Two sets: the real tools of server-everything,
// server-filesystem and server-memory (listed over stdio), cycled to 1,000; and schemas from the
// property tests' generator (fixed seed): nested objects and arrays, unions, refs, allOf, hostile
// keys.
// A JSON round trip of the same schemas is the floor. Median of 15 rounds, in CPU time. Run with
// `pnpm --filter @toolplane/adapter-kit bench`.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIndex } from '@toolplane/toolindex';
import { createToolkit } from '@toolplane/toolkit';
import { createLocalRegistry, createRunner } from '@toolplane/toolrun';
import fc from 'fast-check';
import { convertSchema, exposeTools, listAll, type SchemaTarget } from '../src/index.js';
import { schemaArb } from '../src/testing/schemas.js';

const ROUNDS = 15;
const TARGET_MS = 50;
const verdict = (ms: number): string =>
  `${ms <= TARGET_MS ? 'MET' : 'MISSED'} (≤ ${String(TARGET_MS)} ms)`;
const schemas = fc.sample(schemaArb, { numRuns: 1000, seed: 14 });

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * Median ms of CPU time of `fn` over ROUNDS rounds. CPU time leaves out the time spent waiting
 * for a core, so the absolute target holds its meaning on a loaded machine.
 */
function time(fn: () => void): number {
  fn();
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / 1000);
  }
  return median(samples);
}

const require = createRequire(import.meta.url);
const serverJs = (name: string): string =>
  require.resolve(`@modelcontextprotocol/server-${name}/dist/index.js`);
const dir = mkdtempSync(join(tmpdir(), 'adapter-kit-bench-'));
const toolkit = createToolkit();
toolkit.addConnector({ command: process.execPath, args: [serverJs('everything'), 'stdio'] });
toolkit.addConnector({ command: process.execPath, args: [serverJs('filesystem'), dir] });
toolkit.addConnector({
  command: process.execPath,
  args: [serverJs('memory')],
  env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
});
const stop = new AbortController();
const running = toolkit.run({ signal: stop.signal });
await toolkit.ready();
const real = listAll(toolkit.index, {}).map((entry) => entry.tool.inputSchema);
stop.abort();
await running;
rmSync(dir, { recursive: true, force: true });
const typical = Array.from({ length: 1000 }, (_, i) => real[i % real.length]);
const typicalFloor = time(() => {
  for (const schema of typical) JSON.parse(JSON.stringify(schema));
});
console.log('ms of CPU time, median of 15 rounds');
console.log(
  `${String(real.length)} reference-server tools, cycled to 1,000; JSON round trip: ${typicalFloor.toFixed(2)} ms (the floor)`,
);
for (const target of ['openai-strict', 'openai', 'anthropic', 'gemini'] as const) {
  const ms = time(() => {
    for (const schema of typical) convertSchema(schema, target);
  });
  console.log(
    `convertSchema × 1,000 real, ${target.padEnd(13)}: ${ms.toFixed(2)} ms (${(ms / typicalFloor).toFixed(1)}× the floor)  ${verdict(ms)}`,
  );
}

const floor = time(() => {
  for (const schema of schemas) JSON.parse(JSON.stringify(schema));
});
console.log(`generated schemas, JSON round trip of 1,000: ${floor.toFixed(2)} ms (the floor)`);
const targets: SchemaTarget[] = ['openai-strict', 'openai', 'anthropic', 'gemini'];
for (const target of targets) {
  const ms = time(() => {
    for (const schema of schemas) convertSchema(schema, target);
  });
  console.log(
    `convertSchema × 1,000, ${target.padEnd(13)}: ${ms.toFixed(2)} ms (${(ms / floor).toFixed(1)}× the floor)  ${verdict(ms)}`,
  );
}

const index = createIndex();
const local = createLocalRegistry().register('noop', () => null);
schemas.forEach((schema, i) => {
  index.registerTool(
    {
      namespace: `ns${String(i % 10)}`,
      name: `tool.${String(i)}`,
      inputSchema: schema as { type: 'object' },
    },
    { kind: 'local', local: { name: 'noop' } },
  );
});
const source = { index, runner: createRunner({ index, local }) };
for (const target of targets) {
  const ms = time(() => {
    exposeTools(source, target);
  });
  console.log(`exposeTools, 1,000 tools, ${target.padEnd(13)}: ${ms.toFixed(2)} ms`);
}

const sizes = schemas.map((schema) => JSON.stringify(schema).length).sort((a, b) => a - b);
console.log(
  `generated schemas: median ${String(sizes[500])} JSON characters, largest ${String(sizes.at(-1))}`,
);
