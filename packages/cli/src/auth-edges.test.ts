// `toolplane auth` edges a newcomer meets: a server that is not there, and a config whose `auth`
// is the top-level one (the gateway as resource server), not a server's.
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startAuthorizationServer, type TestAuthorizationServer } from '@toolplane/oauth/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  binCommand,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
  waitForStderr,
} from './testing/cli-process.js';
import { freePorts } from './testing/fleet.js';
import { runInProcess } from './testing/in-process.js';

const tempDir = useTempDir('auth-edges');
let deadUrl: string;
let as: TestAuthorizationServer;
const resources: Record<string, string[]> = {};
const children: ChildProcess[] = [];

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stop(child, 'SIGTERM')));
});

afterAll(async () => {
  await as.close();
});

beforeAll(async () => {
  as = await startAuthorizationServer({ resources });
  const dir = tempDir();
  await writeFile(
    join(dir, 'gateway-auth.json'),
    JSON.stringify({
      store: 'memory',
      auth: { issuer: as.issuer, scopes: { 'time:read': { namespaces: ['builtin'] } } },
    }),
  );
  // A port free a moment ago: nothing listens there.
  const [port = 0] = await freePorts(1);
  deadUrl = `http://127.0.0.1:${String(port)}/mcp`;
  await writeFile(
    join(dir, 'dead.json'),
    JSON.stringify({ mcpServers: { dead: { url: deadUrl, auth: {} } }, store: 'memory' }),
  );
});

describe('toolplane auth', { timeout: 60_000 }, () => {
  it('exits 5 naming the URL when the server to log in to cannot be reached', async () => {
    const ran = await runInProcess(['--config', 'dead.json', 'auth', 'login', 'dead'], {
      cwd: tempDir(),
      env: { TOOLPLANE_TOKEN_KEY: 'k'.repeat(64) },
    });
    expect(ran.code).toBe(5);
    expect(ran.stderr).toContain(
      `cannot reach ${deadUrl} to log in to "dead" (ECONNREFUSED): check that the server is running`,
    );
  });

  it('auth status on a top-level auth config says what that auth is, and how to get a token', async () => {
    const [text, json] = await Promise.all([
      runInProcess(['--config', 'gateway-auth.json', 'auth', 'status'], { cwd: tempDir() }),
      runInProcess(['--config', 'gateway-auth.json', 'auth', 'status', '--json'], {
        cwd: tempDir(),
      }),
    ]);
    expect(text.code).toBe(0);
    expect(text.stderr).toContain(
      `gateway (top-level auth): serve --http is an OAuth resource server; its clients need an access token from ${as.issuer} for http://127.0.0.1:8808/mcp (scopes: time:read)`,
    );
    expect(text.stderr).toContain('toolplane auth token --client-id <id>');
    expect(text.stdout).toContain('none has an "auth" key: the gateway logs in to no server');
    expect(JSON.parse(json.stdout)).toEqual({
      gateway: { issuer: as.issuer, resource: 'http://127.0.0.1:8808/mcp', scopes: ['time:read'] },
      servers: [],
    });
  });

  it('the printed recipe gets a test token that the printed Inspector header carries in', async () => {
    const child = startCli([...SERVE_HTTP, '--config', 'gateway-auth.json'], {
      command: binCommand,
      cwd: tempDir(),
      stdin: 'pipe',
    });
    children.push(child);
    let printed = '';
    child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    // Everything serve prints at start, the last line included.
    const printedAll = waitForStderr(child, /Ctrl-C stops the gateway/);
    const url = await listeningUrl(child);
    await printedAll;
    resources[url.href] = ['time:read'];
    // What serve printed: how to get the token, and the Inspector commands that send it.
    expect(printed).toContain(
      `export TOOLPLANE_ACCESS_TOKEN=$(TOOLPLANE_CLIENT_SECRET=… toolplane --config `,
    );
    expect(printed).toContain(`auth token --client-id <id> --resource ${url.href}))`);
    const header = /--header "Authorization: Bearer \$TOOLPLANE_ACCESS_TOKEN"/;
    expect(printed).toMatch(header);

    const [client] = as.clients;
    const ran = await runInProcess(
      [
        '--config',
        'gateway-auth.json',
        'auth',
        'token',
        '--client-id',
        client?.clientId ?? '',
        '--resource',
        url.href,
        '--scope',
        'time:read',
      ],
      { cwd: tempDir(), env: { TOOLPLANE_CLIENT_SECRET: client?.clientSecret ?? '' } },
    );
    expect(ran.code).toBe(0);
    const token = ran.stdout.trim();
    const mcp = new Client({ name: 'auth-edges-test', version: '0.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const names = (await mcp.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('builtin__time_now');
    } finally {
      await mcp.close();
    }

    const refused = await runInProcess(
      ['--config', 'gateway-auth.json', 'auth', 'token', '--client-id', 'nobody'],
      { cwd: tempDir(), env: { TOOLPLANE_CLIENT_SECRET: 'wrong' } },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused the client credentials grant \(HTTP 401/);
  });
});

describe('toolplane auth token against an authorization server that never answers', () => {
  it('gives up after --timeout with a timeout error, exit 5', async () => {
    const mute = createServer(() => undefined);
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = mute.address() as AddressInfo;
      const ran = await runInProcess(
        [
          '--config',
          'gateway-auth.json',
          'auth',
          'token',
          '--client-id',
          'c',
          '--issuer',
          `http://127.0.0.1:${String(port)}`,
          '--timeout',
          '300',
        ],
        { cwd: tempDir(), env: { TOOLPLANE_CLIENT_SECRET: 's' } },
      );
      expect(ran.code).toBe(5);
      expect(ran.stderr).toMatch(/no answer in 300 ms/);
    } finally {
      mute.closeAllConnections();
      await new Promise((resolve) => mute.close(resolve));
    }
  });
});
