import { once } from 'node:events';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { childPids, fixtureCommand } from '@toolplane/fixtures';
import { describe, expect, it } from 'vitest';
import { createConnector } from '../connector.js';
import { StdioClientTransport } from '../transport/stdio-client-transport.js';
import { inheritedEnvironment, StdioChild } from './stdio-child.js';
import { StdioPrestarts } from './prestarts.js';

/** A script that writes a notification and a stderr line at once, then exits. */
const EARLY_WRITER = {
  command: process.execPath,
  args: [
    '-e',
    `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'first bytes' } }) + '\\n');
process.stderr.write('early stderr\\n');`,
  ],
};

/** Resolves once no child holds `token` (polls: a disappearance has no event to wait for). */
async function gone(token: string): Promise<void> {
  while (childPids(token).length > 0) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('StdioPrestarts', () => {
  it('inherits the same environment variables as the SDK', () => {
    expect(inheritedEnvironment()).toEqual(getDefaultEnvironment());
  });

  it('hands an adopted child over with everything it wrote before, even after it exited', async () => {
    const pool = new StdioPrestarts();
    pool.start(EARLY_WRITER);
    const child = pool.take(EARLY_WRITER);
    expect(child).toBeDefined();
    expect(pool.take(EARLY_WRITER)).toBeUndefined();
    // Its whole life happens before anyone adopts it.
    if (child!.child.exitCode === null) await once(child!.child, 'close');
    const transport = new StdioClientTransport({ ...EARLY_WRITER, adopt: () => child });
    const messages: JSONRPCMessage[] = [];
    let stderr = '';
    transport.onmessage = (message) => messages.push(message);
    transport.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<void>((resolve) => {
      transport.onclose = resolve;
    });
    await transport.start();
    // What it wrote comes once the owner has written its first request, as it would live.
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' }).catch(() => undefined);
    await closed;
    expect(messages).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 'first bytes' },
      },
    ]);
    expect(stderr).toBe('early stderr\n');
    pool.dispose();
  });

  it('connects a connector through an adopted child as through its own', async () => {
    const source = { ...fixtureCommand('stdio') };
    const pool = new StdioPrestarts();
    pool.start(source);
    const connector = createConnector({ ...source, prestarted: pool }, { namespace: 'early' });
    try {
      connector.start();
      await connector.ready();
      expect(pool.size).toBe(0);
      expect(connector.lists.tools.map((tool) => tool.name)).toContain('echo');
    } finally {
      await connector.close();
      pool.dispose();
    }
  });

  it('reports an adopted child that already exited as a spawned one that exits', async () => {
    const dying = {
      command: process.execPath,
      args: ['-e', "process.stderr.write('no config here\\n'); process.exit(3)"],
    };
    const errorOf = async (prestarted?: StdioPrestarts): Promise<unknown> => {
      const connector = createConnector(
        { ...dying, ...(prestarted === undefined ? {} : { prestarted }) },
        { namespace: 'dying' },
      );
      connector.start();
      const failed = await connector.ready().then(
        () => undefined,
        (error: unknown) => error,
      );
      const last = connector.lastError?.message;
      await connector.close();
      return { failed: (failed as { code?: string } | undefined)?.code, last };
    };
    const pool = new StdioPrestarts();
    pool.start(dying);
    const child = pool.take(dying)!;
    if (child.child.exitCode === null) await once(child.child, 'close');
    // Put back as it was: started, and exited before the connector came.
    let given = false;
    const adopted = {
      take: () => (given ? undefined : ((given = true), child)),
    } as unknown as StdioPrestarts;
    const spawned = await errorOf();
    const late = await errorOf(adopted);
    expect(spawned).toEqual({
      failed: 'connector_unavailable',
      last: expect.stringMatching(/no config here/),
    });
    expect(late).toEqual(spawned);
    expect(given).toBe(true);
  });

  it('ends the children nobody adopted', async () => {
    const token = `never-adopted-${String(process.pid)}-${String(Date.now())}`;
    const source = {
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)', token],
    };
    const pool = new StdioPrestarts();
    pool.start(source);
    pool.start(source);
    expect(pool.size).toBe(2);
    pool.dispose();
    expect(pool.size).toBe(0);
    await gone(token);
    // Disposed, it starts nothing more.
    pool.start(source);
    expect(pool.size).toBe(0);
  });

  it('discards a child that never started without complaint', () => {
    const child = new StdioChild({ command: 'toolplane-no-such-command' });
    child.discard();
    expect(child.attached).toBe(true);
  });
});
