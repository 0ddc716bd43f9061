/**
 * What each MCP era costs a connector, as medians of several rounds, side by side in one run:
 * - a `callTool` through the toolkit to the fixture's `add`, for a 2025 upstream and a 2026 one,
 *   over stdio and over Streamable HTTP (the 2025 stdio call is the floor);
 * - connecting: pinned to 2025, `auto` against a 2025 server (one probe), `auto` against a 2026
 *   server, a reconnect that remembers the era (no probe), and `auto` against a stdio server that
 *   never answers the probe (bounded by `eraProbeTimeoutMs`).
 *
 * Run: pnpm --filter @toolplane/toolkit bench
 */
import { createConnector, createToolkit, type ConnectorOptions } from '@toolplane/toolkit';
import { runToolkit } from '@toolplane/toolkit/testing';
import { fixtureCommand, startHttpFixture } from '@toolplane/fixtures';

const ROUNDS = 7;
const CALLS = 200;

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function report(title: string, results: Record<string, number>, unit: string, floor: string) {
  console.log(`\n${title}`);
  const base = results[floor];
  for (const [name, value] of Object.entries(results)) {
    const ratio = base === undefined || name === floor ? '' : `  ×${(value / base).toFixed(2)}`;
    console.log(`  ${name.padEnd(40)} ${value.toFixed(1).padStart(10)} ${unit}${ratio}`);
  }
}

const http25 = await startHttpFixture({ server: fixtureCommand('http') });
const http26 = await startHttpFixture({ server: fixtureCommand('http-2026') });
try {
  const toolkit = createToolkit();
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'stdio25', era: '2025' });
  toolkit.addConnector(fixtureCommand('stdio-2026'), { namespace: 'stdio26' });
  toolkit.addConnector(http25.url, { namespace: 'http25', era: '2025' });
  toolkit.addConnector(http26.url, { namespace: 'http26' });
  const running = await runToolkit(toolkit);
  try {
    const names = ['stdio25', 'stdio26', 'http25', 'http26'];
    const samples = new Map(names.map((name) => [name, [] as number[]]));
    for (const name of names) {
      for (let i = 0; i < 20; i++) await toolkit.callTool(`${name}:add`, { a: 1, b: i });
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of names) {
        const start = performance.now();
        for (let i = 0; i < CALLS; i++) await toolkit.callTool(`${name}:add`, { a: 1, b: i });
        samples.get(name)?.push(((performance.now() - start) * 1000) / CALLS);
      }
    }
    report(
      'callTool through the toolkit, per call',
      {
        '2025 over stdio (floor)': median(samples.get('stdio25') ?? []),
        '2026 over stdio': median(samples.get('stdio26') ?? []),
        '2025 over Streamable HTTP (session)': median(samples.get('http25') ?? []),
        '2026 over Streamable HTTP (per request)': median(samples.get('http26') ?? []),
      },
      'µs',
      '2025 over stdio (floor)',
    );
  } finally {
    await running.stop();
  }

  /** Milliseconds from start() to ready(), median of ROUNDS fresh connectors. */
  async function connectTime(
    source: Parameters<typeof createConnector>[0],
    options: ConnectorOptions,
  ): Promise<number> {
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const connector = createConnector(source, options);
      const start = performance.now();
      connector.start();
      await connector.ready();
      times.push(performance.now() - start);
      await connector.close();
    }
    return median(times);
  }

  /** Milliseconds of a reconnect after the first connection: the era remembered, no probe. */
  async function reconnectTime(source: Parameters<typeof createConnector>[0]): Promise<number> {
    const times: number[] = [];
    let connected: (() => void) | undefined;
    const connector = createConnector(source, {
      backoff: { initialDelayMs: 0, maxDelayMs: 0 },
      onEvent: (event) => {
        if (event.type === 'state_change' && event.state === 'connected') connected?.();
      },
    });
    connector.start();
    await connector.ready();
    for (let round = 0; round < ROUNDS; round++) {
      const again = new Promise<void>((resolve) => {
        connected = resolve;
      });
      const start = performance.now();
      await connector.client?.close();
      await again;
      times.push(performance.now() - start);
    }
    await connector.close();
    return median(times);
  }

  report(
    'connecting over stdio, start() to ready()',
    {
      'pinned 2025, 2025 server (floor)': await connectTime(fixtureCommand('stdio'), {
        era: '2025',
      }),
      'auto, 2025 server (probe answered)': await connectTime(fixtureCommand('stdio'), {}),
      'auto, 2026 server': await connectTime(fixtureCommand('stdio-2026'), {}),
      'auto, silent 2025 server (bound 500 ms)': await connectTime(fixtureCommand('stdio-silent'), {
        eraProbeTimeoutMs: 500,
      }),
      'auto, 2026 server, reconnect (remembered)': await reconnectTime(
        fixtureCommand('stdio-2026'),
      ),
    },
    'ms',
    'pinned 2025, 2025 server (floor)',
  );
} finally {
  await http25.close();
  await http26.close();
}
