// `toolplane tools list` with one stdio server against that server's own start: how much the CLI
// adds to the one thing it must wait for. The server is @modelcontextprotocol/server-everything
// (prebuilt JavaScript). Its own start is a child spawned from this process, connected, asked
// `tools/list` and closed; the CLI's is the built bin (dist) run as a child with a config naming
// that server, until it exits, beside the unbundled dist/bin.js (what the bin ran before it ran
// the bundle of scripts/bundle-bin.js) and the bundle run at once, as in an installed package,
// on the memory store the config names and on the default SQLite store of a config naming none.
// Rounds alternate them; the figures are medians of ROUNDS rounds. Run `pnpm build` first: a
// stale dist makes the bin fall back to tsx.
// Beside them, the time from the CLI's exec to its spawn of the server (the server notes when its
// process began, through a one-line `--import`; its own start carries the same line): how early
// the CLI starts the one thing it must wait for. And the CLI's own CPU time (user + system, as
// `process.cpuUsage()` reads it when the process exits, noted by another one-line `--import`, in
// runs of their own), which a busy machine stretches far less than wall time. And when the server
// first answered, on its own clock, started alone and started by the CLI: how much the CLI's
// loading beside it slows the start the CLI waits for.
// Beside them, the floor (bench/floor-client.mjs): a plain Node.js script that spawns the server as
// its first statement and speaks the spec's stdio sequence in raw JSON lines, the least any
// Node.js command can take to list the server's tools.
// BENCH_BASELINE names another build's bundle entry (`…/dist/bundle/toolplane.js`, copied aside
// before a change) to run in the same rounds, for a before/after on one machine at one load.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
// What the bin runs in an installed package, which ships no source: the bundle, at once. In a
// clone the bin first checks that no source is newer than the build (tens of ms).
const installed = fileURLToPath(new URL('../dist/bundle/toolplane.js', import.meta.url));
const floorClient = fileURLToPath(new URL('./floor-client.mjs', import.meta.url));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The server's command line: it notes when its process began and first answered in `spawnedFile`. */
function serverArgs(spawnedFile: string, marker: string): string[] {
  return ['--import', pathToFileURL(marker).href, everything, 'stdio', spawnedFile];
}

/** ms from spawning the server to its `tools/list` answer. */
async function serverStart(spawnedFile: string, marker: string): Promise<number> {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: serverArgs(spawnedFile, marker),
      stderr: 'ignore',
    }),
  );
  const { tools } = await client.listTools();
  const ms = performance.now() - started;
  await client.close();
  if (tools.length === 0) throw new Error('server-everything listed no tools');
  return ms;
}

/** ms from spawning `toolplane tools list` (`entry`) to its exit, its stdout, and when it began. */
function cliList(
  cwd: string,
  entry = bin,
  nodeArgs: readonly string[] = [],
): Promise<{ ms: number; stdout: string; startedAt: number }> {
  const started = performance.now();
  const startedAt = performance.timeOrigin + started;
  const child = spawn(process.execPath, [...nodeArgs, entry, 'tools', 'list'], {
    cwd,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve({ ms, stdout, startedAt });
      else reject(new Error(`toolplane tools list exited ${String(code)}`));
    });
  });
}

/** ms from spawning the floor client (`floorClient`) for the server to its exit. */
function floorList(spawnedFile: string, marker: string): Promise<number> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [floorClient, process.execPath, ...serverArgs(spawnedFile, marker)],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0 && stdout.includes('echo')) resolve(performance.now() - started);
      else reject(new Error(`the floor client exited ${String(code)}`));
    });
  });
}

/** ms of CPU (user + system) the CLI's process used, as `cpuMarker` noted it at its exit. */
async function cliCpu(cwd: string, entry: string, cpuMarker: string, cpuFile: string) {
  await cliList(cwd, entry, ['--import', pathToFileURL(cpuMarker).href]);
  const lines = (await readFile(cpuFile, 'utf8')).trim().split('\n');
  return Number(lines.at(-1));
}

/** The last figure `marker` noted in `spawnedFile` under `key` (see the marker below). */
async function lastNoted(spawnedFile: string, key: 'began' | 'ready'): Promise<number> {
  const lines = (await readFile(spawnedFile, 'utf8')).trim().split('\n');
  const line = lines.findLast((text) => text.startsWith(`${key} `));
  if (line === undefined) throw new Error(`the server noted no "${key}"`);
  return Number(line.slice(key.length + 1));
}

const dir = await mkdtemp(join(tmpdir(), 'toolplane-bench-list-'));
try {
  const marker = join(dir, 'spawned.mjs');
  const spawnedFile = join(dir, 'spawned.txt');
  const cpuMarker = join(dir, 'cpu.mjs');
  const cpuFile = join(dir, 'cpu.txt');
  await writeFile(
    cpuMarker,
    `import { appendFileSync } from 'node:fs';\nprocess.on('exit', () => { const { user, system } = process.cpuUsage(); appendFileSync(${JSON.stringify(cpuFile)}, \`\${(user + system) / 1000}\\n\`); });\n`,
  );
  const baseline = process.env.BENCH_BASELINE;
  // The server's argv ends with the file. It notes when its process began (`began`, epoch ms:
  // performance.timeOrigin) and, on its own clock, when it first wrote to stdout (`ready`: its
  // first answer, which comes once its start is done, as every client here writes at once or
  // before the server can read).
  await writeFile(
    marker,
    [
      "import { appendFileSync } from 'node:fs';",
      'const file = process.argv.at(-1);',
      'appendFileSync(file, `began ${performance.timeOrigin}\\n`);',
      'const write = process.stdout.write.bind(process.stdout);',
      'process.stdout.write = (...args) => {',
      '  process.stdout.write = write;',
      '  appendFileSync(file, `ready ${performance.now()}\\n`);',
      '  return write(...args);',
      '};',
      '',
    ].join('\n'),
  );
  const mcpServers = {
    everything: { command: process.execPath, args: serverArgs(spawnedFile, marker) },
  };
  await writeFile(
    join(dir, 'toolplane.config.json'),
    JSON.stringify({ mcpServers, store: 'memory' }),
  );
  // The same server on the store a config that names none gets: SQLite, in a file under
  // .toolplane (made by the first run below), as a user's first runs have it.
  const defaultStoreDir = join(dir, 'default-store');
  await mkdir(defaultStoreDir);
  await writeFile(join(defaultStoreDir, 'toolplane.config.json'), JSON.stringify({ mcpServers }));
  for (const cwd of [dir, defaultStoreDir]) {
    const first = await cliList(cwd);
    if (!first.stdout.includes('everything:')) throw new Error('the CLI listed no server tools');
  }
  const server: number[] = [];
  const cli: number[] = [];
  const cliSpawn: number[] = [];
  // The server's first answer on its own clock: started alone, and started by the CLI.
  const readyAlone: number[] = [];
  const readyBesideCli: number[] = [];
  const cliUnbundled: number[] = [];
  const cliInstalled: number[] = [];
  const cliDefaultStore: number[] = [];
  const cpu: number[] = [];
  const floor: number[] = [];
  const cliBaseline: number[] = [];
  const cpuBaseline: number[] = [];
  const load = loadavg()[0]?.toFixed(1) ?? '?';
  for (let round = 0; round < ROUNDS; round++) {
    server.push(await serverStart(spawnedFile, marker));
    readyAlone.push(await lastNoted(spawnedFile, 'ready'));
    const listed = await cliList(dir);
    cli.push(listed.ms);
    cliSpawn.push((await lastNoted(spawnedFile, 'began')) - listed.startedAt);
    readyBesideCli.push(await lastNoted(spawnedFile, 'ready'));
    cliUnbundled.push((await cliList(dir, unbundled)).ms);
    // The installed bundle and the baseline run one after the other, first by turns: a run's
    // place in a round shifts its time by a few ms (read with no change between the two).
    const installedFirst = baseline === undefined || round % 2 === 0;
    if (!installedFirst) cliBaseline.push((await cliList(dir, baseline)).ms);
    cliInstalled.push((await cliList(dir, installed)).ms);
    if (installedFirst && baseline !== undefined) {
      cliBaseline.push((await cliList(dir, baseline)).ms);
    }
    cliDefaultStore.push((await cliList(defaultStoreDir, installed)).ms);
    cpu.push(await cliCpu(dir, bin, cpuMarker, cpuFile));
    if (baseline !== undefined) cpuBaseline.push(await cliCpu(dir, baseline, cpuMarker, cpuFile));
    floor.push(await floorList(spawnedFile, marker));
  }
  const ratio = median(cli) / median(server);
  console.log(
    `tools list with one stdio server: ${median(cli).toFixed(0)} ms; the server's own start: ` +
      `${median(server).toFixed(0)} ms; ratio ${ratio.toFixed(2)}; the CLI's exec to its spawn of ` +
      `the server ${median(cliSpawn).toFixed(0)} ms; unbundled dist/bin.js ` +
      `${median(cliUnbundled).toFixed(0)} ms, ratio ${(median(cliUnbundled) / median(server)).toFixed(2)}; ` +
      `as installed from npm (the bundle, no sources to check) ${median(cliInstalled).toFixed(0)} ms, ` +
      `ratio ${(median(cliInstalled) / median(server)).toFixed(2)}, on the default SQLite store ` +
      `${median(cliDefaultStore).toFixed(0)} ms, ratio ` +
      `${(median(cliDefaultStore) / median(server)).toFixed(2)}; the CLI's own CPU ` +
      `${median(cpu).toFixed(0)} ms; the floor (a bare Node.js client) ${median(floor).toFixed(0)} ms, ` +
      `ratio ${(median(floor) / median(server)).toFixed(2)}; the server's first answer after its ` +
      `process began ${median(readyAlone).toFixed(0)} ms alone, ${median(readyBesideCli).toFixed(0)} ms ` +
      `started by the CLI` +
      (baseline === undefined
        ? ''
        : `; BENCH_BASELINE ${median(cliBaseline).toFixed(0)} ms, ratio ` +
          `${(median(cliBaseline) / median(server)).toFixed(2)}, its CPU ${median(cpuBaseline).toFixed(0)} ms`) +
      ` (medians of ${String(ROUNDS)} alternating rounds, load average ${load} → ${loadavg()[0]?.toFixed(1) ?? '?'})`,
  );
  if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
    // Node.js reads and parses the file at every start, before any script runs (~30 ms for the
    // system's CA bundle on the 2-core machine): the CLI and the floor pay it, the servers (given
    // the SDK's default environment) do not.
    console.log(
      'NODE_EXTRA_CA_CERTS is set: every Node.js start of the CLI and the floor reads it; run with `env -u NODE_EXTRA_CA_CERTS` to measure without',
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
