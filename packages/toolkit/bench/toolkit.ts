/**
 * The aggregator's own costs, as medians of several rounds, each beside the floor under it in the
 * same run:
 * - `list` over 5 connectors × 200 tools, served from the connectors' caches;
 * - `lookup` by scoped name, bare name and URI;
 * - `call` / `callTool` against `runner.run` for the same tool (builtin and MCP over stdio);
 * - time from an upstream's death (SIGKILL) to its tools being callable again.
 *
 * Run: pnpm --filter @toolplane/toolkit bench
 */
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createToolkit, defineTool, type Toolkit, type ToolkitEvent } from '@toolplane/toolkit';
import { runToolkit } from '@toolplane/toolkit/testing';

const ROUNDS = 9;
const require = createRequire(import.meta.url);
const tsx = pathToFileURL(require.resolve('tsx')).href;
const server = fileURLToPath(new URL('./many-tools-server.ts', import.meta.url));
const serverCommand = (count: number) => ({
  command: process.execPath,
  args: ['--import', tsx, server, String(count)],
});

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** One case's µs per call: median rounds of wall-clock and of this process's CPU time. */
interface Result {
  readonly wall: number;
  readonly cpu: number;
  /** Median over rounds of this case's CPU time over the floor's in the same round. */
  readonly ratio?: number;
}

/**
 * µs per call of each case, in interleaved rounds whose order rotates, so a machine whose load
 * changes slows every case alike; the ratio to `floor` is the median of per-round ratios of CPU
 * time (the time spent waiting for a core left out; for an upstream in a child process, its
 * work is the same in every case and not counted).
 */
async function compare(
  calls: number,
  cases: Record<string, () => Promise<unknown>>,
  floor?: string,
): Promise<Record<string, Result>> {
  const names = Object.keys(cases);
  const wall = new Map(names.map((name) => [name, [] as number[]]));
  const cpu = new Map(names.map((name) => [name, [] as number[]]));
  for (const name of names) for (let i = 0; i < Math.ceil(calls / 10); i++) await cases[name]?.();
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length] as string;
      const fn = cases[name];
      if (fn === undefined) continue;
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      for (let i = 0; i < calls; i++) await fn();
      const used = process.cpuUsage(cpuStart);
      wall.get(name)?.push(((performance.now() - start) * 1000) / calls);
      cpu.get(name)?.push((used.user + used.system) / calls);
    }
  }
  const base = floor === undefined ? undefined : (cpu.get(floor) ?? []);
  return Object.fromEntries(
    names.map((name) => {
      const own = cpu.get(name) ?? [];
      const ratio =
        base === undefined || name === floor
          ? undefined
          : median(own.map((value, i) => value / (base[i] ?? Number.NaN)));
      return [name, { wall: median(wall.get(name) ?? []), cpu: median(own), ratio }];
    }),
  );
}

function report(title: string, results: Record<string, Result>): void {
  console.log(`\n${title}`);
  for (const [name, r] of Object.entries(results)) {
    const ratio = r.ratio === undefined ? '' : `  ×${r.ratio.toFixed(2)} CPU`;
    console.log(
      `  ${name.padEnd(44)} ${r.wall.toFixed(2).padStart(10)} µs (CPU ${r.cpu.toFixed(2)} µs)${ratio}`,
    );
  }
}

const events: ToolkitEvent[] = [];
const wakers = new Set<() => void>();
function waitFor(match: (event: ToolkitEvent) => boolean, from: number): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (events.slice(from).some(match)) {
        wakers.delete(check);
        resolve();
      }
    };
    wakers.add(check);
    check();
  });
}

async function main(): Promise<void> {
  const echo = defineTool({
    name: 'echo',
    description: 'Echo.',
    input: { type: 'object', properties: { text: { type: 'string' } } },
    run: (input) => input,
  });
  const toolkit: Toolkit = createToolkit({
    tools: [echo],
    connectorDefaults: { backoff: { initialDelayMs: 10, maxDelayMs: 50 } },
    delegate: {
      call: () => Promise.resolve(undefined),
      onEvent: (event) => {
        events.push(event);
        for (const wake of wakers) wake();
      },
    },
  });
  for (let i = 1; i <= 5; i++) toolkit.addConnector(serverCommand(200), { namespace: `c${i}` });
  const started = performance.now();
  const { stop } = await runToolkit(toolkit);
  console.log(`5 connectors × 200 tools up in ${(performance.now() - started).toFixed(0)} ms`);
  console.log(`tools in the index: ${toolkit.index.size}`);

  report(
    'list (cached), per call',
    await compare(50, {
      'list() — all 1,001 tools': () => toolkit.list({ type: 'tool' }),
      'list({ limit: 20 })': () => toolkit.list({ type: 'tool', limit: 20 }),
      'list({ namespace: "c3" })': () => toolkit.list({ namespace: 'c3', type: 'tool' }),
    }),
  );
  report(
    'lookup, per call',
    await compare(
      500,
      {
        'index.getTool("c5:tool-0199") (floor)': () =>
          Promise.resolve(toolkit.index.getTool('c5:tool-0199')),
        'lookup("c5:tool-0199")': () => toolkit.lookup('c5:tool-0199'),
        'lookup("tool-0199") (bare name)': () => toolkit.lookup('tool-0199'),
      },
      'index.getTool("c5:tool-0199") (floor)',
    ),
  );
  report(
    'builtin tool, per call',
    await compare(
      2_000,
      {
        'runner.run (floor)': () => toolkit.runner.run('builtin:echo', { text: 'x' }),
        'toolkit.callTool': () => toolkit.callTool('builtin:echo', { text: 'x' }),
        'toolkit.call (wraps as a resource)': () => toolkit.call('builtin:echo', { text: 'x' }),
      },
      'runner.run (floor)',
    ),
  );
  report(
    'MCP tool over stdio, per call',
    await compare(
      200,
      {
        'runner.run (floor)': () => toolkit.runner.run('c1:tool-0001', { text: 'x' }),
        'toolkit.callTool': () => toolkit.callTool('c1:tool-0001', { text: 'x' }),
        'toolkit.call': () => toolkit.call('c1:tool-0001', { text: 'x' }),
      },
      'runner.run (floor)',
    ),
  );

  const restarts: number[] = [];
  for (let i = 0; i < 7; i++) {
    const pid = toolkit.connectors().find((c) => c.namespace === 'c2')?.pid;
    if (pid === undefined) throw new Error('connector c2 has no child');
    const mark = events.length;
    const killed = performance.now();
    process.kill(pid, 'SIGKILL');
    await waitFor(
      (e) => e.type === 'state_change' && e.namespace === 'c2' && e.state === 'connected',
      mark,
    );
    await toolkit.callTool('c2:tool-0100', { text: 'back' });
    restarts.push(performance.now() - killed);
  }
  console.log(
    `\nupstream killed → its 200 tools callable again: median ${median(restarts).toFixed(0)} ms ` +
      `(backoff 10–50 ms; the rest is spawning a tsx child and the MCP handshake)`,
  );
  await stop();
}

await main();
