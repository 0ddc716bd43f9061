// What one open HTTP session holds in the gateway, by kind of object: the gateway child (built,
// validating with ajv, in front of the stdio echo fixture, as peers-memory.ts runs it) is opened
// sessions the way peers-memory.ts opens them (SDK clients, initialize, one echo call, kept open
// with their GET stream), and a heap snapshot is taken at each of SESSIONS open sessions (default
// 100 and 1,100). Prints the per-session growth between the first and the last by object kind
// (`<type>:<constructor or function name>`), count and self size, largest first. Snapshots go to
// a temporary folder, removed at the end unless KEEP=1 (then open them in Chrome's DevTools).
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureCommand } from '@toolplane/fixtures';
import type { ServeHttpOptions } from '@toolplane/gateway';
import { requestScopedFetch } from '@toolplane/toolkit';
import { gatewayCommand } from '../src/testing/gateway-command.js';
import { censusOf, growth } from './heap-census.js';
import { bundleChildren, onStderrLine, startMiddle, stop } from './peer-servers.js';

const COUNTS = (process.env.SESSIONS ?? '100,1100').split(',').map(Number);
const BATCH = 25;
const out = await bundleChildren(['snapshot-probe.ts'], 'toolplane-session-snapshot');
const work = await mkdtemp(join(tmpdir(), 'toolplane-session-snapshot-'));
// As peers-memory.ts: every client is on 127.0.0.1 and holds a GET stream open.
const caps: Omit<ServeHttpOptions, 'port'> = {
  maxConnections: 4_096,
  maxConnectionsPerSource: 4_096,
};
const ours = gatewayCommand([{ namespace: 'fx', source: fixtureCommand('stdio') }], caps, 'http', {
  built: true,
  ajv: true,
});
const middle = await startMiddle(
  {
    command: ours.command,
    args: [
      '--expose-gc',
      '--import',
      pathToFileURL(join(out, 'snapshot-probe.mjs')).href,
      ...ours.args,
    ],
  },
  { env: { ...process.env, SNAPSHOT_DIR: work } },
);

const taken: ((line: string) => void)[] = [];
onStderrLine(middle.child, (line) => {
  if (line.startsWith('SNAPSHOT ')) taken.shift()?.(line);
});
const snapshot = (): Promise<{ heap: number; file: string }> =>
  new Promise((resolve) => {
    taken.push((line) => {
      const [, heap = '0', file = ''] = line.split(' ');
      resolve({ heap: Number(heap), file });
    });
    middle.child.kill('SIGUSR1');
  });

const clients: Client[] = [];
let echo: string | undefined;
async function open(): Promise<Client> {
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(
    new StreamableHTTPClientTransport(middle.url, { fetch: requestScopedFetch() }),
  );
  echo ??= (await client.listTools()).tools.find((t) => /echo$/.test(t.name))?.name;
  if (echo === undefined) throw new Error('the gateway lists no echo tool');
  await client.callTool({ name: echo, arguments: { text: 'hello' } });
  return client;
}

try {
  const shots: { count: number; heap: number; file: string }[] = [];
  for (const count of COUNTS) {
    while (clients.length < count) {
      const batch = Math.min(BATCH, count - clients.length);
      clients.push(...(await Promise.all(Array.from({ length: batch }, open))));
    }
    shots.push({ count, ...(await snapshot()) });
  }
  const first = shots[0];
  const last = shots.at(-1);
  if (first === undefined || last === undefined || last.count <= first.count) {
    throw new Error('SESSIONS needs two counts, rising');
  }
  const units = last.count - first.count;
  const rows = growth(await censusOf(first.file), await censusOf(last.file), units);
  const total = rows.reduce((sum, row) => sum + row.bytes, 0);
  console.log(
    `heap per open HTTP session, ${String(first.count)} → ${String(last.count)} sessions (load ${(loadavg()[0] ?? NaN).toFixed(1)}): ${((last.heap - first.heap) / units / 1024).toFixed(1)} KB heap used after GC; ${(total / 1024).toFixed(1)} KB of objects in the snapshots, by kind:`,
  );
  for (const row of rows.slice(0, Number(process.env.TOP ?? 30))) {
    console.log(
      `${row.bytes.toFixed(0).padStart(7)} B ${row.count.toFixed(2).padStart(7)}×  ${row.label}`,
    );
  }
} finally {
  for (let i = 0; i < clients.length; i += BATCH) {
    await Promise.all(clients.slice(i, i + BATCH).map((c) => c.close().catch(() => undefined)));
  }
  await stop(middle.child);
  if (process.env.KEEP === '1') console.log(`snapshots kept in ${work}`);
  else await rm(work, { recursive: true, force: true });
}
