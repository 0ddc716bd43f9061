// `toolplane tools list` with one stdio server against that server's own start: how much the CLI
// adds to the one thing it must wait for. The server is @modelcontextprotocol/server-everything
// (prebuilt JavaScript). Its own start is a child spawned from this process, connected, asked
// `tools/list` and closed; the CLI's is the built bin (dist) run as a child with a config naming
// that server, until it exits, beside the unbundled dist/bin.js (what the bin ran before it ran
// the bundle of scripts/bundle-bin.js). Rounds alternate the three; the figures are medians of
// ROUNDS rounds. Run `pnpm build` first: a stale dist makes the bin fall back to tsx.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const ROUNDS = 9;
const require = createRequire(import.meta.url);
const everything = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const bin = fileURLToPath(new URL('../bin/toolplane.js', import.meta.url));
const unbundled = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** ms from spawning the server to its `tools/list` answer. */
async function serverStart(): Promise<number> {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [everything, 'stdio'],
      stderr: 'ignore',
    }),
  );
  const { tools } = await client.listTools();
  const ms = performance.now() - started;
  await client.close();
  if (tools.length === 0) throw new Error('server-everything listed no tools');
  return ms;
}

/** ms from spawning `toolplane tools list` (`entry`) to its exit, and its stdout. */
function cliList(cwd: string, entry = bin): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [entry, 'tools', 'list'], {
    cwd,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve({ ms, stdout });
      else reject(new Error(`toolplane tools list exited ${String(code)}`));
    });
  });
}

const dir = await mkdtemp(join(tmpdir(), 'toolplane-bench-list-'));
try {
  await writeFile(
    join(dir, 'toolplane.config.json'),
    JSON.stringify({
      mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
      store: 'memory',
    }),
  );
  const first = await cliList(dir);
  if (!first.stdout.includes('everything:')) throw new Error('the CLI listed no server tools');
  const server: number[] = [];
  const cli: number[] = [];
  const cliUnbundled: number[] = [];
  const load = loadavg()[0]?.toFixed(1) ?? '?';
  for (let round = 0; round < ROUNDS; round++) {
    server.push(await serverStart());
    cli.push((await cliList(dir)).ms);
    cliUnbundled.push((await cliList(dir, unbundled)).ms);
  }
  const ratio = median(cli) / median(server);
  console.log(
    `tools list with one stdio server: ${median(cli).toFixed(0)} ms; the server's own start: ` +
      `${median(server).toFixed(0)} ms; ratio ${ratio.toFixed(2)}; unbundled dist/bin.js ` +
      `${median(cliUnbundled).toFixed(0)} ms, ratio ${(median(cliUnbundled) / median(server)).toFixed(2)} ` +
      `(medians of ${String(ROUNDS)} alternating rounds, load average ${load} → ${loadavg()[0]?.toFixed(1) ?? '?'})`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
