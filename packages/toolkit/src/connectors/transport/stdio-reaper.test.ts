import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { childPids, isRunning } from '@toolplane/fixtures';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StdioPrestarts } from '../spawn/prestarts.js';
import { StdioClientTransport } from './stdio-client-transport.js';

// The reaper a `closing: 'release'` transport leaves behind, started while the first answer is
// awaited rather than after the last one. The server writes its PID to the file named by its
// argument; `deaf` answers its requests once asked to (a request named `answer`), so the test
// decides when the wait for its first answer ends, and outlives the end of its input (SIGTERM
// ends it); `quiet` never answers and exits when its input ends.
const DEAF = `
require('node:fs').writeFileSync(process.argv[1], String(process.pid));
const asked = [];
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id !== undefined) asked.push(m.id);
  if (m.method !== 'answer') return;
  for (const id of asked.splice(0)) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: {} }) + '\\n');
});
setInterval(() => {}, 60_000);
`;
const QUIET = `
require('node:fs').writeFileSync(process.argv[1], String(process.pid));
process.stdin.on('end', () => process.exit(0)).resume();
`;

let dir: string;
let transport: StdioClientTransport | undefined;

/** Polls until `done` holds: a process's start or end has no event this test can wait for. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 25));
}

/** This process's reapers of the group `pid` leads (their `sh -c` names it). */
function reapersOf(pid: number): number[] {
  return childPids(`kill -s TERM -- -${String(pid)}`);
}

/** A started transport for `script`, and the PID its server wrote. */
async function started(script: string, name: string) {
  const pidFile = join(dir, `${name}.pid`);
  const opened = new StdioClientTransport({
    command: process.execPath,
    args: ['-e', script, pidFile],
    closing: 'release',
  });
  transport = opened;
  const messages: JSONRPCMessage[] = [];
  opened.onmessage = (message) => messages.push(message);
  await opened.start();
  const pid = opened.pid ?? 0;
  expect(pid).toBeGreaterThan(0);
  await opened.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  // Armed after the first request went out, before anything is closed.
  await until(() => reapersOf(pid).length === 1);
  // The server has begun (a release of a child not yet running would be a different test).
  const written = async () => Number(await readFile(pidFile, 'utf8').catch(() => '0'));
  while ((await written()) !== pid) await new Promise((resolve) => setTimeout(resolve, 25));
  return { opened, pid, messages };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolplane-reaper-'));
});

afterEach(async () => {
  await transport?.close();
  transport = undefined;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(process.platform === 'win32')('the reaper of a released stdio child', () => {
  it('is started once the first request is out, and ends a released child that outlives its input', async () => {
    const { opened, pid, messages } = await started(DEAF, 'deaf');
    await opened.send({ jsonrpc: '2.0', id: 2, method: 'answer' });
    await until(() => messages.length === 2);
    // Released: close returns at once, the child still running, the reaper told to go.
    await opened.close();
    transport = undefined;
    await until(() => !isRunning(pid));
    await until(() => reapersOf(pid).length === 0);
    expect(isRunning(pid)).toBe(false);
  });

  it('ends without a word when the child is ended the waiting way (it never answered)', async () => {
    const { opened, pid } = await started(QUIET, 'quiet');
    await opened.close();
    transport = undefined;
    expect(isRunning(pid)).toBe(false);
    await until(() => reapersOf(pid).length === 0);
    expect(reapersOf(pid)).toEqual([]);
  });

  it('is armed as a releasing pool starts the child, and is the one the transport tells to go', async () => {
    const source = { command: process.execPath, args: ['-e', DEAF, join(dir, 'early.pid')] };
    const pool = new StdioPrestarts({ release: true });
    pool.start(source);
    const child = pool.take(source);
    const pid = child?.child.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    // Before any owner, any request: armed with the child.
    await until(() => reapersOf(pid).length === 1);
    const armed = reapersOf(pid);
    const opened = new StdioClientTransport({ ...source, closing: 'release', adopt: () => child });
    transport = opened;
    const messages: JSONRPCMessage[] = [];
    opened.onmessage = (message) => messages.push(message);
    await opened.start();
    await opened.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await opened.send({ jsonrpc: '2.0', id: 2, method: 'answer' });
    await until(() => messages.length === 2);
    // No second reaper was spawned for the wait, nor for the release.
    expect(reapersOf(pid)).toEqual(armed);
    await opened.close();
    transport = undefined;
    await until(() => !isRunning(pid));
    await until(() => reapersOf(pid).length === 0);
  });

  it('is ended with a prestarted child nobody adopted', async () => {
    const source = { command: process.execPath, args: ['-e', DEAF, join(dir, 'unadopted.pid')] };
    const pool = new StdioPrestarts({ release: true });
    pool.start(source);
    await until(() => childPids('unadopted.pid').length === 1);
    const [pid = 0] = childPids('unadopted.pid');
    await until(() => reapersOf(pid).length === 1);
    // A child nobody adopted is ended (SIGTERM), and its reaper, never told to go, with it.
    pool.dispose();
    await until(() => !isRunning(pid));
    await until(() => reapersOf(pid).length === 0);
  });
});
