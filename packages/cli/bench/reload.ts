// Config reload of a running `toolplane serve --http`, a real child with real stdio servers:
//  1. latency: the config file written → the new server's tools in an open session's tools/list
//     (re-listed on each list_changed), next to that server's own start (a client connecting
//     to the same fixture over stdio and listing its tools), the floor the reload adds to;
//  2. cost to calls: the p99 of a steady call load (4 callers of a fixture tool) while ten
//     reloads each add one server and remove the one before, against the same load with none.
// Medians and ratios; the machine is shared, so read the ratios first.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { entryArgs, fixtureCommand } from '@toolplane/fixtures';
import { requestScopedFetch } from '@toolplane/toolkit';

const RELOADS = 10;
const CALLERS = 4;
const fixture = fixtureCommand('stdio');
const bin = fileURLToPath(new URL('../src/bin.ts', import.meta.url));

const median = (xs: readonly number[]): number => quantile(xs, 0.5);
function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

const config = (names: readonly string[], deny: readonly string[] = []): string =>
  JSON.stringify({
    mcpServers: Object.fromEntries(
      names.map((name) => [
        name,
        {
          command: fixture.command,
          args: fixture.args,
          ...(name === 'a' && deny.length > 0 ? { tools: { deny } } : {}),
        },
      ]),
    ),
    store: 'memory',
    builtins: false,
  });

const dir = await mkdtemp(join(tmpdir(), 'toolplane-reload-bench-'));
const file = join(dir, 'toolplane.config.json');
await writeFile(file, config(['a']));
const child = spawn(
  process.execPath,
  [...entryArgs(bin), 'serve', '--http', '--port', '0', '--config', file],
  { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
);
let stderr = '';
const url = await new Promise<URL>((resolve, reject) => {
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    const match = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
    if (match?.[1] !== undefined) resolve(new URL(match[1]));
  });
  child.once('exit', () => {
    reject(new Error(`serve ended:\n${stderr}`));
  });
});

const client = new Client({ name: 'reload-bench', version: '0' });
// With the SDK's own fetch, each call's listener on the transport's connection-long signal
// stays until garbage collection, and ~1,500 calls print MaxListenersExceededWarning.
await client.connect(new StreamableHTTPClientTransport(url, { fetch: requestScopedFetch() }));
let wake: () => void = () => undefined;
client.setNotificationHandler('notifications/tools/list_changed', () => {
  wake();
});

/** Writes a config and resolves with the ms until the session lists `tool` (or no longer). */
async function reloadTo(
  names: readonly string[],
  tool: string,
  options: { deny?: readonly string[]; listed?: boolean } = {},
): Promise<number> {
  const started = performance.now();
  await writeFile(file, config(names, options.deny));
  for (;;) {
    const heard = new Promise<void>((resolve) => (wake = resolve));
    const { tools } = await client.listTools();
    if (tools.some((t) => t.name === tool) === (options.listed ?? true)) {
      return performance.now() - started;
    }
    await heard;
  }
}

/** A fixture server's own start: spawn, handshake, tools/list. */
async function serverStart(): Promise<number> {
  const started = performance.now();
  const own = new Client({ name: 'reload-bench', version: '0' });
  await own.connect(
    new StdioClientTransport({ command: fixture.command, args: [...fixture.args] }),
  );
  await own.listTools();
  const ms = performance.now() - started;
  await own.close();
  return ms;
}

/** Latencies of the call load, while `during` runs. */
async function callLoad(during: () => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  let running = true;
  const caller = async (): Promise<void> => {
    while (running) {
      const started = performance.now();
      await client.callTool({ name: 'a__add', arguments: { a: 1, b: 2 } });
      latencies.push(performance.now() - started);
    }
  };
  const callers = Array.from({ length: CALLERS }, caller);
  await during();
  running = false;
  await Promise.all(callers);
  return latencies;
}

try {
  const latencies: number[] = [];
  const starts: number[] = [];
  for (let i = 0; i < RELOADS; i++) {
    latencies.push(await reloadTo(['a', `n${String(i)}`], `n${String(i)}__add`));
    starts.push(await serverStart());
  }
  // The same load: with no reload; during ten reloads that change a filter (no process
  // starts); during ten that each add a server and remove the one before (a spawn each).
  const calm = await callLoad(async () => {
    await new Promise((resolve) => setTimeout(resolve, RELOADS * median(latencies)));
  });
  const filtering = await callLoad(async () => {
    for (let i = 0; i < RELOADS; i++) {
      const deny = i % 2 === 0 ? ['echo'] : [];
      await reloadTo(['a', `n${String(RELOADS - 1)}`], 'a__echo', { deny, listed: i % 2 === 1 });
    }
  });
  let round = RELOADS;
  const servers = await callLoad(async () => {
    for (let i = 0; i < RELOADS; i++) {
      const name = `n${String(round++)}`;
      await reloadTo(['a', name], `${name}__add`);
    }
  });
  const p99 = (xs: readonly number[]) => quantile(xs, 0.99);
  const line = (label: string, xs: readonly number[]) =>
    `call p99 ${label}: ${p99(xs).toFixed(2)} ms (${String(xs.length)} calls, median ${median(xs).toFixed(2)} ms)`;
  console.log(
    [
      `reload latency (file written → new tools listed): median ${median(latencies).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms (${String(RELOADS)} reloads)`,
      `the new server's own start (stdio spawn → tools listed): median ${median(starts).toFixed(0)} ms`,
      `reload overhead beyond the server's start: median ${(median(latencies) - median(starts)).toFixed(0)} ms`,
      line('with no reload', calm),
      line(`during ${String(RELOADS)} filter reloads`, filtering),
      line(`during ${String(RELOADS)} server-swapping reloads`, servers),
      `ratio p99 filter reloads / none: ${(p99(filtering) / p99(calm)).toFixed(2)}×`,
      `ratio p99 server-swapping reloads / none: ${(p99(servers) / p99(calm)).toFixed(2)}×`,
    ].join('\n'),
  );
} finally {
  await client.close();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  await rm(dir, { recursive: true, force: true });
}
