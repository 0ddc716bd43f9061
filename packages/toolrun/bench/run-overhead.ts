// Per-call overhead of runner.run() against the floor beneath it, in one process:
//   local tool vs a bare `await handler(args)` (validation off, default validator, ajv), and
//   MCP tool vs the raw SDK `client.callTool` on the same transport (in-memory and stdio).
// Prints medians of several interleaved rounds and the ratios the targets in DESIGN.md are
// stated in. Run with `pnpm --filter @toolplane/toolrun bench`.
import type { Client } from '@modelcontextprotocol/client';
import { connectInMemory, connectStdio, type ConnectedClient } from '@toolplane/fixtures';
import { createIndex } from '@toolplane/toolindex';
import { createValidator, type SchemaValidator, type Tool } from '@toolplane/toolmodel';
import { createAjvValidator } from '@toolplane/validator-ajv';
import { createLocalRegistry, createMcpExecutor, createRunner } from '@toolplane/toolrun';

const ROUNDS = 15;
const MCP_ROUNDS = 45;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * Microseconds per call of each case: `calls` sequential calls per round, rounds interleaved
 * across cases (in rotating order) so drift and GC hit them alike, reported as the median round.
 */
async function compare(
  calls: number,
  cases: Record<string, () => Promise<unknown>>,
  rounds = ROUNDS,
): Promise<Record<string, number>> {
  const names = Object.keys(cases);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const name of names) for (let i = 0; i < calls / 10; i++) await cases[name]!(); // warm-up
  for (let round = 0; round < rounds; round++) {
    // Each round starts with the next case, so that no case always follows the same one (and
    // pays for the garbage it left).
    const order = names.map((_, i) => names[(i + round) % names.length]!);
    for (const name of order) {
      const fn = cases[name]!;
      const start = performance.now();
      for (let i = 0; i < calls; i++) await fn();
      samples[name]!.push(((performance.now() - start) * 1000) / calls);
    }
  }
  lastSamples = samples;
  return Object.fromEntries(names.map((n) => [n, median(samples[n]!)]));
}

/** The per-round samples of the last {@link compare}. */
let lastSamples: Record<string, number[]> = {};

/**
 * The median over rounds of `name`'s time over `floor`'s in the same round, and the spread: on a
 * loaded machine a round-by-round ratio drifts far less than the ratio of two medians.
 */
function pairedRatio(name: string, floor: string): string {
  const path = lastSamples[name] ?? [];
  const base = lastSamples[floor] ?? [];
  const ratios = path.map((value, round) => value / (base[round] ?? NaN));
  const low = Math.min(...ratios).toFixed(2);
  const high = Math.max(...ratios).toFixed(2);
  return `×${median(ratios).toFixed(3)} round by round (rounds ${low}–${high})`;
}

function signed(us: number): string {
  return `${us < 0 ? '−' : '+'}${Math.abs(us).toFixed(3)} µs`;
}

function row(label: string, us: number, note = ''): void {
  console.log(`  ${label.padEnd(52)} ${us.toFixed(3).padStart(10)} µs/call  ${note}`);
}

const searchTool: Tool = {
  name: 'search',
  namespace: 'bench',
  description: 'Searches documents.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 200 },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
      exact: { type: 'boolean' },
    },
    required: ['query'],
    additionalProperties: false,
  },
};
const args = { query: 'quarterly report', limit: 10, tags: ['finance', 'q3'], exact: false };
const handler = (input: unknown): unknown => input;

async function localBench(): Promise<void> {
  const index = createIndex();
  index.registerTool(searchTool, { kind: 'local', local: { name: 'search' } });
  const local = createLocalRegistry().register('search', handler);
  const cfworker = createValidator();
  const ajv = createAjvValidator();
  const plain = createRunner({ index, local, validate: { input: false, output: false } });
  const withCfworker = createRunner({ index, local, validator: cfworker });
  const withAjv = createRunner({ index, local, validator: ajv });
  // The floor validates the very tool object the runner gets from the index.
  const indexed = index.getTool('bench:search').tool;
  const validated = (validator: SchemaValidator) => async () => {
    validator.validateInput(indexed, args);
    return await handler(args);
  };

  console.log('\nlocal tool, sequential awaits (floor: bare `await handler(args)`, ~0.09 µs)');
  const fast = await compare(200_000, {
    bare: async () => await handler(args),
    run: () => plain.run('bench:search', args),
  });
  const overhead = (fast.run ?? 0) - (fast.bare ?? 0);
  row('await handler(args)', fast.bare ?? 0);
  row('runner.run(), validation off', fast.run ?? 0, `${signed(overhead)} (target ≤ +1 µs)`);
  console.log(`  ${''.padEnd(52)} ${(1 / (fast.run ?? 1)).toFixed(2)} M calls/s (target ≥ 1)`);

  const slow = await compare(10_000, {
    cfworkerFloor: validated(cfworker),
    cfworkerRun: () => withCfworker.run('bench:search', args),
  });
  const ratio = (slow.cfworkerRun ?? 0) / (slow.cfworkerFloor ?? 1);
  row('cfworker validateInput + handler', slow.cfworkerFloor ?? 0);
  row(
    'runner.run(), default validator',
    slow.cfworkerRun ?? 0,
    `×${ratio.toFixed(3)} (target ≤ 1.10)`,
  );

  const quick = await compare(200_000, {
    ajvFloor: validated(ajv),
    ajvRun: () => withAjv.run('bench:search', args),
  });
  const ajvRatio = (quick.ajvRun ?? 0) / (quick.ajvFloor ?? 1);
  row('ajv validateInput + handler', quick.ajvFloor ?? 0);
  row(
    'runner.run(), ajv validator',
    quick.ajvRun ?? 0,
    `×${ajvRatio.toFixed(3)} (${signed((quick.ajvRun ?? 0) - (quick.ajvFloor ?? 0))})`,
  );
}

async function mcpBench(label: string, connection: ConnectedClient, calls: number): Promise<void> {
  const client: Client = connection.client;
  const { tools } = await client.listTools();
  const index = createIndex();
  index.registerMcpTools('fx', tools, { namespace: 'fx' });
  const mcp = createMcpExecutor({ clients: { fx: client } });
  const plain = createRunner({ index, mcp, validate: { input: false, output: false } });
  const validating = createRunner({ index, mcp });
  const addArgs = { a: 2, b: 3 };
  // One long-lived signal for every call, as an agent's run passes: the runner gives each request
  // a signal of its own under it (one listener on the caller's for all of them).
  const { signal } = new AbortController();
  // Short rounds, many of them: the cases take turns every few hundred calls.
  const results = await compare(
    calls,
    {
      raw: () => client.callTool({ name: 'add', arguments: addArgs }),
      run: () => plain.run('fx:add', addArgs),
      validated: () => validating.run('fx:add', addArgs),
      rawSignal: () => client.callTool({ name: 'add', arguments: addArgs }, { signal }),
      runSignal: () => plain.run('fx:add', addArgs, { signal }),
    },
    MCP_ROUNDS,
  );
  const ratio = median(
    (lastSamples.run ?? []).map((value, round) => value / (lastSamples.raw?.[round] ?? NaN)),
  );
  console.log(`\nMCP tool over ${label} (floor: raw client.callTool on the same transport)`);
  row('client.callTool', results.raw ?? 0);
  row(
    'runner.run(), validation off',
    results.run ?? 0,
    `${pairedRatio('run', 'raw')}: ${ratio <= 1.05 ? 'met' : 'MISSED'} (target ≤ 1.05)`,
  );
  row('runner.run(), default validator', results.validated ?? 0, pairedRatio('validated', 'raw'));
  row('client.callTool, a long-lived signal', results.rawSignal ?? 0);
  row(
    'runner.run(), validation off, that signal',
    results.runSignal ?? 0,
    pairedRatio('runSignal', 'rawSignal'),
  );
}

await localBench();
const memory = await connectInMemory();
try {
  await mcpBench('the in-memory transport', memory, 1000);
} finally {
  await memory.close();
}
const stdio = await connectStdio();
try {
  await mcpBench('stdio to a child process', stdio, 300);
} finally {
  await stdio.close();
}
