import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryArgs, isAlive, isRunning } from '@toolplane/fixtures';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '@toolplane/toolmodel';
import { runToolkit } from '../../testing/run-toolkit.js';
import { createToolkit } from '../../toolkit/toolkit.js';
import { createConnector, type Connector } from '../connector.js';

const MIB = 1024 * 1024;

// A stdio MCP server written by hand, so it can send what no SDK server would: an 11 MiB answer
// (`big`), an 11 MiB notification before a small answer (`noisy`), a small answer (`small`), and
// an 11 MiB request of its own under the ID of the call it serves (`ask`; IDs are per side, so
// this is legal), then an answer saying how its request was answered. Answers are serialised as
// the TypeScript SDK does, result first and the ID last; its request with the ID first, as
// Python's does.
const SERVER = `
const lines = require('node:readline').createInterface({ input: process.stdin });
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
const reply = (id, result) => send({ result, jsonrpc: '2.0', id });
const text = (value) => ({ content: [{ type: 'text', text: value }] });
const tool = (name) => ({ name, inputSchema: { type: 'object' } });
let asking;
lines.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === undefined) {
    if (asking !== undefined && m.id === asking) reply(asking, text(m.error ? 'refused: ' + m.error.message : 'answered'));
    return;
  }
  if (m.method === 'initialize') {
    reply(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'big', version: '1' } });
  } else if (m.method === 'tools/list') {
    reply(m.id, { tools: [tool('big'), tool('noisy'), tool('small'), tool('ask'), tool('big-id-first'), tool('null-result'), { name: 'bad-schema', inputSchema: { type: 'object', required: 'a' } }] });
  } else if (m.method === 'tools/call' && m.params.name === 'big') {
    reply(m.id, text('x'.repeat(11 * ${MIB})));
  } else if (m.method === 'tools/call' && m.params.name === 'big-id-first') {
    send({ jsonrpc: '2.0', id: m.id, result: text('x'.repeat(11 * ${MIB})) });
  } else if (m.method === 'tools/call' && m.params.name === 'noisy') {
    send({ method: 'notifications/message', params: { level: 'info', data: 'y'.repeat(11 * ${MIB}) }, jsonrpc: '2.0' });
    reply(m.id, text('after the noise'));
  } else if (m.method === 'tools/call' && m.params.name === 'ask') {
    asking = m.id;
    const messages = [{ role: 'user', content: { type: 'text', text: 'z'.repeat(11 * ${MIB}) } }];
    send({ jsonrpc: '2.0', id: m.id, method: 'sampling/createMessage', params: { messages, maxTokens: 1 } });
  } else if (m.method === 'tools/call' && m.params.name === 'null-result') {
    send({ jsonrpc: '2.0', id: m.id, result: null });
  } else if (m.method === 'tools/call') {
    reply(m.id, text('small'));
  } else {
    reply(m.id, {});
  }
});
`;

// A server that writes its PID to the file named by its argument, ignores SIGTERM and the end of
// its input, and never answers: the kind that outlives a careless client.
const STUBBORN = `
require('node:fs').writeFileSync(process.argv[1], String(process.pid));
process.on('SIGTERM', () => {});
process.stdin.resume();
setInterval(() => {}, 1000);
`;

/** Whether `pid` is still running (see `isRunning`). */
function running(pid: number): Promise<boolean> {
  return Promise.resolve(isRunning(pid));
}

/** Whether `pid` still runs after `ms`, polling so an ending process is not waited for. */
async function stillRunningAfter(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (await running(pid)) {
    if (Date.now() > deadline) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** The PID a stubborn server writes to `file`, once it has. */
async function pidIn(file: string): Promise<number> {
  for (;;) {
    const pid = Number(await readFile(file, 'utf8').catch(() => '0'));
    if (pid > 0) return pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolplane-stdio-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let connector: Connector | undefined;
afterEach(async () => {
  await connector?.close();
  connector = undefined;
});

function text(result: unknown): string {
  const { content } = result as { content: { text?: string }[] };
  return content.map((block) => block.text ?? '').join('');
}

describe('the stdio transport', () => {
  it('refuses one message over the limit and keeps the connection for the next', async () => {
    connector = createConnector(
      { command: process.execPath, args: ['-e', SERVER] },
      { namespace: 'big' },
    );
    connector.start();
    await connector.ready();
    const client = connector.client;
    const pid = connector.pid;
    if (client === undefined) throw new Error('not connected');

    const refused = await client.callTool({ name: 'big' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(
      /message of 115\d{5} bytes, over the limit of 10485760; it was dropped/,
    );

    expect(text(await client.callTool({ name: 'small' }))).toBe('small');
    // Serialised with the ID first, as Python's SDK does.
    await expect(client.callTool({ name: 'big-id-first' })).rejects.toThrow(/over the limit/);
    // An oversized notification goes alone; the answer after it arrives.
    expect(text(await client.callTool({ name: 'noisy' }))).toBe('after the noise');
    expect(connector.state).toBe('connected');
    expect(connector.pid).toBe(pid);
  });

  it('answers an oversized server request to the server, not to a call of the same ID', async () => {
    connector = createConnector(
      { command: process.execPath, args: ['-e', SERVER] },
      { namespace: 'big' },
    );
    connector.start();
    await connector.ready();
    const answer = await connector.client?.callTool({ name: 'ask' });
    expect(text(answer)).toMatch(/^refused: .*over its limit of 10485760/);
    expect(text(await connector.client?.callTool({ name: 'small' }))).toBe('small');
  });

  it('fails a toolkit call answered over the limit with a ToolError, and the next succeeds', async () => {
    const toolkit = createToolkit();
    toolkit.addConnector({ command: process.execPath, args: ['-e', SERVER] }, { namespace: 'big' });
    const { stop } = await runToolkit(toolkit);
    try {
      const refused = await toolkit.callTool('big:big').catch((error: unknown) => error);
      expect(ToolError.isInstance(refused)).toBe(true);
      expect((refused as ToolError).code).toBe('execution');
      expect((refused as ToolError).message).toMatch(/over the limit of 10485760; it was dropped/);
      expect((await toolkit.callTool('big:small')).structured).toBe('small');
    } finally {
      await stop();
    }
  });

  it('fails a call answered with a message that is no JSON-RPC answer at once, and the next succeeds', async () => {
    const toolkit = createToolkit();
    toolkit.addConnector({ command: process.execPath, args: ['-e', SERVER] }, { namespace: 'odd' });
    const running = await runToolkit(toolkit);
    try {
      // Its own request timeout is far: the failure is the answer's, not the wait's.
      await expect(toolkit.callTool('odd:null-result', {})).rejects.toSatisfy(
        (error) => ToolError.isInstance(error) && error.code !== 'timeout',
      );
      expect(text((await toolkit.callTool('odd:small', {})).mcpResult)).toBe('small');
    } finally {
      await running.stop();
    }
  });

  it('leaves out a listed tool that is no MCP tool, warning of it, and keeps the others', async () => {
    const warned: string[] = [];
    const logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message: string) => warned.push(message),
      error: () => undefined,
    };
    const toolkit = createToolkit({ logger });
    toolkit.addConnector({ command: process.execPath, args: ['-e', SERVER] }, { namespace: 'odd' });
    const running = await runToolkit(toolkit);
    try {
      const ids = (await toolkit.list({ type: 'tool', namespace: 'odd' })).tools.map((t) => t.id);
      expect(ids).toContain('odd:small');
      expect(ids).not.toContain('odd:bad-schema');
      expect(warned.filter((line) => line.includes('"bad-schema"'))).toHaveLength(1);
    } finally {
      await running.stop();
    }
  });

  it('takes a larger limit when given one', async () => {
    connector = createConnector(
      { command: process.execPath, args: ['-e', SERVER] },
      { namespace: 'big', maxMessageBytes: 16 * MIB },
    );
    connector.start();
    await connector.ready();
    const answer = await connector.client?.callTool({ name: 'big' });
    expect(text(answer)).toHaveLength(11 * MIB);
  });

  it('leaves no child behind, even one that ignores SIGTERM during its handshake', async () => {
    const pidFile = join(dir, 'stubborn.pid');
    connector = createConnector(
      { command: process.execPath, args: ['-e', STUBBORN, pidFile] },
      { namespace: 'stubborn', connectTimeoutMs: 300, backoff: { initialDelayMs: 60_000 } },
    );
    connector.start();
    const pid = await pidIn(pidFile);
    await connector.close();
    connector = undefined;
    expect(isAlive(pid)).toBe(false);
  });

  it('ends a released child that never answered before close returns (its start ran out)', async () => {
    const pidFile = join(dir, 'silent.pid');
    connector = createConnector(
      { command: process.execPath, args: ['-e', STUBBORN, pidFile], closing: 'release' },
      { namespace: 'silent', connectTimeoutMs: 300, backoff: { initialDelayMs: 60_000 } },
    );
    connector.start();
    const pid = await pidIn(pidFile);
    await connector.close();
    connector = undefined;
    expect(isAlive(pid)).toBe(false);
  });

  // `sh -c '...; true'` forks (it must run `true` after), as npx does: the server is a grandchild.
  it.skipIf(process.platform === 'win32')(
    'leaves no grandchild behind, one that ignores SIGTERM behind a shell',
    async () => {
      const pidFile = join(dir, 'grandchild.pid');
      connector = createConnector(
        {
          command: 'sh',
          args: ['-c', '"$0" -e "$1" "$2"; true', process.execPath, STUBBORN, pidFile],
        },
        { namespace: 'stubborn', connectTimeoutMs: 300, backoff: { initialDelayMs: 60_000 } },
      );
      connector.start();
      const pid = await pidIn(pidFile);
      await connector.close();
      connector = undefined;
      // close() has sent the group SIGKILL; the kernel ends the grandchild a moment later.
      const left = await stillRunningAfter(pid, 2_000);
      if (left) process.kill(pid, 'SIGKILL');
      expect(left).toBe(false);
    },
  );

  it('leaves no child behind when the process exits without closing', async () => {
    const pidFile = join(dir, 'orphan.pid');
    const entry = fileURLToPath(new URL('../testing/exit-while-connecting.ts', import.meta.url));
    const parent = spawn(
      process.execPath,
      [...entryArgs(entry), pidFile].concat([process.execPath, '-e', STUBBORN, pidFile]),
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const [code] = (await once(parent, 'exit')) as [number | null];
    expect(code).toBe(0);
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(0);
    // SIGKILL is sent as the parent exits; the kernel may take a moment to deliver it.
    const deadline = performance.now() + 5_000;
    while ((await running(pid)) && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const left = await running(pid);
    if (left) process.kill(pid, 'SIGKILL');
    expect(left).toBe(false);
  });
});
