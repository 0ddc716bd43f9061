// Where the gateway's CPU goes on one path: runs a gateway child (built, validating with ajv, as
// `toolplane serve` does) under --cpu-prof in front of the stdio fixture, makes sequential echo
// calls through it, stops it and prints the profile's self time per call, by function and by
// package. Not part of `pnpm bench` (a profiler slows what it measures); run it by hand:
//   node --import tsx bench/profile.ts [stdio|http] [2025|2026] [calls]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fixtureCommand } from '@toolplane/fixtures';
import { requestScopedFetch } from '@toolplane/toolkit';
import { gatewayCommand } from '../src/testing/gateway-command.js';
import { announcedUrl } from './measure.js';

const [mode = 'stdio', era = '2025', count = '20000'] = process.argv.slice(2);
const CALLS = Number(count);
const WARMUP = 2_000;
const dir = mkdtempSync(join(tmpdir(), 'gateway-profile-'));
const { command, args } = gatewayCommand(
  [{ namespace: 'fx', source: fixtureCommand('stdio') }],
  {},
  mode === 'http' ? 'http' : 'stdio',
  { built: true, ajv: true },
);
const profiled = ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...args];
const client = new Client(
  { name: 'profile', version: '0' },
  era === '2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
);

let stop: () => Promise<void>;
if (mode === 'http') {
  const child = spawn(command, profiled, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await announcedUrl(child);
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: requestScopedFetch() }));
  stop = async () => {
    await client.close();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
} else {
  const transport = new StdioClientTransport({ command, args: profiled, stderr: 'inherit' });
  await client.connect(transport);
  const pid = transport.pid;
  stop = async () => {
    // SIGTERM lets the child write its profile (closing stdin alone ends it the same way).
    if (pid !== null) process.kill(pid, 'SIGTERM');
    await client.close();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  };
}

const call = () => client.callTool({ name: 'fx__echo', arguments: { text: 'hello' } });
for (let i = 0; i < WARMUP; i++) await call();
for (let i = 0; i < CALLS; i++) await call();
await stop();

interface Node {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly children?: number[];
}
interface Profile {
  readonly nodes: Node[];
  readonly samples: number[];
  readonly timeDeltas: number[];
}
// tsx's loader thread writes a profile of its own: the main thread's is the largest.
const [file] = readdirSync(dir)
  .filter((name) => name.endsWith('.cpuprofile'))
  .sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size);
if (file === undefined) throw new Error('no profile was written');
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
rmSync(dir, { recursive: true });

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfTime = new Map<number, number>();
for (const [index, id] of profile.samples.entries()) {
  selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
}
const total = [...selfTime.values()].reduce((sum, time) => sum + time, 0);
const calls = WARMUP + CALLS;

/** Where a frame's code lives: a package's name, node's own, or the program's. */
function owner(url: string): string {
  if (url === '') return '(native / GC / idle)';
  if (url.startsWith('node:')) return 'node';
  const pkg = /node_modules\/(@[^/]+\/[^/]+|[^/@][^/]*)\//.exec(url.replaceAll('.pnpm/', ''));
  const match = /node_modules\/(?!\.pnpm)(@[^/]+\/[^/]+|[^/]+)\/(?!.*node_modules)/.exec(url);
  if (match?.[1] !== undefined) return match[1];
  if (pkg?.[1] !== undefined) return pkg[1];
  const ours = /packages\/([^/]+)\//.exec(url);
  return ours?.[1] === undefined ? url : `@toolplane/${ours[1]}`;
}

const functions = new Map<string, number>();
const owners = new Map<string, number>();
for (const [id, time] of selfTime) {
  const frame = byId.get(id)?.callFrame;
  if (frame === undefined) continue;
  const where = owner(frame.url);
  const file = frame.url.slice(frame.url.lastIndexOf('/') + 1);
  const name = `${frame.functionName || '(anonymous)'} ${where}/${file}:${String(frame.lineNumber + 1)}`;
  functions.set(name, (functions.get(name) ?? 0) + time);
  owners.set(where, (owners.get(where) ?? 0) + time);
}
const perCall = (time: number) => `${(time / calls).toFixed(2).padStart(7)} µs`;
const top = (table: Map<string, number>, n: number) =>
  [...table].sort((a, b) => b[1] - a[1]).slice(0, n);
console.log(
  `${mode} ${era}: ${String(calls)} calls, ${perCall(total)} of samples a call (idle included)\n`,
);
console.log('by package:');
for (const [name, time] of top(owners, 15)) console.log(`${perCall(time)}  ${name}`);
console.log('\nby function (self time):');
for (const [name, time] of top(functions, Number(process.env.TOP ?? 30)))
  console.log(`${perCall(time)}  ${name}`);

// CALLERS=name: who calls the functions of that name, by their callers' stacks (self time).
// DEPTH=n: how many callers a stack shows (default 6).
const wanted = process.env.CALLERS;
if (wanted !== undefined) {
  const parents = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parents.set(child, node.id);
  const frameName = (id: number): string => {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) return '?';
    const file = frame.url.slice(frame.url.lastIndexOf('/') + 1);
    return `${frame.functionName || '(anonymous)'} ${file}:${String(frame.lineNumber + 1)}`;
  };
  const stacks = new Map<string, number>();
  for (const [id, time] of selfTime) {
    if (byId.get(id)?.callFrame.functionName !== wanted) continue;
    const chain: string[] = [];
    for (
      let at = parents.get(id);
      at !== undefined && chain.length < Number(process.env.DEPTH ?? 6);
      at = parents.get(at)
    )
      chain.push(frameName(at));
    const key = chain.join(' < ');
    stacks.set(key, (stacks.get(key) ?? 0) + time);
  }
  console.log(`\ncallers of ${wanted}:`);
  for (const [stack, time] of top(stacks, 12)) console.log(`${perCall(time)}  ${stack}`);
}
