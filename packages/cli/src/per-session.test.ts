import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { everythingCommand } from '@toolplane/fixtures';
import {
  exited,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  useTempDir,
  waitForStderr,
} from './testing/cli-process.js';

const TOKEN = 'per-session-test-token-0123456789';
const dir = useTempDir('per-session');

async function serve(connection: 'shared' | 'per-session') {
  const config = join(dir(), `${connection}.config.json`);
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: { everything: { ...everythingCommand(), connection } },
      naming: { transparent: 'everything' },
      store: 'memory',
      http: { token: TOKEN },
    }),
  );
  const child = startCli([...SERVE_HTTP, '--config', config], { cwd: dir() });
  const [url] = await Promise.all([
    listeningUrl(child),
    waitForStderr(child, /everything connected/),
  ]);
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const clients: Client[] = [];
  return {
    async client(): Promise<Client> {
      const client = new Client({ name: 'per-session', version: '0.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(url, { requestInit: { headers: auth } }),
      );
      clients.push(client);
      return client;
    },
    async sessionConnections(): Promise<unknown> {
      const health = (await (await fetch(new URL('/healthz', url), { headers: auth })).json()) as {
        connectors: { namespace: string; sessionConnections?: number }[];
      };
      return health.connectors.find((c) => c.namespace === 'everything')?.sessionConnections;
    },
    async stop(): Promise<void> {
      await Promise.all(clients.map((client) => client.close()));
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

async function toggle(client: Client): Promise<string> {
  const result = await client.callTool({ name: 'toggle-subscriber-updates' });
  const [first] = result.content;
  return first?.type === 'text' ? (first.text.split(' ')[0] ?? '') : '';
}

describe('servers with a connection per client session', () => {
  it('keep one client’s upstream state from the other’s, and close with the session', async () => {
    const gateway = await serve('per-session');
    try {
      const alice = await gateway.client();
      const bob = await gateway.client();
      expect(await toggle(alice)).toBe('Started');
      expect(await toggle(bob)).toBe('Started');
      expect(await gateway.sessionConnections()).toBe(2);
      await (alice.transport as StreamableHTTPClientTransport).terminateSession();
      const deadline = Date.now() + 15_000;
      while ((await gateway.sessionConnections()) !== 1) {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await gateway.stop();
    }
  });

  it('share one upstream by default', async () => {
    const gateway = await serve('shared');
    try {
      expect(await toggle(await gateway.client())).toBe('Started');
      expect(await toggle(await gateway.client())).toBe('Stopped');
    } finally {
      await gateway.stop();
    }
  });
});
